// Unsafe code: a device id is hashed as an `UnsafeRawBufferPointer`
// (`StableHash` takes raw bytes, the event's own ones on the reading thread);
// the pointer is used only during the call.

import SluiceJSON

/// Which of N shards a message's device goes to, so that a run split across
/// N processes keeps every device's messages in one of them: the `session`,
/// `timed` and `dedupe` stages key their state by device (`anonymousId`, else
/// `userId`), and a re-sent message carries the same ids.
///
/// shard = StableHash(device id text, seed `shardSeed`) mod N, as unsigned
/// 64-bit numbers. The device id is `anonymousId` when it is an id by
/// `MessageIdentity`'s rule, else `userId`; its text is a string's decoded
/// UTF-8 or a number's JSON text as written (docs/operations.md gives the
/// algorithm in full, with test vectors). The seed is its own, so a shard's
/// devices are spread evenly over the hash tables the stages index them in.
public enum ShardFunction {
    /// The ASCII bytes of `shard_id`, big-endian.
    static let shardSeed: UInt64 = 0x7368_6172_645f_6964

    /// The most shards `--shards` takes.
    public static let maxShards = 1 << 20

    /// The 64-bit hash of a device id's text.
    static func deviceHash(_ text: UnsafeRawBufferPointer) -> UInt64 {
        StableHash.hash(text, seed: shardSeed)
    }

    static func deviceHash(_ text: String) -> UInt64 {
        Array(text.utf8).withUnsafeBytes { deviceHash($0) }
    }

    /// The shard of an event's device among `shards` (decoding guarantees it has an id).
    static func shard(of document: JSONDocument, shards: UInt64) -> UInt64 {
        guard let node = MessageIdentity.member(document, MessageIdentity.anonymousID)
            ?? MessageIdentity.member(document, MessageIdentity.userID) else { return 0 }
        return MessageIdentity.withText(document, node) { deviceHash($0) } % shards
    }
}
