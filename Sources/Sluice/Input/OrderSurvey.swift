#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Exact order's first read of files: how far behind its input's latest
/// event time any event is (the disorder), and what a merge through a window
/// that wide would hold at its peak. When that fits the budget, the inputs
/// are merged through that window (`EventTimeMerge` with exact ties): every
/// event in `EventOrder` for the price of a second read, however the lines
/// fall into files. Otherwise (disorder of hours over many events) they are
/// sorted (`ExactOrderFeed`'s sort). Each input's lines are counted and their
/// lengths summed, and its `FileIdentity` taken before the first read, so the
/// second read is checked against the first.
/// Event times are read without parsing where the line allows (`QuickTimestamp`).
struct OrderSurvey {
    /// One line as the merge would hold it: its merge time and its footprint.
    struct Line: Equatable {
        var time: Int64
        var bytes: Int32
    }

    /// Per input: its lines, in order.
    private(set) var lines: [SurveyLines]
    /// Per input: its runs of lines at one time (what an input found in order is read by, `InOrderTies`),
    /// found only when a run has one input (at most 8 bytes a line more, 16 while arrays grow:
    /// a tie of two lines takes 16).
    private(set) var runs: [InOrderTies.Runs]
    private let findsRuns: Bool
    /// Per input: the most an event is behind the input's latest event time before it (µs).
    private(set) var lateness: [Int64]
    /// Per input: the lines read, and their lengths' sum (`InputLines.lineChecksum`), which the second read must match.
    private(set) var lineCounts: [Int64]
    private(set) var checksums: [UInt64]
    /// Per input: the file as it was before the first read (nil for bytes in memory), which it must still be after the second.
    private(set) var identities: [FileIdentity?]
    /// The latest event time of all inputs (µs), `Int64.min` without events.
    private(set) var latest = Int64.min
    /// Per input: its latest event time so far, and the time of its last event (what a line that is not one is held under).
    private var inputLatest: [Int64]
    private var lastTime: [Int64]
    /// Per input: its earliest event time (what a part read before it may be later than).
    private var earliest: [Int64]
    /// Lines recorded so far, of every input.
    private(set) var recorded = 0
    /// How many lines it may record (16 bytes each) before it gives up: the inputs are then sorted.
    let mostLines: Int

    /// `findsRuns`: whether it finds `runs` (by default, with one input; a part of one of several inputs, read apart, not).
    init(inputs: Int, mostLines: Int, findsRuns: Bool? = nil) {
        lines = Array(repeating: SurveyLines(), count: inputs)
        runs = Array(repeating: InOrderTies.Runs(), count: inputs)
        self.findsRuns = findsRuns ?? (inputs == 1)
        lateness = Array(repeating: 0, count: inputs)
        lineCounts = Array(repeating: 0, count: inputs)
        checksums = Array(repeating: 0, count: inputs)
        identities = Array(repeating: nil, count: inputs)
        inputLatest = Array(repeating: .min, count: inputs)
        lastTime = Array(repeating: .min, count: inputs)
        earliest = Array(repeating: .max, count: inputs)
        self.mostLines = mostLines
    }

    /// How far `read` got.
    enum Reading {
        /// The input is read to its end (or its error, which ends it here as it will on the second read).
        case done
        /// It holds more lines than the survey may record.
        case tooManyLines
        /// A read paused for the run's housekeeping: call `read` again.
        case paused
    }

    /// Before `input` (index `index`) is read: its file's identity, and its lines summed from here on.
    mutating func begin(_ input: InputLines, index: Int) {
        input.checksumsLines = true
        identities[index] = FileIdentity(of: input)
    }

    /// Reads `input` (index `index`, after `begin`) on to its end, or until `stopped` says so
    /// (asked every 4096 lines; the reading then ends as `.done`).
    mutating func read(_ input: InputLines, index: Int, stopped: (() -> Bool)? = nil) -> Reading {
        defer {
            lineCounts[index] = input.lines
            checksums[index] = input.lineChecksum
        }
        while true {
            let read: SurveyLine?
            do {
                read = try input.nextForSurvey()
            } catch {
                return .done
            }
            guard let read else { return .done }
            guard case let .line(time, bytes) = read else { return .paused }
            recorded += 1
            if let stopped, recorded & 4095 == 0, stopped() { return .done }
            if recorded > mostLines {
                input.abandon()
                return .tooManyLines
            }
            guard let time else {
                // Not an event: held under the time of its input's event before it.
                lines[index].append(Line(time: lastTime[index], bytes: Int32(clamping: bytes)))
                if findsRuns { runs[index].add(lastTime[index]) }
                continue
            }
            if time > inputLatest[index] {
                inputLatest[index] = time
            } else if inputLatest[index] - time > lateness[index] {
                lateness[index] = inputLatest[index] - time
            }
            if time > latest { latest = time }
            if time < earliest[index] { earliest[index] = time }
            lastTime[index] = time
            lines[index].append(Line(time: time, bytes: Int32(clamping: bytes)))
            if findsRuns { runs[index].add(time) }
        }
    }

