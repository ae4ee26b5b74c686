/// Several inputs as one stream in event-time order: a k-way merge of the
/// inputs through a reorder buffer bounded in event time (the window) and in
/// bytes.
///
/// Every line read waits in the buffer under its `MergeKey` (event time,
/// input, line). A line goes on once no input can still bring one that
/// belongs before it: an input whose latest event time is T may still bring
/// lines from T − window on (one later than that is late, and goes on as
/// soon as it is read, behind what was let out already: counted
/// `out_of_order`). So the merge always reads from the input that holds the
/// others back (the least such bound), and lets out what lies below every
/// input's bound. Inputs that are each in event-time order, or disordered by
/// less than the window, come out as one stream in event-time order, ties
/// broken by input order then line order, whatever the reads and however the
/// lines fall into files. With window 0 it is a plain k-way merge of the
/// inputs' heads.
///
/// A line rejected at input (not JSON, no timestamp) takes the event time of
/// the line before it in its input, so it keeps its place among its
/// neighbours (before an input's first event: the start of the stream).
///
/// When the held lines take more than the byte bound, the least one goes on
/// early (`let_out_full`): memory stays bounded whatever the inputs hold
/// (an input far behind the others in time, a huge window).
///
/// With `exactTies` (exact order over a window known to cover every input's
/// disorder, `ExactOrderFeed`), a time goes on only once every input's bound
/// is past it, so all its lines are held, and they go in `EventOrder` (lines
/// rejected at input after the events, by input and line) instead of by input and line.
final class EventTimeMerge: InputFeed {
    let inputs: [InputLines]
    private let window: Int64
    private let bufferLimit: Int
    @exclusivity(unchecked) private var buffer = ReorderBuffer()
    /// Each input still being read, by the least key its next line can have (its `input` says which).
    @exclusivity(unchecked) private var reading = MinHeap<MergeKey>()
    /// Per input: its latest event time.
    @exclusivity(unchecked) private var latest: [Int64]
    /// The latest event time let out so far.
    @exclusivity(unchecked) private var letOut = Int64.min
    @exclusivity(unchecked) private var counted: ReorderCounts
    /// Lines of one time let out together, in `EventOrder` (exact ties), the next last.
    private let exactTies: Bool
    @exclusivity(unchecked) private var group: [HeldLine] = []

    /// - Parameters:
    ///   - window: how far behind its input's latest event time a line may be and still be put in order.
    ///   - bufferBytes: how much the held lines may take before the least is let out early.
    init(_ inputs: [InputLines], window: Duration, bufferBytes: Int, exactTies: Bool = false) {
        self.inputs = inputs
        self.exactTies = exactTies
        self.window = window.microseconds
        self.bufferLimit = bufferBytes
        latest = Array(repeating: .min, count: inputs.count)
        counted = ReorderCounts(inputs: inputs.count, windowMilliseconds: window.microseconds / 1000,
                                           bufferBytes: bufferBytes)
        for index in inputs.indices { reading.insert(MergeKey(time: .min, input: Int32(index), line: 1)) }
    }

    /// What the reorder buffer did so far, and holds now.
    var counts: ReorderCounts {
        var counts = counted
        counts.held = buffer.count
        return counts
    }

    func next() throws -> InputRecord? {
        if exactTies { return try nextWithExactTies() }
        while true {
            if let first = buffer.firstKey {
                if reading.isEmpty || first < reading.min! { return letOutFirst(early: false) }
                if buffer.bytes > bufferLimit { return letOutFirst(early: true) }
            } else if reading.isEmpty {
                return nil
            }
            guard try readFromTheInputHoldingBack() else { return .paused }
        }
    }

    func stop(drainRead: Bool) {
        // After a stop request every read(2) returns at once: the inputs give
        // what they had read and end by themselves. Otherwise they end here.
        guard !drainRead else { return }
        while let stopped = reading.min {
            inputs[Int(stopped.input)].abandon()
            reading.removeMin()
        }
    }

