/// Words that make a dotted number a version rather than an IPv4 address,
/// before it in text (`version 16.4.27.43`) or in a field's name (`app_version`).
enum VersionWords {
    private static let words: [[UInt8]] = [
        "v", "ver", "version", "versión", "versao", "versione", "build", "release", "rel", "rev", "revision", "firmware",
        "fw", "os", "ios", "ipados", "android", "macos", "windows", "linux", "kernel", "chrome", "chromium", "firefox",
        "safari", "edge", "opera", "webkit", "sdk", "patch", "bundle",
    ].map { Array($0.utf8) }

    /// Whether `word` (ASCII letters, any case) is a version word.
    static func isVersionWord(_ word: UnsafeBufferPointer<UInt8>) -> Bool {
        words.contains { candidate in
            candidate.count == word.count && zip(candidate, word).allSatisfy { $0 == ($1 &- UInt8(ascii: "A") < 26 ? $1 | 0x20 : $1) }
        }
    }

    /// Whether a field's name holds `version`, `build`, `firmware`, `release` or `agent`, or is `ver`, `os` or `fw`.
    static func fieldSaysVersion(_ key: UnsafeBufferPointer<UInt8>) -> Bool {
        guard key.count >= 2 else { return false }
        @inline(__always) func fold(_ byte: UInt8) -> UInt8 { byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte }
        for stem in stems where key.count >= stem.count {
            for position in 0...(key.count - stem.count) where fold(key[position]) == stem[0] {
                var offset = 1
                while offset < stem.count && fold(key[position + offset]) == stem[offset] { offset += 1 }
                if offset == stem.count { return true }
            }
        }
        return isVersionWord(key) && key.count <= 3  // `ver`, `os`, `v`
    }

    private static let stems: [[UInt8]] = ["version", "build", "firmware", "release", "agent"].map { Array($0.utf8) }
}
