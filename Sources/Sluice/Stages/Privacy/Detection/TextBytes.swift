/// Byte classes and token boundaries the PII detectors share.
///
/// The detectors work on UTF-8 bytes, never on `String`. A match must stand on
/// its own: not glued to letters or digits, and not the tail or head of a
/// hyphenated or dotted token. That one rule keeps timestamps
/// (`2026-11-20T08:00:07Z`), UUIDs, hex ids and `v1.2.3.4` away from the
/// number detectors.
enum TextBytes {
    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool { ASCIIBytes.isDigit(byte) }

    @inline(__always)
    static func isASCIILetter(_ byte: UInt8) -> Bool { ASCIIBytes.isLetter(byte) }

    @inline(__always)
    static func isASCIIAlnum(_ byte: UInt8) -> Bool { ASCIIBytes.isLetterOrDigit(byte) }

    @inline(__always)
    static func isHexDigit(_ byte: UInt8) -> Bool { isDigit(byte) || (byte | 0x20) &- 0x61 < 6 }

    @inline(__always)
    static func hexValue(_ byte: UInt8) -> UInt8 { isDigit(byte) ? byte - 0x30 : (byte | 0x20) - 0x61 + 10 }

    /// An ASCII upper-case letter as lower case; any other byte as it is.
    @inline(__always)
    static func fold(_ byte: UInt8) -> UInt8 { byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte }

    /// Whether `text` is `lowered` (lower case), ASCII letters compared without case.
    @inline(__always)
    static func equalsFolded(_ text: Span<UInt8>, _ lowered: [UInt8]) -> Bool {
        guard text.count == lowered.count else { return false }
        for index in 0..<text.count where fold(text[index]) != lowered[index] { return false }
        return true
    }

    /// Whether `text` holds `lowered` (lower case, not empty), ASCII letters compared without case.
    static func containsFolded(_ text: Span<UInt8>, _ lowered: [UInt8]) -> Bool {
        guard text.count >= lowered.count else { return false }
        for position in 0...(text.count - lowered.count) where fold(text[position]) == lowered[0] {
            var offset = 1
            while offset < lowered.count && fold(text[position + offset]) == lowered[offset] { offset += 1 }
            if offset == lowered.count { return true }
        }
        return false
    }

    /// A byte of a word: ASCII letters, digits and `_`.
    @inline(__always)
    static func isWord(_ byte: UInt8) -> Bool { ASCIIBytes.isWord(byte) }

    /// Whether a number-like match may start at `index`: not after a word byte,
    /// and not after a `-` or `.` that follows one (`dev-000123`, `a716-4466…`, `1.5`).
    @inline(__always)
    static func startsToken(_ text: Span<UInt8>, _ index: Int) -> Bool {
        guard index > 0 else { return true }
        let previous = text[index - 1]
        if isWord(previous) { return false }
        if (previous == UInt8(ascii: "-") || previous == UInt8(ascii: ".")) && index >= 2 && isWord(text[index - 2]) {
            return false
        }
        return true
    }

    /// Whether a number-like match may end just before `end`: not before a word
    /// byte, and not before a `-` or `.` that leads to one (`…20T08`, `1.2.3.4-beta`, `12.50`).
    @inline(__always)
    static func endsToken(_ text: Span<UInt8>, _ end: Int) -> Bool {
        guard end < text.count else { return true }
        let following = text[end]
        if isWord(following) { return false }
        if (following == UInt8(ascii: "-") || following == UInt8(ascii: ".")) && end + 1 < text.count && isWord(text[end + 1]) {
            return false
        }
        return true
    }

    /// A character an email's local part may hold (RFC 5322 atext, less the
    /// URL delimiters `/ = ? & #` so that `?email=jane@x.com` keeps `email=`;
    /// non-ASCII allowed, RFC 6531).
    @inline(__always)
    static func isLocalPart(_ byte: UInt8) -> Bool {
        isASCIIAlnum(byte) || byte >= 0x80 || localPunctuation[Int(byte)]
    }

    /// Where the character ending just before `end` starts, when it is a
    /// letter of an alphabetic script (`isScriptLetter`); nil for any other
    /// character or a broken sequence. `text[end - 1]` is not ASCII.
    static func letterBefore(_ text: Span<UInt8>, _ end: Int) -> Int? {
        var lead = end - 1
        while lead > 0 && end - lead < 4 && text[lead] & 0xC0 == 0x80 { lead -= 1 }
        guard let (scalar, length) = decode(text, lead), lead + length == end, isScriptLetter(scalar) else { return nil }
        return lead
    }

    /// Where the character starting at `start` ends, when it is a letter of an
    /// alphabetic script (`isScriptLetter`); nil for any other character.
    static func letterAfter(_ text: Span<UInt8>, _ start: Int) -> Int? {
        guard let (scalar, length) = decode(text, start), isScriptLetter(scalar) else { return nil }
        return start + length
    }

