import SluiceJSON

/// What the `session` stage knows of one device: its current session and who is signed in.
///
/// 72 bytes (stride). The device is known by a 128-bit hash of its key
/// (`anonymousId`, else `userId`), never by the string; settings and traits are
/// ids into `InternedJSON` pools, so equal values are stored once.
struct DeviceRecord {
    /// The device key's two independent 64-bit hashes.
    var keyA: UInt64
    var keyB: UInt64
    /// The current session's start, µs of event time.
    var start: Int64
    /// The latest event time placed in order in the current session, µs.
    var last: Int64
    /// The signed-in user's id hash, 0 when signed out (the session is then not authenticated).
    var user: UInt64
    /// Sessions started on this device so far (the current one's number).
    var number: UInt32
    /// Events placed in the current session so far (the last one's `seq`).
    var seq: UInt32
    /// `InternedJSON` ids; 0 = none.
    var settings: UInt32
    var traits: UInt32
    /// The newest `PastSessions` entry of this device, -1 when none.
    var history: Int32
    /// Neighbours in recency order (-1 at the ends).
    var newer: Int32
    var older: Int32
    /// A `signed_out` was seen: a userId that then disappears starts a new session.
    var signedOut: Bool
}

/// The devices the `session` stage tracks: records in a flat array, an
/// open-addressing index on the key hash and a recency list for eviction.
///
/// The index (a `LinearProbingIndex`) holds `slot + 1` (0 = empty) in 4-byte
/// buckets at ≤ 50% load, linear probing, backward-shift deletion, and grows
/// with the number of devices. Records are never freed, only reused by the
/// device that takes an evicted one's place, so the array grows to at most
/// `max_devices`.
struct DeviceTable {
    private(set) var records: [DeviceRecord] = []
    private var index = LinearProbingIndex<UInt32>(bucketCount: 1024)
    /// Least and most recently touched slots, -1 when empty.
    private(set) var oldest: Int32 = -1
    private var newest: Int32 = -1

    init(reserving capacity: Int) {
        // Address space only: pages are touched as devices arrive, and filling it never copies.
        records.reserveCapacity(min(capacity, 1 << 22))
    }

    var count: Int { records.count }

    /// Bytes of state per device right now: the record and its share of the index.
    var bytesPerDevice: Double {
        guard !records.isEmpty else { return 0 }
        return Double(MemoryLayout<DeviceRecord>.stride) + Double(index.byteCount) / Double(records.count)
    }

    subscript(slot: Int32) -> DeviceRecord {
        get { records[Int(slot)] }
        _modify { yield &records[Int(slot)] }
    }

    /// The slot of the device with this key, if tracked.
    func find(keyA: UInt64, keyB: UInt64) -> Int32? {
        let value = index.first(hash: keyA) { value in
            let slot = Int(value) - 1
            return records[slot].keyA == keyA && records[slot].keyB == keyB
        }
        return value.map { Int32(Int($0) - 1) }
    }

    /// Adds a device as the most recently touched one; returns its slot.
    mutating func add(_ record: DeviceRecord) -> Int32 {
        let slot = Int32(records.count)
        records.append(record)
        index.growIfNeeded(count: records.count) { records[Int($0) - 1].keyA }
        addToIndex(slot)
        linkNewest(slot)
        return slot
    }

    /// Gives the slot of a tracked device to another one (the caller has let go of what it referenced).
    mutating func replace(_ slot: Int32, with record: DeviceRecord) {
        removeFromIndex(slot)
        unlink(slot)
        records[Int(slot)] = record
        addToIndex(slot)
        linkNewest(slot)
    }

    /// Every slot from the least to the most recently touched: adding the
    /// records in this order to an empty table rebuilds the same recency order.
    var slotsByRecency: [Int32] {
        var slots: [Int32] = []
        slots.reserveCapacity(records.count)
        var slot = oldest
        while slot >= 0 {
            slots.append(slot)
            slot = records[Int(slot)].newer
        }
        return slots
    }

    /// Makes `slot` the most recently touched device.
    mutating func touch(_ slot: Int32) {
        guard slot != newest else { return }
        unlink(slot)
        linkNewest(slot)
    }

    // MARK: - Recency list

    private mutating func linkNewest(_ slot: Int32) {
        records[Int(slot)].newer = -1
        records[Int(slot)].older = newest
        if newest >= 0 { records[Int(newest)].newer = slot } else { oldest = slot }
        newest = slot
    }

    private mutating func unlink(_ slot: Int32) {
        let record = records[Int(slot)]
        if record.older >= 0 { records[Int(record.older)].newer = record.newer } else { oldest = record.newer }
        if record.newer >= 0 { records[Int(record.newer)].older = record.older } else { newest = record.older }
    }

    // MARK: - Index

    private mutating func addToIndex(_ slot: Int32) {
        index.insert(UInt32(slot + 1), hash: records[Int(slot)].keyA)
    }

    private mutating func removeFromIndex(_ slot: Int32) {
        index.remove(UInt32(slot + 1), hash: records[Int(slot)].keyA) { records[Int($0) - 1].keyA }
    }
}
