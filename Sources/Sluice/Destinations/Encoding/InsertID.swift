import SluiceJSON

/// A stable, provider-safe id for a message: the same message (messageId and
/// event name) always gives the same id, so a re-sent file deduplicates at the
/// provider. 128 bits of `StableHash`, written as a UUID-shaped 36-character
/// string of `[0-9a-f-]`:
/// - Mixpanel `$insert_id`: "at most 36 bytes, only [A-Za-z0-9-]", dedup key
///   (event, time, distinct_id, $insert_id); hashing semantic fields is the
///   recommended way (docs.mixpanel.com/docs/tracking-methods/data-import/import-events,
///   "$insert_id"; reference/event-deduplication).
/// - Amplitude `insert_id`: the same id within 7 days on the same device is
///   ignored (amplitude.com/docs/apis/analytics/http-v2, "Event deduplication").
///
/// Segment's legacy Mixpanel destination derived it the same way (uuidv5 of
/// messageId and event name), so a rename gives a new id, as it should.
struct InsertID {
    /// Reused between events: the hashed material, so making an id allocates nothing.
    private var material: [UInt8] = []

    /// Appends the id, quoted, for a message with `messageId` (node index of an
    /// id by `MessageIdentity`'s rule, if any) and provider event `name`. Without
    /// a messageId the message's own bytes identify it: two different messages
    /// never share an id, and the same message always gets the same one.
    mutating func append<Out: ByteSink>(messageId: Int?, name: [UInt8], document: JSONDocument, to out: inout Out) {
        InsertID.appendQuoted(hash(messageId: messageId, name: name, document: document), to: &out)
    }

    /// The id's 128 bits for a message with `messageId` and provider event `name`.
    mutating func hash(messageId: Int?, name: [UInt8], document: JSONDocument) -> (UInt64, UInt64) {
        if let messageId {
            MessageIdentity.withTextSpan(document, messageId) { material.replaceAll(with: $0) }
            material.append(0)
            material.append(contentsOf: name)
            return (StableHash.hash(material, seed: StableHash.seedA), StableHash.hash(material, seed: StableHash.seedB))
        }
        return document.withLineSpan {
            (StableHash.hash($0, seed: StableHash.seedA), StableHash.hash($0, seed: StableHash.seedB))
        }
    }

    /// Appends the id of `hash`, quoted.
    static func appendQuoted<Out: ByteSink>(_ hash: (UInt64, UInt64), to out: inout Out) {
        appendUUIDShaped(hash.0, hash.1, dashes: true, quoted: true, to: &out)
    }

    /// The id as bytes (for tests and for ids that are not written at once).
    static func make(messageId: [UInt8]?, name: [UInt8], fallback document: JSONDocument) -> [UInt8] {
        var material: [UInt8]
        if let messageId {
            material = messageId
            material.append(0)
            material.append(contentsOf: name)
        } else {
            material = document.bytes
        }
        let (high, low) = (StableHash.hash(material, seed: StableHash.seedA), StableHash.hash(material, seed: StableHash.seedB))
        var out: [UInt8] = []
        appendUUIDShaped(high, low, dashes: true, to: &out)
        return out
    }

    /// 128 bits of `StableHash` of `bytes` as 32 lowercase hex digits, or
    /// UUID-shaped with `dashes` (a device id derived from another id).
    static func appendHex32<Out: ByteSink>(of bytes: Span<UInt8>, dashes: Bool, to out: inout Out) {
        appendUUIDShaped(StableHash.hash(bytes, seed: StableHash.seedA), StableHash.hash(bytes, seed: StableHash.seedB),
                         dashes: dashes, to: &out)
    }

    /// A stable version-4-shaped UUID (RFC 9562 version and variant bits set) from 128 bits of `StableHash` of `bytes`.
    static func appendUUIDv4<Out: ByteSink>(of bytes: Span<UInt8>, to out: inout Out) {
        let high = StableHash.hash(bytes, seed: StableHash.seedA) & ~(0xF << 12) | (0x4 << 12)
        let low = StableHash.hash(bytes, seed: StableHash.seedB) & ~(0xC << 60) | (0x8 << 60)
        appendUUIDShaped(high, low, dashes: true, to: &out)
    }

    /// `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` (or the 32 digits alone) from 128 bits,
    /// in quotes with `quoted`: made in place, eight digits at a time, and
    /// appended at once (one id per record per destination).
    @inline(__always)
    static func appendUUIDShaped<Out: ByteSink>(_ high: UInt64, _ low: UInt64, dashes: Bool, quoted: Bool = false, to out: inout Out) {
        let digits = (HexText.eightDigits(UInt32(truncatingIfNeeded: high >> 32)), HexText.eightDigits(UInt32(truncatingIfNeeded: high)),
                      HexText.eightDigits(UInt32(truncatingIfNeeded: low >> 32)), HexText.eightDigits(UInt32(truncatingIfNeeded: low)))
        var text = InlineArray<40, UInt8>(repeating: 0)
        do {
            var length = 0
            // A word's digits are its bytes in memory order.
            func put(_ word: UInt64, _ bytes: Int, from offset: Int = 0) {
                let ordered = word.littleEndian
                for index in 0..<bytes { text[length + index] = UInt8(truncatingIfNeeded: ordered >> UInt64(8 * (offset + index))) }
                length += bytes
            }
            func dash() {
                if dashes { text[length] = UInt8(ascii: "-"); length += 1 }
            }
            if quoted { text[0] = UInt8(ascii: "\""); length = 1 }
            put(digits.0, 8)
            dash()
            put(digits.1, 4)
            dash()
            put(digits.1, 4, from: 4)
            dash()
            put(digits.2, 4)
            dash()
            put(digits.2, 4, from: 4)
            put(digits.3, 8)
            if quoted { text[length] = UInt8(ascii: "\""); length += 1 }
            out.append(span: text.span.extracting(0..<length))
        }
    }
}
