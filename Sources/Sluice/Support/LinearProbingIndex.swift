/// The open-addressing hash index under the stages' tables (`SeenMessageTable`,
/// `DeviceTable`, `OpenTimerTable`): linear probing at ≤ 50% load, deletion
/// by backward shift (no tombstones).
///
/// It holds nonzero `Bucket` values (0 is an empty bucket) and knows nothing
/// of what they mean: the table that owns it packs a slot of its own, and if
/// it likes some bits of the hash, into each value, and says which hash a
/// value belongs to when the index needs it (`hashOf`). Keys live in the
/// owner's records, so the index costs `MemoryLayout<Bucket>.size` bytes a
/// bucket and nothing else: 2 to 4 buckets an entry, as the load stays
/// between 25% (just after doubling) and 50%.
///
/// A value's home bucket is its hash's low bits; a look-up walks from there
/// to the first empty bucket, wrapping at the end of the array. Removing a
/// value pulls the later members of its run back into the hole, so a miss
/// never walks past removed entries, however many there were.
///
/// Hot paths: the look-ups and changes are `@inline(__always)` so that each
/// owner's closures (which read its own records) are inlined into the probe
/// loop and the generic `Bucket` is specialized; keep this type in the module
/// of its users for that.
struct LinearProbingIndex<Bucket: FixedWidthInteger & UnsignedInteger> {
    private(set) var buckets: [Bucket]
    private(set) var mask: Int

    /// An empty index of `bucketCount` buckets (a power of two).
    init(bucketCount: Int) {
        precondition(bucketCount > 0 && bucketCount & (bucketCount - 1) == 0, "bucket count must be a power of two")
        buckets = Array(repeating: 0, count: bucketCount)
        mask = bucketCount - 1
    }

    var bucketCount: Int { buckets.count }

    /// The bytes the buckets take.
    var byteCount: Int { buckets.count * MemoryLayout<Bucket>.stride }

    /// Where a probe for `hash` starts.
    @inline(__always)
    func home(_ hash: UInt64) -> Int { Int(truncatingIfNeeded: hash) & mask }

    // MARK: - Look-up

    /// The first value in `hash`'s probe run that `matches` accepts, if any.
    @inline(__always)
    func first(hash: UInt64, where matches: (Bucket) -> Bool) -> Bucket? {
        var bucket = home(hash)
        while true {
            let value = buckets[bucket]
            if value == 0 { return nil }
            if matches(value) { return value }
            bucket = (bucket + 1) & mask
        }
    }

    /// Calls `body` with every value in `hash`'s probe run (values of other
    /// hashes included: `body` tells them apart), in probe order.
    @inline(__always)
    func forEach(hash: UInt64, _ body: (Bucket) -> Void) {
        var bucket = home(hash)
        while true {
            let value = buckets[bucket]
            if value == 0 { return }
            body(value)
            bucket = (bucket + 1) & mask
        }
    }

    // MARK: - Changes

    /// Adds `value` (nonzero, not in the index yet) under `hash`. The owner
    /// calls `growIfNeeded` first, so there is always an empty bucket.
    @inline(__always)
    mutating func insert(_ value: Bucket, hash: UInt64) {
        assert(value != 0, "0 marks an empty bucket")
        var bucket = home(hash)
        while buckets[bucket] != 0 { bucket = (bucket + 1) & mask }
        buckets[bucket] = value
    }

    /// Takes out `value`, which is in the index under `hash`; `hashOf` gives
    /// the hash of any other value, to decide which of them may move back.
    @inline(__always)
    mutating func remove(_ value: Bucket, hash: UInt64, hashOf: (Bucket) -> UInt64) {
        var hole = home(hash)
        while buckets[hole] != value { hole = (hole + 1) & mask }
        // Backward-shift deletion: pull later members of the probe run into the hole.
        var next = hole
        while true {
            next = (next + 1) & mask
            let candidate = buckets[next]
            if candidate == 0 { break }
            let candidateHome = home(hashOf(candidate))
            // It may move back to the hole unless its home lies cyclically in (hole, next].
            let stays = hole <= next
                ? (candidateHome > hole && candidateHome <= next)
                : (candidateHome > hole || candidateHome <= next)
            if !stays {
                buckets[hole] = candidate
                hole = next
            }
        }
        buckets[hole] = 0
    }

    /// Doubles the buckets when `count` entries would fill more than half of
    /// them (called with the count the owner is about to index).
    @inline(__always)
    mutating func growIfNeeded(count: Int, hashOf: (Bucket) -> UInt64) {
        if count * 2 > buckets.count { grow(hashOf: hashOf) }
    }

    /// Doubles the buckets and re-indexes every value, in the order of the old buckets.
    mutating func grow(hashOf: (Bucket) -> UInt64) {
        let old = buckets
        buckets = Array(repeating: 0, count: old.count * 2)
        mask = buckets.count - 1
        for value in old where value != 0 { insert(value, hash: hashOf(value)) }
    }
}
