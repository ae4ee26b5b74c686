/// One input that exact order's first read found in event order (no event
/// behind one before it): its lines as they are read, but the lines of one
/// instant taken together and given in `EventOrder`, as the window merge gives
/// them (lines rejected at input, which go with the event before them, after
/// the instant's events).
///
/// The first read says where the instants that several lines share are (the
/// `ties`), so a line alone at its instant, as most are, goes out as soon as
/// it is read: nothing is read ahead of it or held. The lines of a shared
/// instant are read together and sorted. A line the first read put in an
/// instant that the second read finds elsewhere fails the run
/// (`InputChangedWhileRead`), as a file that changed between the reads does.
final class InOrderTies: InputFeed {
    /// Lines of the input (as the first read counted them: blank ones not) that share their instant
    /// with the lines after them: where each such instant begins, and how many lines share it.
    struct Ties: Equatable {
        var starts: [Int] = []
        var counts: [Int] = []

        init(starts: [Int], counts: [Int]) {
            self.starts = starts
            self.counts = counts
        }

        /// Each run of lines at one time among `lines` (tests; the first read finds them as it reads, `Runs`).
        init(_ lines: SurveyLines) {
            var runs = Runs()
            for line in lines { runs.add(line.time) }
            self = runs.ties
        }
    }

    /// The first read's runs of lines at one time, found as it reads them (`OrderSurvey`): the
    /// ties found so far, and the run the last line is in.
    struct Runs: Equatable {
        private var starts: [Int] = []
        private var counts: [Int] = []
        /// The last run: where it begins, its time, and its lines (0 before the first line).
        private var runStart = 0, runTime = Int64.min, runCount = 0

        /// The lines counted.
        var lines: Int { runStart + runCount }

        /// The ties, the last run among them when lines share it.
        var ties: Ties {
            var runs = self
            runs.endRun()
            return Ties(starts: runs.starts, counts: runs.counts)
        }

        /// The next line, at `time` (the time it is recorded at: a line that is not an event, its event's before it).
        @inline(__always)
        mutating func add(_ time: Int64) {
            if runCount > 0 && time == runTime {
                runCount += 1
                return
            }
            endRun()
            runStart += runCount
            runTime = time
            runCount = 1
        }

        private mutating func endRun() {
            guard runCount > 1 else { return }
            starts.append(runStart)
            counts.append(runCount)
        }

        /// Adds the runs of lines recorded apart (`other`, found over `lines`, their times as they
        /// follow these: `SurveyLines.setLeadingTimes`). Its first run may go on this one's last:
        /// its lines are added one by one until a run of its own begins, which then is one of
        /// the joined lines as well, and so is every one after it.
        mutating func append(_ other: Runs, over lines: SurveyLines) {
            let offset = self.lines
            var previous = Int64.min, index = 0
            for line in lines {
                if index > 0 && line.time != previous { break }
                add(line.time)
                previous = line.time
                index += 1
            }
            guard index < lines.count else { return }
            // A run of `other` begins at `index`: its runs from there are the joined lines' too.
            endRun()
            let from = other.starts.firstIndex { $0 >= index } ?? other.starts.count
            starts.append(contentsOf: other.starts[from...].lazy.map { $0 + offset })
            counts.append(contentsOf: other.counts[from...])
            runStart = other.runStart + offset
            runTime = other.runTime
            runCount = other.runCount
        }
    }

    let inputs: [InputLines]
    /// `inputs[0]`, held apart so that each read does not go through the array.
    private let input: InputLines
    private let ties: Ties
    /// The next of `ties` to come, and the line it begins at (`Int.max` after the last).
    @exclusivity(unchecked) private var nextTie = 0
    @exclusivity(unchecked) private var nextTieStart: Int
    /// Lines read so far (pauses not counted): the next line's place among the first read's.
    @exclusivity(unchecked) private var ordinal = 0
    /// The lines of a shared instant: being read (`tying`), then given, least last.
    @exclusivity(unchecked) private var group: [HeldLine] = []
    @exclusivity(unchecked) private var tying = false
    /// The time of the last event given: the next one must be later, or the instants moved.
    @exclusivity(unchecked) private var lastEventTime = Int64.min
    @exclusivity(unchecked) private var ended = false
    /// An input error: thrown once the lines read before it are out.
    @exclusivity(unchecked) private var failure: Error?

    init(_ input: InputLines, ties: Ties) {
        inputs = [input]
        self.input = input
        self.ties = ties
        nextTieStart = ties.starts.first ?? .max
    }

    /// Inlined into the reader's loop, so that a lone line's record comes straight from the input.
    @inline(__always)
    func next() throws -> InputRecord? {
        // A line alone at its instant (or a pause): as it is read.
        guard !tying, group.isEmpty, ordinal != nextTieStart, let record = read() else { return try nextAtTies() }
        if case .event = record {
            let time = input.lastEventTime
            guard time > lastEventTime else { throw moved(line: input.lines) }
            lastEventTime = time
        }
        return record
    }

    /// The next line where the lines of a shared instant are being read or given, or at the end.
    @inline(never)
    private func nextAtTies() throws -> InputRecord? {
        if !tying, let line = group.popLast() { return line.record }
        if tying || ordinal == nextTieStart {
            tying = true
            while group.count < ties.counts[nextTie], let record = read() {
                if input.lastPaused { return record }
                group.append(HeldLine(key: MergeKey(time: input.lastEventTime, input: 0, line: input.lines), record: record))
            }
            tying = false
            nextTie += 1
            nextTieStart = nextTie < ties.starts.count ? ties.starts[nextTie] : .max
            try sortGroup()
            if let line = group.popLast() { return line.record }
        }
        if let failure {
            self.failure = nil
            throw failure
        }
        return nil
    }

    /// Puts `group` (the lines the first read found at one instant) in reverse order: by time
    /// (a rejected line's is its event's before it, which may be the instant before), the events
    /// of a time in `EventOrder`, then the lines rejected at input, by line.
    private func sortGroup() throws {
        var time: Int64?
        for index in group.indices {
            guard case .event = group[index].record else { continue }
            let key = group[index].key
            guard key.time == (time ?? key.time), key.time > lastEventTime else { throw moved(line: key.line) }
            time = key.time
        }
        if let time { lastEventTime = time }
        EventTimeMerge.sortInstant(&group)
    }

    private func moved(line: Int64) -> InputChangedWhileRead {
        InputChangedWhileRead(path: input.name, detail: "line \(line) is not at the instant the first read found it at")
    }

    /// The input's next line, counted in `ordinal`, or a pause; nil at its end or its error (kept in `failure`).
    @inline(__always)
    private func read() -> InputRecord? {
        guard !ended else { return nil }
        do {
            if let record = try input.next() {
                if !input.lastPaused { ordinal += 1 }
                return record
            }
        } catch {
            failure = error
        }
        ended = true
        return nil
    }

    func stop(drainRead: Bool) {
        if !drainRead { input.abandon() }
    }
}
