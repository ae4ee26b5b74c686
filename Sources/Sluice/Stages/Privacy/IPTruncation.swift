/// Rule 4 of the `privacy` stage: an IP address keeps its network part only.
///
/// IPv4 keeps `v4_keep_bits` (default 24: `203.0.113.45` → `203.0.113.0`),
/// IPv6 `v6_keep_bits` (default 48: `2001:db8:85a3:8d3:1319:8a2e:370:7348` →
/// `2001:db8:85a3::`), the rest zeroed: the Google Analytics convention. An
/// IPv4-mapped IPv6 address (`::ffff:203.0.113.45`) is truncated as the IPv4
/// address it is. The result is written back in the address's family: dotted
/// quad, or RFC 5952 text.
struct IPTruncation {
    let v4KeepBits: Int
    let v6KeepBits: Int

    init(settings: PrivacySettings.IPTruncation) {
        v4KeepBits = settings.v4KeepBits
        v6KeepBits = settings.v6KeepBits
    }

    /// The truncated text of the address in `text` (surrounding spaces ignored), or nil if it is not one address.
    func truncated(_ text: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) -> Bool {
        var start = 0
        var end = text.count
        while start < end && text[start] == UInt8(ascii: " ") { start += 1 }
        while end > start && text[end - 1] == UInt8(ascii: " ") { end -= 1 }
        let address = UnsafeBufferPointer(rebasing: text[start..<end])
        if let value = IPTruncation.ipv4Value(address) {
            // The common case, without allocating: 32 bits, masked, written back.
            let mask: UInt32 = v4KeepBits == 0 ? 0 : ~UInt32(0) << UInt32(32 - v4KeepBits)
            let kept = value & mask
            for shift in stride(from: UInt32(24), through: 0, by: -8) {
                if shift != 24 { out.append(UInt8(ascii: ".")) }
                IPTruncation.appendDecimal(UInt8(truncatingIfNeeded: kept >> shift), to: &out)
            }
            return true
        }
        if var bytes = IPDetection.parseIPv6(address)?.bytes {
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
                var octets = Array(bytes[12..<16])
                IPTruncation.zero(&octets, keeping: v4KeepBits)
                bytes.replaceSubrange(12..<16, with: octets)
            } else {
                IPTruncation.zero(&bytes, keeping: v6KeepBits)
            }
            IPDetection.appendIPv6(bytes, to: &out)
            return true
        }
        return false
    }

    /// A dotted IPv4 text that is exactly one address, as 32 bits.
    @inline(__always)
    static func ipv4Value(_ text: UnsafeBufferPointer<UInt8>) -> UInt32? {
        var value: UInt32 = 0
        var octet: UInt32 = 0
        var digits = 0
        var dots = 0
        for byte in text {
            if TextBytes.isDigit(byte) {
                octet = octet * 10 + UInt32(byte - 0x30)
                digits += 1
                if digits > 3 || octet > 255 { return nil }
            } else if byte == UInt8(ascii: ".") && digits > 0 && dots < 3 {
                value = value << 8 | octet
                octet = 0
                digits = 0
                dots += 1
            } else {
                return nil
            }
        }
        guard dots == 3 && digits > 0 else { return nil }
        return value << 8 | octet
    }

    @inline(__always)
    static func appendDecimal(_ value: UInt8, to out: inout [UInt8]) {
        if value >= 100 { out.append(0x30 + value / 100) }
        if value >= 10 { out.append(0x30 + value / 10 % 10) }
        out.append(0x30 + value % 10)
    }

    /// Zeroes every bit after the first `bits`.
    static func zero(_ bytes: inout [UInt8], keeping bits: Int) {
        for index in bytes.indices {
            let kept = bits - index * 8
            if kept >= 8 { continue }
            bytes[index] &= kept <= 0 ? 0 : UInt8(0xFF) << UInt8(8 - kept)
        }
    }
}
