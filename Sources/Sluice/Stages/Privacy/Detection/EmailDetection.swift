/// Finds email addresses: plain (`jane+news@example.com`) and URL-encoded
/// (`jane%40example.com` in a query string).
///
/// An address is a local part (see `TextBytes.isLocalPart`) and a domain of at
/// least two labels ending in an alphabetic top-level label (`user@localhost`
/// and `@handle` are not addresses). Only strings holding an `@` (or `%40`)
/// get here: the scanner's pre-filter sends nothing else.
enum EmailDetection {
    /// Appends the `[start, end)` of every plain address to `found`.
    static func scanPlain(_ text: Span<UInt8>, _ found: (Int, Int) -> Void) {
        var at = 0
        let count = text.count
        while at < count {
            guard text[at] == UInt8(ascii: "@") else {
                at += 1
                continue
            }
            let start = localPartStart(text, before: at)
            if let end = domainEnd(text, from: at + 1), start < at {
                found(start, end)
                at = end
            } else {
                at += 1
            }
        }
    }

    /// Appends every URL-encoded address (`%40` for `@`, either case), whose local
    /// part may hold `%XX` escapes of local-part characters (`%2B` for `+`) but
    /// stops at an escaped delimiter (`email%3Djane%40x.com` keeps `email%3D`).
    static func scanEncoded(_ text: Span<UInt8>, _ found: (Int, Int) -> Void) {
        let count = text.count
        var index = 0
        while index + 3 <= count {
            // `%40`, or `%2540` (the `%` itself encoded: an address URL-encoded twice, as in a redirect parameter).
            let marker: Int
            if text[index] == UInt8(ascii: "%") && text[index + 1] == UInt8(ascii: "4") && text[index + 2] == UInt8(ascii: "0") {
                marker = 3
            } else if index + 5 <= count && text[index] == UInt8(ascii: "%") && text[index + 1] == UInt8(ascii: "2")
                        && text[index + 2] == UInt8(ascii: "5") && text[index + 3] == UInt8(ascii: "4") && text[index + 4] == UInt8(ascii: "0") {
                marker = 5
            } else {
                index += 1
                continue
            }
            var start = index
            while start > 0 {
                if marker == 5 && start >= 5 && text[start - 5] == UInt8(ascii: "%") && text[start - 4] == UInt8(ascii: "2")
                    && text[start - 3] == UInt8(ascii: "5") && TextBytes.isHexDigit(text[start - 2]) && TextBytes.isHexDigit(text[start - 1]) {
                    // `%252B`: an escape escaped again.
                    let decoded = TextBytes.hexValue(text[start - 2]) << 4 | TextBytes.hexValue(text[start - 1])
                    guard TextBytes.isLocalPart(decoded), decoded != UInt8(ascii: "%") else { break }
                    start -= 5
                } else if start >= 3 && text[start - 3] == UInt8(ascii: "%") && TextBytes.isHexDigit(text[start - 2])
                    && TextBytes.isHexDigit(text[start - 1]) {
                    let decoded = TextBytes.hexValue(text[start - 2]) << 4 | TextBytes.hexValue(text[start - 1])
                    guard TextBytes.isLocalPart(decoded), decoded != UInt8(ascii: "%") else { break }
                    start -= 3
                } else if TextBytes.isLocalPart(text[start - 1]) && text[start - 1] != UInt8(ascii: "%") {
                    start -= 1
                } else {
                    break
                }
            }
            while start < index && text[start] == UInt8(ascii: ".") { start += 1 }
            if start < index, let end = domainEnd(text, from: index + marker) {
                found(start, end)
                index = end
            } else {
                index += marker
            }
        }
    }

    /// Where the local part ending at `at` starts. It takes ASCII atext and the
    /// letters of alphabetic scripts (`TextBytes.letterBefore`: Latin, Greek,
    /// Cyrillic, Armenian, Vietnamese), so `josé.garcía@` and `jörg@` are one
    /// address (RFC 6531). Other non-ASCII characters (CJK, quotes, RTL
    /// scripts) belong to it only when it has no ASCII letter, digit or such
    /// letter next to the `@`: in `連絡先はjane@x.com` or `«jane@x.com»` the text
    /// or quote before the address is not part of it.
    private static func localPartStart(_ text: Span<UInt8>, before at: Int) -> Int {
        var start = at
        while start > 0 {
            let byte = text[start - 1]
            if byte < 0x80 {
                guard TextBytes.isLocalPart(byte) else { break }
                start -= 1
            } else if let letter = TextBytes.letterBefore(text, start) {
                start = letter
            } else {
                break
            }
        }
        if start == at {
            while start > 0 && TextBytes.isLocalPart(text[start - 1]) { start -= 1 }
        }
        while start < at && text[start] == UInt8(ascii: ".") { start += 1 }
        return start
    }

    /// The end of a valid domain starting at `start` (trailing `.` and `-` left
    /// out), or nil. A domain that starts in ASCII ends at its first non-ASCII
    /// character after a dot and two letters that is not a letter of an
    /// alphabetic script (`x.comです`, `x.com»`; `bücher.café` is whole), so text
    /// written straight after an address is not taken for an IDN label.
    private static func domainEnd(_ text: Span<UInt8>, from start: Int) -> Int? {
        var end = start
        let asciiStart = start < text.count && text[start] < 0x80
        var sawDot = false
        var afterScriptLetter = false
        while end < text.count && TextBytes.isDomain(text[end]) {
            if text[end] == UInt8(ascii: ".") { sawDot = true }
            if asciiStart && sawDot && text[end] >= 0x80 && end >= 2
                && (afterScriptLetter || (TextBytes.isASCIILetter(text[end - 1]) && TextBytes.isASCIILetter(text[end - 2]))) {
                guard let next = TextBytes.letterAfter(text, end) else { break }
                end = next
                afterScriptLetter = true
                continue
            }
            afterScriptLetter = false
            end += 1
        }
        while end > start && (text[end - 1] == UInt8(ascii: ".") || text[end - 1] == UInt8(ascii: "-")) { end -= 1 }
        return TextBytes.isEmailDomain(text, start, end) ? end : nil
    }
}
