/// `application/x-www-form-urlencoded` bodies (the WHATWG URL standard's
/// form encoding, which Adjust's S2S and Amplitude's `/groupidentify` and
/// `/usermap` take): every byte but ASCII letters, digits and `*-._` is
/// percent-encoded, a space too (`%20`, which every form decoder reads, where
/// `+` is read as a space only by some).
public enum FormEncoding {
    private static let hex = Array("0123456789ABCDEF".utf8)

    /// Appends `bytes` (UTF-8) encoded to `out`.
    /// Whether a byte stands for itself in the body (the rest take three bytes, `%XX`).
    @inline(__always)
    private static func isKept(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }

    public static func append<Bytes: Collection>(_ bytes: Bytes, to out: inout [UInt8]) where Bytes.Element == UInt8 {
        out.reserveCapacity(out.count + bytes.count + bytes.count / 4)
        for byte in bytes {
            if isKept(byte) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            }
        }
    }

    /// The length of `bytes` encoded.
    public static func encodedCount<Bytes: Collection>(_ bytes: Bytes) -> Int where Bytes.Element == UInt8 {
        bytes.reduce(0) { $0 + (isKept($1) ? 1 : 3) }
    }

    /// `name=value&…`, each encoded.
    public static func body(_ fields: [(name: String, value: [UInt8])]) -> [UInt8] {
        var out: [UInt8] = []
        for (index, field) in fields.enumerated() {
            if index > 0 { out.append(UInt8(ascii: "&")) }
            append(field.name.utf8, to: &out)
            out.append(UInt8(ascii: "="))
            append(field.value, to: &out)
        }
        return out
    }
}
