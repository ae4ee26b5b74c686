import SluiceJSON

/// What the `session` stage attaches to an event: `context.session`.
///
/// ```json
/// {"id":"3f0c…(32 hex)","start_ms":1795161600040,"number":3,"seq":7,"authenticated":true,
///  "engagement_ms":1834,"settings":{...},"traits":{...}}
/// ```
struct SessionContext {
    var keyA: UInt64
    var keyB: UInt64
    /// Session start, µs of event time.
    var start: Int64
    var number: UInt32
    var seq: UInt32
    var authenticated: Bool
    var engagementMilliseconds: Int64
    /// `InternedJSON` ids, 0 = none.
    var settings: UInt32
    var traits: UInt32

    /// The session id: 128 bits of hash of the device key, the start and the
    /// number, as 32 lowercase hex digits. Deterministic (same input, same id),
    /// different for every session of a device, and shared between two devices
    /// only if their keys' 128-bit hashes collide. It reveals neither the device
    /// id nor the time.
    static func id(keyA: UInt64, keyB: UInt64, start: Int64, number: UInt32) -> (UInt64, UInt64) {
        let time = UInt64(bitPattern: start)
        let high = StableHash.combine(StableHash.combine(keyA, time), UInt64(number))
        let low = StableHash.combine(StableHash.combine(keyB, time ^ 0x6a09_e667_f3bc_c908), UInt64(number) ^ 0xbb67_ae85_84ca_a73b)
        return (high, low)
    }

    static func idString(keyA: UInt64, keyB: UInt64, start: Int64, number: UInt32) -> String {
        let digits = idDigits(keyA: keyA, keyB: keyB, start: start, number: number)
        var text: [UInt8] = []
        text.reserveCapacity(32)
        for word in digits.indices {
            let bytes = digits[word].littleEndian
            for index in 0..<8 { text.append(UInt8(truncatingIfNeeded: bytes >> UInt64(8 * index))) }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The id's 32 hex digits, as four words in memory order.
    private static func idDigits(keyA: UInt64, keyB: UInt64, start: Int64, number: UInt32) -> InlineArray<4, UInt64> {
        let (high, low) = id(keyA: keyA, keyB: keyB, start: start, number: number)
        return [HexText.eightDigits(UInt32(truncatingIfNeeded: high >> 32)), HexText.eightDigits(UInt32(truncatingIfNeeded: high)),
                HexText.eightDigits(UInt32(truncatingIfNeeded: low >> 32)), HexText.eightDigits(UInt32(truncatingIfNeeded: low))]
    }

    /// Writes the JSON object (text and index), settings and traits taken from their pools.
    func write(into out: JSONBuilder, settingsPool: InternedJSON, traitsPool: InternedJSON) {
        out.beginObject()
        out.key("id")
        let digits = Self.idDigits(keyA: keyA, keyB: keyB, start: start, number: number)
        out.string(unescaped: digits.span.bytes)
        out.key("start_ms")
        out.integer(EventTime(microseconds: start).milliseconds)
        out.key("number")
        out.integer(Int64(number))
        out.key("seq")
        out.integer(Int64(seq))
        out.key("authenticated")
        out.boolean(authenticated)
        out.key("engagement_ms")
        out.integer(engagementMilliseconds)
        if settings != 0 {
            out.key("settings")
            settingsPool.append(settings, to: out)
        }
        if traits != 0 {
            out.key("traits")
            traitsPool.append(traits, to: out)
        }
        out.endObject()
    }
}
