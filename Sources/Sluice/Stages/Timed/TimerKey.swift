import SluiceJSON

/// Builds the key that a timed start and its stop share: who (`anonymousId`,
/// else `userId`), the event name, and each `correlate` field (`timerId`).
///
/// The key is bytes, not a string: each part is length-prefixed so no two
/// different keys run together, and a correlate field that is absent differs
/// from one that is an empty string. Strings are compared decoded (an escaped
/// `\u0041` equals `A`); other values by their JSON text. The builder reuses
/// one buffer, so looking a key up allocates nothing.
struct TimerKeyBuilder {
    let correlate: [JSONPath]
    private(set) var bytes: [UInt8] = []


    init(correlate: [JSONPath]) {
        self.correlate = correlate
        bytes.reserveCapacity(128)
    }

    /// Builds the key of `document` into `bytes` and returns its hash, or nil
    /// when the message has no identity (decoding rules that out).
    mutating func build(_ document: JSONDocument, name: [UInt8]) -> UInt32? {
        bytes.removeAll(keepingCapacity: true)
        guard appendIdentity(document, MessageIdentity.anonymousID, tag: 1) || appendIdentity(document, MessageIdentity.userID, tag: 2) else {
            return nil
        }
        append(name.span)
        for path in correlate {
            guard let node = document.find(path) else {
                bytes.append(0)
                continue
            }
            if document.kind(node) == .string {
                bytes.append(1)
                document.withStringSpan(node) { append($0) }
            } else {
                bytes.append(2)
                document.withSpan(of: node) { append($0) }
            }
        }
        return Self.hash(bytes.span)
    }

    /// The table hash of a built key. Swift's `Hasher` is seeded per process, so
    /// it is never saved: a restored entry's hash is computed again from its key.
    static func hash(_ key: Span<UInt8>) -> UInt32 {
        var hasher = Hasher()
        ByteSpans.combine(key, into: &hasher)
        return UInt32(truncatingIfNeeded: hasher.finalize())
    }

    /// Appends `tag` and the field's text when it is an id (`MessageIdentity`).
    private mutating func appendIdentity(_ document: JSONDocument, _ field: StaticString, tag: UInt8) -> Bool {
        guard let node = MessageIdentity.member(document, field) else { return false }
        bytes.append(tag)
        MessageIdentity.withTextSpan(document, node) { append($0) }
        return true
    }

    private mutating func append(_ part: Span<UInt8>) {
        let length = UInt32(part.count)
        bytes.append(UInt8(truncatingIfNeeded: length))
        bytes.append(UInt8(truncatingIfNeeded: length >> 8))
        bytes.append(UInt8(truncatingIfNeeded: length >> 16))
        bytes.append(UInt8(truncatingIfNeeded: length >> 24))
        bytes.append(span: part)
    }
}
