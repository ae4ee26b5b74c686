// Unsafe code: a device id's text is an `UnsafeRawBufferPointer` into the
// event's own bytes (or its decoded string), so keying every message by device
// on the reading thread copies nothing and makes no String. The pointer is
// valid only inside the `withID` closure, while the document holds the bytes.

import SluiceJSON

/// A device as everything Sluice remembers per device knows it (the
/// `session` stage's devices, the destinations' `DeviceMemory`): its
/// `anonymousId`, else its `userId`, by `MessageIdentity`'s rule. A number
/// and the string of its text are the same device; an `anonymousId` and a
/// `userId` of the same text are not. Shards split the stream by the same id
/// (`sluice shard-of`), so a device is known alike in every shard.
///
/// The session stage keeps two independent 64-bit hashes of it, never the
/// string; `DeviceMemory` keeps one hash and the id's text.
struct DeviceKey: Equatable {
    var a: UInt64
    var b: UInt64

    /// Seeds that keep an `anonymousId` and a `userId` with the same text apart.
    static let userKeyTweak: UInt64 = 0x243f_6a88_85a3_08d3

    /// Calls `body` with the device's id: whether it is the `userId` (there is
    /// no `anonymousId`), and its text. Nil when the message has neither id.
    @inline(__always)
    static func withID<R>(_ document: JSONDocument, anonymousId: Int?, userId: Int?,
                          _ body: (_ isUser: Bool, _ text: UnsafeRawBufferPointer) -> R) -> R? {
        if let node = anonymousId { return MessageIdentity.withText(document, node) { body(false, $0) } }
        if let node = userId { return MessageIdentity.withText(document, node) { body(true, $0) } }
        return nil
    }

    /// `withID`, the text lent as a span.
    @inline(__always)
    static func withIDSpan<R>(_ document: JSONDocument, anonymousId: Int?, userId: Int?,
                              _ body: (_ isUser: Bool, _ text: Span<UInt8>) -> R) -> R? {
        if let node = anonymousId { return MessageIdentity.withTextSpan(document, node) { body(false, $0) } }
        if let node = userId { return MessageIdentity.withTextSpan(document, node) { body(true, $0) } }
        return nil
    }

    /// `hash(isUser:_:)` of an id lent as a span.
    @inline(__always)
    static func hash(isUser: Bool, _ text: Span<UInt8>) -> UInt64 {
        StableHash.hash(text, seed: StableHash.seedA ^ (isUser ? userKeyTweak : 0))
    }

    /// The first hash of a device's id (`a`).
    @inline(__always)
    static func hash(isUser: Bool, _ text: UnsafeRawBufferPointer) -> UInt64 {
        StableHash.hash(text, seed: StableHash.seedA ^ (isUser ? userKeyTweak : 0))
    }

    /// The key of a message whose `anonymousId` and `userId` are at these nodes
    /// (ids by `MessageIdentity`'s rule, or nil); nil when it has neither.
    @inline(__always)
    init?(_ document: JSONDocument, anonymousId: Int?, userId: Int?) {
        guard let key = DeviceKey.withID(document, anonymousId: anonymousId, userId: userId, { isUser, text in
            DeviceKey(a: DeviceKey.hash(isUser: isUser, text),
                      b: StableHash.hash(text, seed: StableHash.seedB ^ (isUser ? DeviceKey.userKeyTweak : 0)))
        }) else { return nil }
        self = key
    }

    init(a: UInt64, b: UInt64) {
        self.a = a
        self.b = b
    }

    /// The key of a message, its ids found by name; (0, 0) without either.
    @inline(__always)
    static func of(_ document: JSONDocument) -> DeviceKey {
        // The userId is looked up only when there is no anonymousId (the session stage asks for every event).
        if let anonymous = MessageIdentity.member(document, MessageIdentity.anonymousID) {
            return DeviceKey(document, anonymousId: anonymous, userId: nil)!
        }
        return DeviceKey(document, anonymousId: nil, userId: MessageIdentity.member(document, MessageIdentity.userID)) ?? DeviceKey(a: 0, b: 0)
    }
}
