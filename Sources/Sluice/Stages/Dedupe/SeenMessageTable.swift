/// The message ids the `dedupe` stage has seen: 64-bit hashes in a FIFO ring,
/// found through an open-addressing index.
///
/// - `ring` holds one 16-byte entry per id (the id's hash and its payload's
///   hash) in arrival order; when it is full the oldest entry is overwritten
///   (`evicted`). With a `window`, a parallel `times` array (8 bytes an id)
///   holds when each id was first seen (on the stream's clock, so the ring is
///   in time order), and entries older than that clock minus the window leave
///   from the old end (`expired`).
/// - `index` (a `LinearProbingIndex`) maps a hash to its ring position: 4-byte
///   buckets holding the hash's top 5 bits and `position + 1` (0 = empty), so
///   most probes that miss never touch the ring; linear probing at ≤ 50% load,
///   backward-shift deletion (no tombstones in the index). It grows with the
///   number of live ids, not with `max_ids` (at most 100,000,000, which the 27
///   position bits hold).
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
    private var index = LinearProbingIndex<UInt32>(bucketCount: 1024)
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
    }

    /// Bytes held per id right now (ring entry, time and the index's share).
    var bytesPerID: Double {
        guard count > 0 else { return 0 }
        let entry = MemoryLayout<Entry>.stride + (keepsTimes ? 8 : 0)
        return Double(entry) + Double(index.byteCount) / Double(count)
    }

    // MARK: - Look-up

    private static let positionBits: UInt32 = 27
    private static let positionMask: UInt32 = (1 << positionBits) - 1

    @inline(__always)
    private static func bucketValue(id: UInt64, position: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: id >> 59) << positionBits | UInt32(position + 1)
    }

    @inline(__always)
    private static func position(_ value: UInt32) -> Int { Int(value & positionMask) - 1 }

    /// The ring position holding `id`, if any.
    func find(_ id: UInt64) -> Int? {
        let tag = UInt32(truncatingIfNeeded: id >> 59)
        let value = index.first(hash: id) { value in
            value >> Self.positionBits == tag && ring[Self.position(value)].id == id
        }
        return value.map(Self.position)
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
        index.growIfNeeded(count: count) { ring[Self.position($0)].id }
        index.insert(Self.bucketValue(id: id, position: position), hash: id)
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
            index.growIfNeeded(count: count) { ring[Self.position($0)].id }
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
        index.insert(Self.bucketValue(id: id, position: position), hash: id)
    }

    /// Ring positions in use (live ids and taken-out ones).
    var usedPositions: Int { used }

    // MARK: - Index

    private mutating func removeFromIndex(_ position: Int, id: UInt64) {
        index.remove(Self.bucketValue(id: id, position: position), hash: id) { ring[Self.position($0)].id }
    }
}
