/// A line held by a merge, with where it goes (a struct, not a tuple: copying one is then
/// the compiler's own code, not the runtime's generic tuple copy).
struct HeldLine {
    var key: MergeKey
    var record: InputRecord
}

/// Where a line goes in the merged stream: by event time, then by input (in
/// the order given), then by line number. A total order, so the merged
/// stream depends only on the inputs' contents and order.
struct MergeKey: Comparable {
    /// Event time in microseconds (a rejected line takes its input's previous line's).
    var time: Int64
    var input: Int32
    var line: Int64

    static func < (a: MergeKey, b: MergeKey) -> Bool {
        if a.time != b.time { return a.time < b.time }
        if a.input != b.input { return a.input < b.input }
        return a.line < b.line
    }
}

/// The lines the merge holds until their turn, least key first, and the
/// memory they take.
struct ReorderBuffer {
    private struct Held: Comparable {
        var key: MergeKey
        var slot: Int32
        static func < (a: Held, b: Held) -> Bool { a.key < b.key }
        static func == (a: Held, b: Held) -> Bool { a.key == b.key }
    }

    private var heap = MinHeap<Held>()
    /// The records by slot (nil: a free slot), and what each one takes.
    private var records: [InputRecord?] = []
    private var sizes: [Int] = []
    private var freeSlots: [Int32] = []
    /// What the held lines take in memory, as `footprint` counts it.
    private(set) var bytes = 0

    var count: Int { heap.count }
    var isEmpty: Bool { heap.isEmpty }
    /// The least key held.
    var firstKey: MergeKey? { heap.min?.key }

    /// What holding a record costs beyond its bytes: its slot, its heap entry,
    /// and the document's storage object and arrays (headers and malloc's own).
    static let recordOverhead = MemoryLayout<InputRecord?>.stride + MemoryLayout<Int>.stride
        + MemoryLayout<Held>.stride + 96

    /// The memory a record takes while held: the line and its index, the routing name, the overhead.
    static func footprint(of record: InputRecord) -> Int {
        switch record {
        case .event(let event): footprint(of: event)
        case .rejected(let line): line.bytes.count + line.rejection.detail.utf8.count + recordOverhead
        case .paused: 0
        }
    }

    /// The memory an event takes while held.
    static func footprint(of event: borrowing Event) -> Int {
        event.document.memoryBytes + event.name.count + recordOverhead
    }

    mutating func insert(_ record: consuming InputRecord, key: MergeKey) {
        let size = Self.footprint(of: record)
        let slot: Int32
        if let free = freeSlots.popLast() {
            slot = free
            records[Int(slot)] = consume record
            sizes[Int(slot)] = size
        } else {
            slot = Int32(records.count)
            records.append(consume record)
            sizes.append(size)
        }
        bytes += size
        heap.insert(Held(key: key, slot: slot))
    }

    /// Takes out the record with the least key; the buffer must not be empty.
    mutating func removeFirst() -> HeldLine {
        let held = heap.removeMin()
        let slot = Int(held.slot)
        let record = records[slot].take()!
        bytes -= sizes[slot]
        freeSlots.append(held.slot)
        return HeldLine(key: held.key, record: record)
    }
}
