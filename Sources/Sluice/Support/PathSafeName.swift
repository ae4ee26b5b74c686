/// Names that become part of output paths, a destination's and a shard's:
/// 1–64 characters of `A-Z`, `a-z`, `0-9`, `_` and `-`, so a name holds no
/// `/`, is never `.` or `..`, and needs no quoting in a shell.
enum PathSafeName {
    static let maxLength = 64

    @inline(__always)
    static func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }

    static func isValid(_ name: String) -> Bool {
        (1...maxLength).contains(name.utf8.count) && name.utf8.allSatisfy(isNameByte)
    }
}
