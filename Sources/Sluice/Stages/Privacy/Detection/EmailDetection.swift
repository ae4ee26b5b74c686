/// Finds email addresses: plain (`jane+news@example.com`) and URL-encoded
/// (`jane%40example.com` in a query string).
///
/// An address is a local part (see `TextBytes.isLocalPart`) and a domain of at
/// least two labels ending in an alphabetic top-level label (`user@localhost`
/// and `@handle` are not addresses). Only strings holding an `@` (or `%40`)
/// get here: the scanner's pre-filter sends nothing else.
enum EmailDetection {
    /// Appends the `[start, end)` of every plain address to `found`.
    static func scanPlain(_ text: UnsafeBufferPointer<UInt8>, _ found: (Int, Int) -> Void) {
        var at = 0
        let count = text.count
        while at < count {
            guard text[at] == UInt8(ascii: "@") else {
                at += 1
                continue
            }
            var start = at
            while start > 0 && TextBytes.isLocalPart(text[start - 1]) { start -= 1 }
            while start < at && text[start] == UInt8(ascii: ".") { start += 1 }
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
    static func scanEncoded(_ text: UnsafeBufferPointer<UInt8>, _ found: (Int, Int) -> Void) {
        let count = text.count
        var index = 0
        while index + 3 <= count {
            guard text[index] == UInt8(ascii: "%"), text[index + 1] == UInt8(ascii: "4"), text[index + 2] == UInt8(ascii: "0") else {
                index += 1
                continue
            }
            var start = index
            while start > 0 {
                if start >= 3 && text[start - 3] == UInt8(ascii: "%") && TextBytes.isHexDigit(text[start - 2])
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
            if start < index, let end = domainEnd(text, from: index + 3) {
                found(start, end)
                index = end
            } else {
                index += 3
            }
        }
    }

    /// The end of a valid domain starting at `start` (trailing `.` and `-` left out), or nil.
    private static func domainEnd(_ text: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var end = start
        while end < text.count && TextBytes.isDomain(text[end]) { end += 1 }
        while end > start && (text[end - 1] == UInt8(ascii: ".") || text[end - 1] == UInt8(ascii: "-")) { end -= 1 }
        return TextBytes.isEmailDomain(text, start, end) ? end : nil
    }
}