    /// The scalar of the UTF-8 sequence of two or three bytes at `start`, and its length; nil otherwise.
    @inline(__always)
    private static func decode(_ text: Span<UInt8>, _ start: Int) -> (UInt32, Int)? {
        let lead = text[start]
        if lead & 0xE0 == 0xC0 {
            guard start + 1 < text.count, text[start + 1] & 0xC0 == 0x80 else { return nil }
            return (UInt32(lead & 0x1F) << 6 | UInt32(text[start + 1] & 0x3F), 2)
        }
        if lead & 0xF0 == 0xE0 {
            guard start + 2 < text.count, text[start + 1] & 0xC0 == 0x80, text[start + 2] & 0xC0 == 0x80 else { return nil }
            return (UInt32(lead & 0x0F) << 12 | UInt32(text[start + 1] & 0x3F) << 6 | UInt32(text[start + 2] & 0x3F), 3)
        }
        return nil
    }

    /// A letter (or combining mark) of the alphabetic scripts written with
    /// spaces between words, which people put in an address's local part
    /// next to ASCII (`josé.garcía`, `jörg`, `δημήτρης`, `nguyễn`): Latin-1's
    /// letters and Latin Extended (not `×`, `÷`, nor Latin-1's punctuation
    /// and quotes such as `«` `»` `¿`), IPA, combining diacritics, Greek,
    /// Cyrillic, Armenian, Latin and Greek Extended. CJK, Thai, Hebrew and
    /// Arabic text is written against an ASCII address without a space, so
    /// it is not one of them.
    @inline(__always)
    static func isScriptLetter(_ scalar: UInt32) -> Bool {
        switch scalar {
        case 0xD7, 0xF7, 0x37E, 0x387: return false
        case 0xC0...0x36F, 0x370...0x52F, 0x531...0x587, 0x1E00...0x1FFF: return true
        default: return false
        }
    }

    private static let localPunctuation: [Bool] = {
        var table = [Bool](repeating: false, count: 256)
        for byte in "._%+-'!$*^`{|}~".utf8 { table[Int(byte)] = true }
        return table
    }()

    /// A character of a domain name (letters, digits, `-`, `.`, non-ASCII for IDNs).
    @inline(__always)
    static func isDomain(_ byte: UInt8) -> Bool {
        isASCIIAlnum(byte) || byte >= 0x80 || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    /// Whether `text[start..<end]` is a domain with at least two labels and a
    /// top-level label of two or more letters or an IDN one in punycode
    /// (`xn--p1ai`); `localhost`, `x.c` and `1.2.3.4` are not, and neither is a
    /// file name (`icon@3x.png`: a scale suffix, or an image or document
    /// extension as the last label).
    static func isEmailDomain(_ text: Span<UInt8>, _ start: Int, _ end: Int) -> Bool {
        guard end > start else { return false }
        var labelStart = start
        var labels = 0
        var index = start
        while index <= end {
            if index == end || text[index] == UInt8(ascii: ".") {
                if index == labelStart { return false }  // an empty label
                if text[labelStart] == UInt8(ascii: "-") || text[index - 1] == UInt8(ascii: "-") { return false }
                labels += 1
                if labels == 1 && index - labelStart == 2 && TextBytes.isDigit(text[labelStart])
                    && text[labelStart + 1] | 0x20 == UInt8(ascii: "x") {
                    return false  // `@2x.png`
                }
                if index == end {
                    guard labels >= 2, index - labelStart >= 2 else { return false }
                    let top = text.extracting(labelStart..<index)
                    if isPunycodeLabel(top) { return true }
                    for index in top.indices where !(isASCIILetter(top[index]) || top[index] >= 0x80) { return false }
                    return !isFileExtension(top)
                }
                labelStart = index + 1
            }
            index += 1
        }
        return false
    }

    /// `xn--` and letters, digits or dashes.
    private static func isPunycodeLabel(_ label: Span<UInt8>) -> Bool {
        guard label.count > 4, label[0] | 0x20 == UInt8(ascii: "x"), label[1] | 0x20 == UInt8(ascii: "n"),
              label[2] == UInt8(ascii: "-"), label[3] == UInt8(ascii: "-") else { return false }
        for index in 4..<label.count where !(isASCIIAlnum(label[index]) || label[index] == UInt8(ascii: "-")) { return false }
        return true
    }

    /// File extensions that are not top-level domains (IANA's list has none of them).
    private static let fileExtensions: [[UInt8]] = [
        "png", "jpg", "jpeg", "gif", "svg", "webp", "bmp", "ico", "tif", "tiff", "heic", "avif", "pdf", "js", "css",
        "json", "txt", "mp3", "mp4", "wav", "md", "yml", "yaml", "xml", "html", "htm",
    ].map { Array($0.utf8) }

    private static func isFileExtension(_ label: Span<UInt8>) -> Bool {
        fileExtensions.contains { equalsFolded(label, $0) }
    }
}
