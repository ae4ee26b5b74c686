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

    /// Whether a field's name holds `version`, `build`, `firmware`, `release` or `agent`, or is `ver`/`os`.
    static func fieldSaysVersion(_ key: UnsafeBufferPointer<UInt8>) -> Bool {
        guard key.count >= 2 else { return false }
        let lower = key.map { $0 &- UInt8(ascii: "A") < 26 ? $0 | 0x20 : $0 }
        for stem in stems where lower.count >= stem.count {
            for position in 0...(lower.count - stem.count) where lower[position..<(position + stem.count)].elementsEqual(stem) {
                return true
            }
        }
        return lower == Array("ver".utf8) || lower == Array("os".utf8)
    }

    private static let stems: [[UInt8]] = ["version", "build", "firmware", "release", "agent"].map { Array($0.utf8) }
}
