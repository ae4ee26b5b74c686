import SluiceJSON

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

    /// The longest text `truncated` writes: an IPv6 address is at most 39 bytes, an IPv4-mapped one 22.
    static let maxTextBytes = 48

    /// The truncated text of the address in `text` (surrounding spaces
    /// ignored), or nil if `text` is not one address.
    func truncated(_ text: Span<UInt8>) -> TextCursor? {
        var start = 0
        var end = text.count
        while start < end && text[start] == UInt8(ascii: " ") { start += 1 }
        while end > start && text[end - 1] == UInt8(ascii: " ") { end -= 1 }
        let address = text.extracting(start..<end)
        var cursor = TextCursor()
        if let value = IPTruncation.ipv4Value(address) {
            IPDetection.appendIPv4(value & IPTruncation.mask32(keeping: v4KeepBits), to: &cursor)
        } else if var parsed = IPDetection.parseIPv6(address) {
            if parsed.isIPv4Mapped {
                parsed.low &= 0xFFFF_FFFF_0000_0000 | UInt64(IPTruncation.mask32(keeping: v4KeepBits))
            } else {
                let keep = max(0, min(128, v6KeepBits))
                parsed.high &= keep >= 64 ? ~0 : keep == 0 ? 0 : ~UInt64(0) << UInt64(64 - keep)
                parsed.low &= keep <= 64 ? 0 : keep == 128 ? ~0 : ~UInt64(0) << UInt64(128 - keep)
            }
            IPDetection.appendIPv6(parsed, to: &cursor)
        } else {
            return nil
        }
        return cursor
    }

    /// The first `bits` of 32 set.
    @inline(__always)
    static func mask32(keeping bits: Int) -> UInt32 {
        bits <= 0 ? 0 : bits >= 32 ? ~0 : ~UInt32(0) << UInt32(32 - bits)
    }

    /// A dotted IPv4 text that is exactly one address, as 32 bits.
    @inline(__always)
    static func ipv4Value(_ text: Span<UInt8>) -> UInt32? {
        var value: UInt32 = 0
        var octet: UInt32 = 0
        var digits = 0
        var dots = 0
        for index in text.indices {
            let byte = text[index]
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
}

/// The last address `IPTruncation` rewrote and what it became: the events of
/// one device come in runs (an app sends its queue in batches) and carry the
/// same address, so most events find theirs here instead of parsing and
/// writing it again. A cache of one, owned by one stage on one thread.
final class LastTruncation {
    static let maxInputBytes = 64
    @exclusivity(unchecked) private var input: [UInt8] = []
    @exclusivity(unchecked) private var inputCount = -1
    @exclusivity(unchecked) private var output: TextCursor?

    init() { input.reserveCapacity(LastTruncation.maxInputBytes) }

    /// What `truncation.truncated(text)` returns, from the last call when `text` is the same.
    func truncated(_ text: Span<UInt8>, by truncation: IPTruncation) -> TextCursor? {
        let count = text.count
        if count == inputCount && ByteSpans.equal(text, input) { return output }
        let result = truncation.truncated(text)
        if count <= LastTruncation.maxInputBytes {
            input.replaceAll(with: text)
            inputCount = count
            output = result
        } else {
            inputCount = -1
        }
        return result
    }
}
