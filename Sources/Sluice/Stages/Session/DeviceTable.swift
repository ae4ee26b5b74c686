import SluiceJSON

/// What the `session` stage knows of one device: its current session and who is signed in.
///
/// 72 bytes (stride). The device is known by a 128-bit hash of its key
/// (`anonymousId`, else `userId`), never by the string; settings and traits are
/// ids into `InternedJSON` pools, so equal values are stored once.
struct DeviceRecord: RecencyLinked {
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
    private var recency = RecencyList()
    /// The least recently touched slot, -1 when empty.
    var oldest: Int32 { recency.oldest }

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
        recency.linkNewest(slot, in: &records)
        return slot
    }

    /// Gives the slot of a tracked device to another one (the caller has let go of what it referenced).
    mutating func replace(_ slot: Int32, with record: DeviceRecord) {
        removeFromIndex(slot)
        recency.unlink(slot, in: &records)
        records[Int(slot)] = record
        addToIndex(slot)
        recency.linkNewest(slot, in: &records)
    }

    /// Every slot from the least to the most recently touched: adding the
    /// records in this order to an empty table rebuilds the same recency order.
    var slotsByRecency: [Int32] { recency.slotsByRecency(records, count: records.count) }

    /// Makes `slot` the most recently touched device.
    mutating func touch(_ slot: Int32) { recency.touch(slot, in: &records) }

    // MARK: - Index

    private mutating func addToIndex(_ slot: Int32) {
        index.insert(UInt32(slot + 1), hash: records[Int(slot)].keyA)
    }

    private mutating func removeFromIndex(_ slot: Int32) {
        index.remove(UInt32(slot + 1), hash: records[Int(slot)].keyA) { records[Int($0) - 1].keyA }
    }
}
