/// Text written as URLs and form bodies are (`phone=%2B44+20+7946+0958`,
/// `card=4111+1111+1111+1111`, `iban=DE89%203704%200044%200532%200130%2000`),
/// decoded so the number detectors read what it says; each byte of the decoded
/// text remembers where it starts in the encoded one, so a match found in it is
/// redacted in the encoded text (`phone=[phone]`), the rest left as it came.
///
/// A token (bytes between ASCII whitespace) is decoded when it is URL- or
/// form-encoded: it holds a `%XX` escape, or a `+` and an `=` (a query or form
/// field, `key=value`), or it is letters and digits joined by `+` alone
/// (`4111+1111+1111+1111`). `+` becomes a space, `%XX` its byte; a `%` without
/// two hex digits stays as it is. Other tokens are copied as they are, so
/// `+44` or `+34810523025?` in free text keeps its `+`. The encoded text is
/// read first: what the decoded one finds is taken only where the encoded
/// reading found nothing (`PIIScanner`).
struct FormDecoding {
    /// The decoded text.
    private(set) var decoded: [UInt8] = []
    /// For each byte of `decoded`, where it starts in the encoded text, and one
    /// more entry: the encoded text's length.
    private(set) var offsets: [Int] = []

    /// Decodes `text`; true when some encoded token has a `+` or an escape next
    /// to a digit (where a number may have been split). Otherwise the decoded
    /// text would hold no number the encoded one does not: nothing is decoded,
    /// and the result is false.
    mutating func decode(_ text: Span<UInt8>) -> Bool {
        let count = text.count
        var tokenStart = 0
        var needed = false
        while tokenStart < count && !needed {
            let token = FormDecoding.token(text, from: tokenStart)
            needed = token.encoded && token.nearDigit
            tokenStart = token.end + 1
        }
        guard needed else { return false }
        decoded.removeAll(keepingCapacity: true)
        offsets.removeAll(keepingCapacity: true)
        var position = 0
        while position < count {
            let token = FormDecoding.token(text, from: position)
            while position < token.end {
                offsets.append(position)
                let byte = text[position]
                if token.encoded && byte == UInt8(ascii: "%") && position + 2 < token.end
                    && TextBytes.isHexDigit(text[position + 1]) && TextBytes.isHexDigit(text[position + 2]) {
                    decoded.append(TextBytes.hexValue(text[position + 1]) << 4 | TextBytes.hexValue(text[position + 2]))
                    position += 3
                } else {
                    decoded.append(token.encoded && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                    position += 1
                }
            }
            if position < count {  // the whitespace after the token
                offsets.append(position)
                decoded.append(text[position])
                position += 1
            }
        }
        offsets.append(count)
        return true
    }

    /// The token starting at `start` (it may be empty): where it ends (at
    /// whitespace or the text's end), whether it is encoded, and whether a `+`
    /// or an escape in it touches a digit.
    private static func token(_ text: Span<UInt8>, from start: Int) -> (end: Int, encoded: Bool, nearDigit: Bool) {
        let count = text.count
        var end = start
        var escapes = false, pluses = false, query = false, otherPunctuation = false, plusBetween = true, near = false
        while end < count && !isSpace(text[end]) {
            let byte = text[end]
            if byte == UInt8(ascii: "%") && end + 2 < count && TextBytes.isHexDigit(text[end + 1]) && TextBytes.isHexDigit(text[end + 2]) {
                escapes = true
                near = near || (end > start && TextBytes.isDigit(text[end - 1])) || (end + 3 < count && TextBytes.isDigit(text[end + 3]))
                end += 3
                continue
            }
            if byte == UInt8(ascii: "+") {
                pluses = true
                let before = end > start ? text[end - 1] : 0
                let after = end + 1 < count ? text[end + 1] : 0
                if !(TextBytes.isASCIIAlnum(before) && TextBytes.isASCIIAlnum(after)) { plusBetween = false }
                near = near || TextBytes.isDigit(before) || TextBytes.isDigit(after)
            } else if byte == UInt8(ascii: "=") {
                query = true
            } else if !TextBytes.isASCIIAlnum(byte) {
                otherPunctuation = true
            }
            end += 1
        }
        return (end, escapes || (pluses && (query || (plusBetween && !otherPunctuation))), near)
    }

    @inline(__always)
    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
    }
}