    private func nextWithExactTies() throws -> InputRecord? {
        if let held = group.popLast() { return counting(held) }
        while true {
            if let first = buffer.firstKey {
                if reading.isEmpty || first.time < reading.min!.time {
                    letOutGroup(time: first.time)
                    return counting(group.popLast()!)
                }
            } else if reading.isEmpty {
                return nil
            }
            guard try readFromTheInputHoldingBack() else { return .paused }
        }
    }

    /// Takes every held line of `time` out of the buffer, into `group` in reverse `EventOrder`.
    private func letOutGroup(time: Int64) {
        while let first = buffer.firstKey, first.time == time { group.append(buffer.removeFirst()) }
        Self.sortInstant(&group)
    }

    /// Puts the lines of one instant in reverse `EventOrder` (the first last): the events, equal
    /// ones by input and line, then the lines rejected at input, by input and line. Lines of
    /// several times (`InOrderTies`: a rejected line's key is the event's before it) go by time first.
    static func sortInstant(_ group: inout [HeldLine]) {
        switch group.count {
        case 0, 1:
            return
        case 2:
            // Most instants that lines share, two lines: one comparison, no sort.
            if goesAfter(group[1], group[0]) { group.swapAt(0, 1) }
        default:
            group.sort { goesAfter($0, $1) }
        }
    }

    /// Whether `a` goes after `b` in the order `sortInstant` gives (it puts it first).
    @inline(__always)
    private static func goesAfter(_ a: borrowing HeldLine, _ b: borrowing HeldLine) -> Bool {
        if a.key.time != b.key.time { return a.key.time > b.key.time }
        switch a.record {
        case .event(let x):
            switch b.record {
            case .event(let y):
                let order = EventOrder.compareTies(x, y)
                return order != 0 ? order > 0 : b.key < a.key
            case .rejected: return false
            // Never held: a pause goes straight back to the runner.
            case .paused: return false
            }
        case .rejected:
            switch b.record {
            case .event: return true
            case .rejected: return b.key < a.key
            case .paused: return false
            }
        case .paused:
            return false
        }
    }

    private func counting(_ held: consuming HeldLine) -> InputRecord {
        if case .event = held.record {
            if held.key.time < letOut { counted.outOfOrder += 1 } else { letOut = held.key.time }
        }
        return held.record
    }

    /// Reads one line of the input with the least bound, holds it, and raises that input's bound;
    /// false when the read paused (nothing changed).
    private func readFromTheInputHoldingBack() throws -> Bool {
        let index = Int(reading.min!.input)
        let input = inputs[index]
        let read: InputRecord?
        do {
            read = try input.next()
        } catch {
            reading.removeMin()
            throw error
        }
        // A pause is seen on the input, not in the record, which goes into the buffer untouched.
        if input.lastPaused { return false }
        guard let record = consume read else {
            reading.removeMin()
            return true
        }
        // An event's own time; a rejected line's is its input's previous event's (read from the
        // input rather than the record, which is moved into the buffer, never copied).
        let time = input.lastEventTime
        if time > latest[index] { latest[index] = time }
        buffer.insert(record, key: MergeKey(time: time, input: Int32(index), line: input.lines))
        if buffer.count > counted.heldHighWater { counted.heldHighWater = buffer.count }
        if buffer.bytes > counted.heldBytesHighWater { counted.heldBytesHighWater = buffer.bytes }
        let low = latest[index] > Int64.min + window ? latest[index] - window : Int64.min
        reading.replaceMin(MergeKey(time: low, input: Int32(index), line: input.lines + 1))
        return true
    }

    private func letOutFirst(early: Bool) -> InputRecord {
        let held = buffer.removeFirst()
        if early { counted.letOutFull += 1 }
        if case .event = held.record {
            if held.key.time < letOut { counted.outOfOrder += 1 } else { letOut = held.key.time }
        }
        return held.record
    }
}
