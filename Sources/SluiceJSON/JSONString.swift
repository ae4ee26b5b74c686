// Unsafe code: `needsEscape` loads eight bytes at a time only while eight
// remain, then byte by byte.

/// JSON string escaping and unescaping on bytes.
public enum JSONString {
    @inlinable @inline(__always)
    public static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// Decodes the escapes of a string body that the parser already validated.
    public static func unescape(_ body: ArraySlice<UInt8>) -> [UInt8] { decodeEscapes(body) }

    /// The same for a body borrowed through a pointer (a document's line).
    public static func unescape(_ body: UnsafeBufferPointer<UInt8>) -> [UInt8] { decodeEscapes(body) }

    private static func decodeEscapes<Body: RandomAccessCollection<UInt8>>(_ body: Body) -> [UInt8] where Body.Index == Int {
        var out: [UInt8] = []
        out.reserveCapacity(body.count)
        var index = body.startIndex
        func hex4(_ at: Int) -> UInt32 {
            var value: UInt32 = 0
            for offset in 0..<4 { value = value << 4 | UInt32(hexValue(body[at + offset]) ?? 0) }
            return value
        }
        while index < body.endIndex {
            let byte = body[index]
            guard byte == UInt8(ascii: "\\"), index + 1 < body.endIndex else {
                out.append(byte)
                index += 1
                continue
            }
            let escape = body[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex4(index)
                index += 4
                if scalar >= 0xD800 && scalar <= 0xDBFF && index + 6 <= body.endIndex {
                    let low = hex4(index + 2)
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    index += 6
                }
                appendUTF8(scalar, to: &out)
            default: out.append(escape)
            }
        }
        return out
    }

    @inlinable
    public static func appendUTF8<Out: ByteSink>(_ scalar: UInt32, to out: inout Out) {
        switch scalar {
        case 0..<0x80:
            out.append(UInt8(scalar))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | (scalar >> 6)))
            out.append(UInt8(0x80 | (scalar & 0x3F)))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | (scalar >> 12)))
            out.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (scalar & 0x3F)))
        default:
            out.append(UInt8(0xF0 | (scalar >> 18)))
            out.append(UInt8(0x80 | ((scalar >> 12) & 0x3F)))
            out.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (scalar & 0x3F)))
        }
    }

    @usableFromInline static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends `text` (valid UTF-8) as a quoted JSON string, escaping only what RFC 8259 requires.
    @inlinable
    public static func appendQuoted<Bytes: Collection, Out: ByteSink>(_ text: Bytes, to out: inout Out) where Bytes.Element == UInt8 {
        // Most text (event names, ids) needs no escape: then it goes in with its quotes in one append.
        let plain: Bool? = text.withContiguousStorageIfAvailable { buffer in
            let raw = UnsafeRawBufferPointer(buffer)
            guard !needsEscape(raw) else { return false }
            out.append(UInt8(ascii: "\""), raw, quoted: false, UInt8(ascii: "\""))
            return true
        }
        if plain == true { return }
        out.append(UInt8(ascii: "\""))
        for byte in text {
            switch byte {
            case UInt8(ascii: "\""): out.append(UInt8(ascii: "\\")); out.append(byte)
            case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\")); out.append(byte)
            case 0x0A: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "t"))
            case 0x00..<0x20:
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Whether any byte of `text` must be escaped in a JSON string (a control
    /// character, `"` or `\\`): eight bytes at a time, as the parser scans strings.
    @inlinable @inline(__always)
    public static func needsEscape(_ text: UnsafeRawBufferPointer) -> Bool {
        let count = text.count
        var index = 0
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while index &+ 8 <= count {
            let word = text.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            // "Bit Twiddling Hacks": a byte below 0x20, a zero byte of `quote` or of
            // `backslash`; each test is exact for the word as a whole (bytes >= 0x80 are plain UTF-8 here).
            let control = (word &- ones &* 0x20) & ~word
            let flagged = control | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)
            if flagged & highs != 0 { return true }
            index &+= 8
        }
        while index < count {
            let byte = text[index]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return true }
            index &+= 1
        }
        return false
    }

    /// Appends a Swift string as a quoted JSON string.
    @inlinable
    public static func appendQuoted<Out: ByteSink>(_ text: String, to out: inout Out) {
        appendQuoted(text.utf8, to: &out)
    }

    /// The same for other modules, concrete (see `JSONDocument.write(to:)`).
    public static func appendQuoted(_ text: String, to out: inout [UInt8]) {
        appendQuoted(text.utf8, to: &out)
    }
}
