import SluiceJSON

/// A device as everything Sluice remembers per device knows it (the
/// `session` stage's devices, the destinations' `DeviceMemory`): its
/// `anonymousId`, else its `userId`, by `MessageIdentity`'s rule, as two
/// independent 64-bit hashes of the id's text, never the string itself. A
/// number and the string of its text are the same device; an `anonymousId`
/// and a `userId` of the same text are not. Shards split the stream by the
/// same id (`sluice shard-of`), so a device's key is the same in every shard.
struct DeviceKey: Equatable {
    var a: UInt64
    var b: UInt64

    /// Seeds that keep an `anonymousId` and a `userId` with the same text apart.
    private static let userKeyTweak: UInt64 = 0x243f_6a88_85a3_08d3

    /// The key of a message whose `anonymousId` and `userId` are at these nodes
    /// (ids by `MessageIdentity`'s rule, or nil); nil when it has neither.
    @inline(__always)
    init?(_ document: JSONDocument, anonymousId: Int?, userId: Int?) {
        if let node = anonymousId {
            self = MessageIdentity.withText(document, node) {
                DeviceKey(a: StableHash.hash($0, seed: StableHash.seedA), b: StableHash.hash($0, seed: StableHash.seedB))
            }
        } else if let node = userId {
            self = MessageIdentity.withText(document, node) {
                DeviceKey(a: StableHash.hash($0, seed: StableHash.seedA ^ DeviceKey.userKeyTweak),
                          b: StableHash.hash($0, seed: StableHash.seedB ^ DeviceKey.userKeyTweak))
            }
        } else {
            return nil
        }
    }

    init(a: UInt64, b: UInt64) {
        self.a = a
        self.b = b
    }

    /// The key of a message, its ids found by name; (0, 0) without either.
    @inline(__always)
    static func of(_ document: JSONDocument) -> DeviceKey {
        DeviceKey(document, anonymousId: MessageIdentity.member(document, MessageIdentity.anonymousID),
                  userId: MessageIdentity.member(document, MessageIdentity.userID)) ?? DeviceKey(a: 0, b: 0)
    }
}
