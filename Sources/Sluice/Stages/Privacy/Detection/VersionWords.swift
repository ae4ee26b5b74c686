/// Words that make a dotted number a version rather than an IPv4 address,
/// before it in text (`version 16.4.27.43`) or in a field's name (`app_version`).
enum VersionWords {
    private static let words: [[UInt8]] = [
        "v", "ver", "version", "versión", "versao", "versione", "build", "release", "rel", "rev", "revision", "firmware",
        "fw", "os", "ios", "ipados", "android", "macos", "windows", "linux", "kernel", "chrome", "chromium", "firefox",
        "safari", "edge", "opera", "webkit", "sdk", "patch", "bundle",
    ].map { Array($0.utf8) }

    /// Whether `word` (ASCII letters, any case) is a version word.
    static func isVersionWord(_ word: Span<UInt8>) -> Bool {
        words.contains { TextBytes.equalsFolded(word, $0) }
    }

    /// Whether a field's name holds `version`, `build`, `firmware`, `release` or `agent`, or is `ver`, `os` or `fw`.
    static func fieldSaysVersion(_ key: Span<UInt8>) -> Bool {
        guard key.count >= 2 else { return false }
        if stems.contains(where: { TextBytes.containsFolded(key, $0) }) { return true }
        return isVersionWord(key) && key.count <= 3  // `ver`, `os`, `v`
    }

    private static let stems: [[UInt8]] = ["version", "build", "firmware", "release", "agent"].map { Array($0.utf8) }

    /// Whether the dotted quad `text[start..<end]` is shaped as versions are:
    /// a first part of at most 30, a second of at most 20 and a third of at
    /// most 99 (`16.4.27.43`, `12.20.51.10`), but not in 10.0.0.0/8; about one
    /// address in 250 is too.
    static func hasVersionShape(_ text: Span<UInt8>, _ start: Int, _ end: Int) -> Bool {
        var first = 0, second = 0, third = 0
        var part = 0
        for position in start..<end {
            let byte = text[position]
            if byte == UInt8(ascii: ".") {
                part += 1
                if part == 3 { break }
                continue
            }
            let digit = Int(byte &- 0x30)
            switch part {
            case 0: first = first * 10 + digit
            case 1: second = second * 10 + digit
            default: third = third * 10 + digit
            }
        }
        // 10.x.x.x is the private network of most servers' logs: an address whatever its shape.
        return first <= 30 && first != 10 && second <= 20 && third <= 99
    }

    /// Whether what surrounds a dotted quad says it is an address: a word such
    /// as `ip`, `host` or `server` just before it, a URL's `//`, a `:port`
    /// after it, or a field whose name has `ip`, `addr` or `host` as a word.
    static func saysAddress(_ text: Span<UInt8>, _ start: Int, _ end: Int,
                            fieldName: Span<UInt8>) -> Bool {
        if start >= 2 && text[start - 1] == UInt8(ascii: "/") && text[start - 2] == UInt8(ascii: "/") { return true }
        if end + 1 < text.count && text[end] == UInt8(ascii: ":") && TextBytes.isDigit(text[end + 1]) { return true }
        let from = Swift.max(0, start - 24)
        for word in addressWords where start - from >= word.count {
            var position = start - word.count
            while position >= from {
                if hasWord(text, at: position, word) { return true }
                position -= 1
            }
        }
        for word in addressWords where fieldName.count >= word.count {
            for position in 0...(fieldName.count - word.count) where hasWord(fieldName, at: position, word) { return true }
        }
        return false
    }

    /// `word` at `position`, case folded, not inside a longer word (a lower-to-upper case change is a word's edge).
    private static func hasWord(_ text: Span<UInt8>, at position: Int, _ word: [UInt8]) -> Bool {
        for offset in 0..<word.count where TextBytes.fold(text[position + offset]) != word[offset] { return false }
        let after = position + word.count
        if position > 0 && TextBytes.isASCIILetter(text[position - 1]) && !(text[position] &- UInt8(ascii: "A") < 26) { return false }
        if after < text.count && TextBytes.isASCIILetter(text[after]) && !(text[after] &- UInt8(ascii: "A") < 26) { return false }
        return true
    }

    private static let addressWords: [[UInt8]] = [
        "ip", "ipv4", "addr", "address", "host", "hostname", "server", "client", "gateway", "dns", "proxy", "peer", "remote",
        "from", "src", "dst", "source", "destination", "subnet", "ping", "connect", "connected",
    ].map { Array($0.utf8) }
}
