/// The message ids the `dedupe` stage has seen: 64-bit hashes in a FIFO ring,
/// found through an open-addressing index.
///
/// - `ring` holds one 16-byte entry per id (the id's hash and its payload's
///   hash) in arrival order; when it is full the oldest entry is overwritten
///   (`evicted`). With a `window`, a parallel `times` array (8 bytes an id)
///   holds when each id was first seen (on the stream's clock, so the ring is
///   in time order), and entries older than that clock minus the window leave
///   from the old end (`expired`).
/// - `buckets` maps a hash to its ring position: 4 bytes holding the hash's top
///   5 bits and `position + 1` (0 = empty), so most probes that miss never
///   touch the ring; linear probing at ≤ 50% load, backward-shift deletion (no
///   tombstones in the index). It grows with the number of live ids, not with
///   `max_ids` (at most 100,000,000, which the 27 position bits hold).
///
/// So an id costs 16 B in the ring plus 4 B × (2 to 4) in the index: about
/// 24 B at 1,000,000 ids (32 B with a window).
///
/// A hash value of 0 marks a ring entry that was taken out (a refreshed id);
/// callers never insert 0.
struct SeenMessageTable {
    struct Entry {
        var id: UInt64
        var payload: UInt64
    }

    let capacity: Int
    let keepsTimes: Bool
    private var ring: [Entry] = []
    private var times: [Int64] = []
    /// Ring position of the oldest occupied entry, and how many positions are occupied (live or taken out).
    private var oldest = 0
    private var used = 0
    private var buckets: [UInt32]
    private var mask: Int
    /// Ids held right now.
    private(set) var count = 0

    init(capacity: Int, keepsTimes: Bool) {
        precondition(capacity > 0 && capacity < Int(Self.positionMask))
        self.capacity = capacity
        self.keepsTimes = keepsTimes
        // Reserved (address space only; pages are touched as the ring fills), so
        // filling it never copies. Beyond 4M ids it grows by doubling instead.
        ring.reserveCapacity(min(capacity, 1 << 22))
        if keepsTimes { times.reserveCapacity(min(capacity, 1 << 22)) }
        let initial = 1024
        buckets = Array(repeating: 0, count: initial)
        mask = initial - 1
    }

    /// Bytes held per id right now (ring entry, time and the index's share).
    var bytesPerID: Double {
        guard count > 0 else { return 0 }
        let entry = MemoryLayout<Entry>.stride + (keepsTimes ? 8 : 0)
        return Double(entry) + Double(buckets.count * 4) / Double(count)
    }

    // MARK: - Look-up

    private static let positionBits: UInt32 = 27
    private static let positionMask: UInt32 = (1 << positionBits) - 1