    /// Adds what `part` (a survey of one input: the rest of input `index`'s file, read apart) found
    /// after what this one read of the input; false when the lines are then more than it may record.
    mutating func append(_ part: OrderSurvey, to index: Int) -> Bool {
        recorded += part.recorded
        guard recorded <= mostLines else { return false }
        // Its lines before its first event are held under this input's last event's time. They join
        // these as chunks (not line by line: the join is on the way to the second read); only a
        // chunk holding lines before its first event is copied, to set their time.
        var joining = part.lines[0]
        joining.setLeadingTimes(lastTime[index])
        if findsRuns { runs[index].append(part.runs[0], over: joining) }
        lines[index].append(contentsOf: joining)
        if part.earliest[0] != .max, inputLatest[index] != .min, inputLatest[index] - part.earliest[0] > lateness[index] {
            lateness[index] = inputLatest[index] - part.earliest[0]
        }
        lateness[index] = max(lateness[index], part.lateness[0])
        inputLatest[index] = max(inputLatest[index], part.inputLatest[0])
        earliest[index] = min(earliest[index], part.earliest[0])
        if part.lastTime[0] != .min { lastTime[index] = part.lastTime[0] }
        latest = max(latest, part.latest)
        checksums[index] = InputLines.combinedChecksum(checksums[index], then: part.checksums[0], lines: part.lineCounts[0])
        lineCounts[index] += part.lineCounts[0]
        return true
    }

    /// Lets go of the lines (once the way is chosen): what the second read is checked against stays.
    mutating func forgetLines() {
        lines = Array(repeating: SurveyLines(), count: lines.count)
        runs = Array(repeating: InOrderTies.Runs(), count: runs.count)
    }

    /// The window that covers every input's disorder.
    var window: Int64 { lateness.max() ?? 0 }

    /// What `EventTimeMerge` with exact ties over `window` would hold at most, in bytes: its reads
    /// and let-outs played over the recorded lines.
    func peakHeld(window: Int64) -> Int {
        struct Held: Comparable {
            var key: MergeKey
            var bytes: Int32
            static func < (a: Held, b: Held) -> Bool { a.key < b.key }
            static func == (a: Held, b: Held) -> Bool { a.key == b.key }
        }
        var reading = MinHeap<MergeKey>()
        var buffer = MinHeap<Held>()
        var positions = [Int](repeating: 0, count: lines.count)
        var unread = lines.map { $0.makeIterator() }
        var inputLatest = [Int64](repeating: .min, count: lines.count)
        for index in lines.indices { reading.insert(MergeKey(time: .min, input: Int32(index), line: 1)) }
        var held = 0, peak = 0
        while true {
            if let first = buffer.min {
                if reading.isEmpty || first.key.time < reading.min!.time {
                    while let out = buffer.min, out.key.time == first.key.time {
                        held -= Int(out.bytes)
                        buffer.removeMin()
                    }
                    continue
                }
            } else if reading.isEmpty {
                return peak
            }
            let index = Int(reading.min!.input)
            guard let line = unread[index].next() else {
                reading.removeMin()
                continue
            }
            positions[index] += 1
            if line.time > inputLatest[index] { inputLatest[index] = line.time }
            buffer.insert(Held(key: MergeKey(time: line.time, input: Int32(index), line: Int64(positions[index])), bytes: line.bytes))
            held += Int(line.bytes)
            peak = max(peak, held)
            let low = inputLatest[index] > Int64.min + window ? inputLatest[index] - window : Int64.min
            reading.replaceMin(MergeKey(time: low, input: Int32(index), line: Int64(positions[index] + 1)))
        }
    }
}

/// A file on disk as `stat(2)` gives it: device and inode, size, and modification and status-change
/// times (to the nanosecond). A file rewritten, replaced, grown or cut between exact order's two
/// reads has another identity, whatever its lines.
struct FileIdentity: Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modifiedSeconds: Int
    var modifiedNanoseconds: Int
    var changedSeconds: Int
    var changedNanoseconds: Int

    /// The identity of `input`'s file now; nil for bytes in memory or a file that is gone.
    init?(of input: InputLines) {
        guard !input.isInMemory else { return nil }
        var info = stat()
        guard stat(input.path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modifiedSeconds = Int(info.st_mtim.tv_sec)
        modifiedNanoseconds = Int(info.st_mtim.tv_nsec)
        changedSeconds = Int(info.st_ctim.tv_sec)
        changedNanoseconds = Int(info.st_ctim.tv_nsec)
    }
}
