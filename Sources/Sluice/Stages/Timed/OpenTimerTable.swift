/// The timed stage's state: open starts and stops waiting for a late start,
/// found by key, ordered by deadline and by recency, all in flat arrays.
///
/// Each entry is one slot of `entries`; three indexes point into it:
/// - a hash table (a `LinearProbingIndex`: open addressing, linear probing,
///   8 bytes a bucket holding the key's 32-bit hash and the slot), so a
///   look-up touches a slot only when the hashes agree;
/// - a binary min-heap of `(deadline, seq)`, indexed (each slot knows its heap
///   position), so the next due entry is O(1) to see and any entry is
///   O(log n) to remove: expiry never scans the open timers;
/// - a doubly linked list in touch order, for O(1) least-recently-used eviction.
///
/// A key may hold one open start and several held stops at once, so a look-up
/// yields every entry with that key. Slot bytes are the key followed by the
/// payload; nothing else is allocated per entry.
struct OpenTimerTable {
    enum Kind: UInt8 {
        case free
        /// An open timer: a start waiting for its stop.
        case start
        /// A stop that came before its start, held until the watermark passes its time.
        case heldStop
    }

    /// One open start or held stop (96 bytes: keep new fields small).
    struct Entry: RecencyLinked {
        /// The key, then the payload (see `TimedEventPairing` for what the payload holds).
        var bytes: [UInt8]
        /// The entry's event time: the start's or the stop's.
        var time: EventTime
        /// Arrival order in the run: the tie-breaker wherever times are equal.
        var seq: UInt64
        var line: Int64
        var source: Int32
        var hash: UInt32
        var keyLength: UInt32
        var heapIndex: Int32
        var newer: Int32
        var older: Int32
        /// Offsets in `bytes` of the start's `timestamp` value (raw JSON).
        var timestampStart: UInt32
        var timestampEnd: UInt32
        /// Offsets in `bytes` of the start's `properties` value (raw JSON); empty when absent.
        var propertiesStart: UInt32
        var propertiesEnd: UInt32
        /// Offsets in `bytes` of the marker's value, when the line is kept (to mark it when let out).
        var markerStart: UInt32
        var markerEnd: UInt32
        var kind: Kind
        /// The consent mark the line came in with (`Event.withheld`), given back when it is let out or paired.
        var withheld: WithheldDestinations?

        var origin: Origin { Origin(source: source, line: line) }
        var key: ArraySlice<UInt8> { bytes[..<Int(keyLength)] }
        var payload: ArraySlice<UInt8> { bytes[Int(keyLength)...] }
        var timestamp: ArraySlice<UInt8> { bytes[Int(timestampStart)..<Int(timestampEnd)] }
        var properties: ArraySlice<UInt8> { bytes[Int(propertiesStart)..<Int(propertiesEnd)] }
        var marker: Range<Int> { Int(markerStart)..<Int(markerEnd) }
    }

    private struct HeapItem {
        var deadline: Int64
        var seq: UInt64
        var slot: Int32
    }

    private(set) var entries: [Entry] = []
    private var freeSlots: [Int32] = []
    /// 0 is an empty bucket; otherwise `hash << 32 | (slot + 1)`.
    private var index: LinearProbingIndex<UInt64>
    private var heap: [HeapItem] = []
    private var recency = RecencyList()
    /// Live entries (open starts and held stops).
    private(set) var count = 0
    /// What the live entries take, as `max_open_bytes` counts it: each one's
    /// bytes plus `entryOverhead`. Depends only on the entries, never on
    /// allocator behaviour, so eviction by bytes is as reproducible as by count.
    private(set) var footprint = 0

    /// The memory an entry takes beyond its bytes: its slot, its heap item,
    /// two hash buckets (the table is at most half full), and the byte array's
    /// heap header (32 bytes in Swift's runtime) with malloc's own (about 16):
    /// 184 bytes. Measured: 300,000 open timers of 243-byte lines counted
    /// 480 bytes each and took 490 bytes each of RSS.
    static let entryOverhead = MemoryLayout<Entry>.stride + MemoryLayout<HeapItem>.stride + 2 * MemoryLayout<UInt64>.stride + 48

    /// What one entry of `bytes` kept bytes counts toward `footprint`.
    static func footprint(ofBytes bytes: Int) -> Int { bytes + entryOverhead }

    init(initialBuckets: Int = 1024) {
        var capacity = 16
        while capacity < initialBuckets { capacity <<= 1 }
        index = LinearProbingIndex(bucketCount: capacity)
    }

    var isEmpty: Bool { count == 0 }

    subscript(slot: Int32) -> Entry { entries[Int(slot)] }

    // MARK: - Look-up

    /// Calls `body` with every live slot whose key is `key` (hash `hash`), in probe order.
    func forEach(key: Span<UInt8>, hash: UInt32, _ body: (Int32) -> Void) {
        index.forEach(hash: UInt64(hash)) { value in
            if UInt32(truncatingIfNeeded: value >> 32) == hash {
                let slot = Int32(truncatingIfNeeded: value & 0xFFFF_FFFF) - 1
                if keyEquals(slot, key) { body(slot) }
            }
        }
    }