    @inline(__always)
    private static func bucketValue(id: UInt64, position: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: id >> 59) << positionBits | UInt32(position + 1)
    }

    /// The ring position holding `id`, if any.
    func find(_ id: UInt64) -> Int? {
        let tag = UInt32(truncatingIfNeeded: id >> 59)
        var bucket = Int(truncatingIfNeeded: id) & mask
        while true {
            let value = buckets[bucket]
            if value == 0 { return nil }
            if value >> Self.positionBits == tag {
                let position = Int(value & Self.positionMask) - 1
                if ring[position].id == id { return position }
            }
            bucket = (bucket + 1) & mask
        }
    }

    func payload(at position: Int) -> UInt64 { ring[position].payload }

    func time(at position: Int) -> Int64 { keepsTimes ? times[position] : 0 }

    // MARK: - Changes

    /// Adds `id` as the newest entry; returns whether the oldest live id had to go to make room.
    mutating func insert(id: UInt64, payload: UInt64, time: Int64) -> Bool {
        precondition(id != 0, "0 marks a removed entry")
        var evicted = false
        if used == capacity { evicted = popOldest() }
        let position = (oldest + used) % capacity
        let entry = Entry(id: id, payload: payload)
        if position == ring.count {
            ring.append(entry)
            if keepsTimes { times.append(time) }
        } else {
            ring[position] = entry
            if keepsTimes { times[position] = time }
        }
        used += 1
        count += 1
        if count * 2 > buckets.count {
            // Growing indexes every live entry, this one included.
            grow()
            return evicted
        }
        var bucket = Int(truncatingIfNeeded: id) & mask
        while buckets[bucket] != 0 { bucket = (bucket + 1) & mask }
        buckets[bucket] = Self.bucketValue(id: id, position: position)
        return evicted
    }

    /// Takes the id at `position` out (its ring entry stays, marked removed, until the ring passes it).
    mutating func remove(at position: Int) {
        let id = ring[position].id
        guard id != 0 else { return }
        removeFromIndex(position, id: id)
        ring[position].id = 0
        count -= 1
    }

    /// Lets go of the oldest entries first seen before `cutoff` (needs `keepsTimes`);
    /// returns how many live ids went. Stops at the first entry that is still
    /// young; look-ups check the time themselves.
    mutating func expire(before cutoff: Int64) -> Int {
        guard keepsTimes else { return 0 }
        var expired = 0
        while used > 0 && (ring[oldest].id == 0 || times[oldest] < cutoff) {
            if popOldest() { expired += 1 }
        }
        return expired
    }

    /// Frees the oldest ring position; returns whether it held a live id.
    private mutating func popOldest() -> Bool {
        let id = ring[oldest].id
        if id != 0 {
            removeFromIndex(oldest, id: id)
            ring[oldest].id = 0
            count -= 1
        }
        oldest = (oldest + 1) % capacity
        used -= 1
        return id != 0
    }

    // MARK: - Saving and restoring

    /// Calls `body` with every ring position in use, oldest first, taken-out
    /// ones (id 0) included: replaying them into an empty table with
    /// `appendRestored` gives one that evicts and expires exactly as this one.
    func forEachPosition(_ body: (_ id: UInt64, _ payload: UInt64, _ time: Int64) -> Void) {
        var position = oldest
        for _ in 0..<used {
            body(ring[position].id, ring[position].payload, keepsTimes ? times[position] : 0)
            position = (position + 1) % capacity
        }
    }

    /// Appends a position as the newest, as `forEachPosition` gave it (id 0: a
    /// taken-out one). The table must have room (`used < capacity`).
    mutating func appendRestored(id: UInt64, payload: UInt64, time: Int64) {
        precondition(used < capacity, "restoring more positions than the ring holds")
        if id != 0 {
            count += 1
            // Grown before the position is in use, so the rehash does not index it too.
            if count * 2 > buckets.count { grow() }
        }
        let position = (oldest + used) % capacity
        let entry = Entry(id: id, payload: payload)
        if position == ring.count {
            ring.append(entry)
            if keepsTimes { times.append(time) }
        } else {
            ring[position] = entry
            if keepsTimes { times[position] = time }
        }
        used += 1
        guard id != 0 else { return }
        var bucket = Int(truncatingIfNeeded: id) & mask
        while buckets[bucket] != 0 { bucket = (bucket + 1) & mask }
        buckets[bucket] = Self.bucketValue(id: id, position: position)
    }

    /// Ring positions in use (live ids and taken-out ones).
    var usedPositions: Int { used }

    // MARK: - Index

    private mutating func removeFromIndex(_ position: Int, id: UInt64) {
        let target = Self.bucketValue(id: id, position: position)
        var hole = Int(truncatingIfNeeded: id) & mask
        while buckets[hole] != target { hole = (hole + 1) & mask }
        // Backward-shift deletion: pull later members of the probe run into the hole.
        var next = hole
        while true {
            next = (next + 1) & mask
            let value = buckets[next]
            if value == 0 { break }
            let home = Int(truncatingIfNeeded: ring[Int(value & Self.positionMask) - 1].id) & mask
            // The entry at `next` may move to `hole` unless its home lies cyclically in (hole, next].
            let stays = hole <= next ? (home > hole && home <= next) : (home > hole || home <= next)
            if !stays {
                buckets[hole] = value
                hole = next
            }
        }
        buckets[hole] = 0
    }

    private mutating func grow() {
        let size = buckets.count * 2
        buckets = Array(repeating: 0, count: size)
        mask = size - 1
        var position = oldest
        for _ in 0..<used {
            let id = ring[position].id
            if id != 0 {
                var bucket = Int(truncatingIfNeeded: id) & mask
                while buckets[bucket] != 0 { bucket = (bucket + 1) & mask }
                buckets[bucket] = Self.bucketValue(id: id, position: position)
            }
            position = (position + 1) % capacity
        }
    }
}