    private func keyEquals(_ slot: Int32, _ key: Span<UInt8>) -> Bool {
        let entry = entries[Int(slot)]
        guard Int(entry.keyLength) == key.count else { return false }
        return ByteSpans.equal(entry.bytes.span.extracting(0..<key.count), key)
    }

    // MARK: - Insert and remove

    /// Adds an entry (its `bytes` start with the key), due at `deadline`, as the most recently touched.
    @discardableResult
    mutating func insert(_ entry: Entry, deadline: Int64) -> Int32 {
        let slot: Int32
        if let reused = freeSlots.popLast() {
            slot = reused
            entries[Int(slot)] = entry
        } else {
            slot = Int32(entries.count)
            entries.append(entry)
        }
        recency.linkNewest(slot, in: &entries)
        count += 1
        footprint += Self.footprint(ofBytes: entry.bytes.count)
        index.growIfNeeded(count: count) { $0 >> 32 }
        index.insert(Self.bucketValue(hash: entry.hash, slot: slot), hash: UInt64(entry.hash))
        heap.append(HeapItem(deadline: deadline, seq: entry.seq, slot: slot))
        entries[Int(slot)].heapIndex = Int32(heap.count - 1)
        siftUp(heap.count - 1)
        return slot
    }

    /// Takes an entry out of every index and returns it; the slot is reused later.
    mutating func remove(_ slot: Int32) -> Entry {
        let entry = entries[Int(slot)]
        precondition(entry.kind != .free, "removing a free timer slot")
        recency.unlink(slot, in: &entries)
        // Heap: move the last item into the hole, then restore order.
        let hole = Int(entry.heapIndex)
        let last = heap.removeLast()
        if hole < heap.count {
            heap[hole] = last
            entries[Int(last.slot)].heapIndex = Int32(hole)
            siftDown(hole)
            siftUp(Int(entries[Int(last.slot)].heapIndex))
        }
        index.remove(Self.bucketValue(hash: entry.hash, slot: slot), hash: UInt64(entry.hash)) { $0 >> 32 }
        entries[Int(slot)] = Entry.free
        freeSlots.append(slot)
        count -= 1
        footprint -= Self.footprint(ofBytes: entry.bytes.count)
        return entry
    }

    /// Makes `slot` the most recently touched entry.
    mutating func touch(_ slot: Int32) { recency.touch(slot, in: &entries) }

    // MARK: - Order

    /// The slot with the smallest `(deadline, seq)`, and its deadline.
    var nextDue: (slot: Int32, deadline: Int64)? {
        guard let top = heap.first else { return nil }
        return (top.slot, top.deadline)
    }

    /// The least recently touched slot.
    var leastRecentlyTouched: Int32? { recency.oldest >= 0 ? recency.oldest : nil }

    /// Every live slot, in no particular order.
    var liveSlots: [Int32] { heap.map(\.slot) }

    /// Every live slot from the least to the most recently touched: inserting
    /// them in this order into an empty table rebuilds the same recency order.
    var slotsByRecency: [Int32] { recency.slotsByRecency(entries, count: count) }

    /// Drops every entry and gives the memory back.
    mutating func removeAll() {
        self = OpenTimerTable()
    }

    // MARK: - Heap

    @inline(__always)
    private func precedes(_ a: HeapItem, _ b: HeapItem) -> Bool {
        a.deadline != b.deadline ? a.deadline < b.deadline : a.seq < b.seq
    }

    private mutating func siftUp(_ start: Int) {
        var index = start
        let item = heap[index]
        while index > 0 {
            let parent = (index - 1) / 2
            guard precedes(item, heap[parent]) else { break }
            heap[index] = heap[parent]
            entries[Int(heap[index].slot)].heapIndex = Int32(index)
            index = parent
        }
        heap[index] = item
        entries[Int(item.slot)].heapIndex = Int32(index)
    }

    private mutating func siftDown(_ start: Int) {
        var index = start
        let item = heap[index]
        let count = heap.count
        while true {
            let left = 2 * index + 1
            guard left < count else { break }
            var child = left
            if left + 1 < count && precedes(heap[left + 1], heap[left]) { child = left + 1 }
            guard precedes(heap[child], item) else { break }
            heap[index] = heap[child]
            entries[Int(heap[index].slot)].heapIndex = Int32(index)
            index = child
        }
        heap[index] = item
        entries[Int(item.slot)].heapIndex = Int32(index)
    }

    // MARK: - Hash table

    @inline(__always)
    private static func bucketValue(hash: UInt32, slot: Int32) -> UInt64 { UInt64(hash) << 32 | UInt64(slot + 1) }
}

extension OpenTimerTable.Entry {
    static let free = OpenTimerTable.Entry(
        bytes: [], time: .epoch, seq: 0, line: 0, source: 0, hash: 0, keyLength: 0, heapIndex: -1, newer: -1, older: -1,
        timestampStart: 0, timestampEnd: 0, propertiesStart: 0, propertiesEnd: 0, markerStart: 0, markerEnd: 0, kind: .free,
        withheld: nil)
}

import SluiceJSON
