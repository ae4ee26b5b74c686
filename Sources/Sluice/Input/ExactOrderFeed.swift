// Unsafe code: `crc` hands an event's bytes, borrowed for the call, to the C CRC-32.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CCRC32
import SluiceJSON

/// Something that gives events in `EventOrder`: a sorted run on disk, the run
/// still in memory, or the in-order start of an input read again.
protocol SortedSource: AnyObject {
    func next() throws -> SortedNext
}

/// What a `SortedSource` gives next.
enum SortedNext {
    case event(Event)
    case end
    /// A read paused for the run's housekeeping (`ReadPacing`): ask again.
    case paused
}

/// Bounded inputs in exact event order (`--order exact`): the stages get
/// every event in `EventOrder`, however disordered the inputs were and however
/// the lines fell into files.
///
/// First an `OrderSurvey` reads the files: when a merge through a window as
/// wide as their disorder holds no more than the budget, they are merged so
/// (`EventTimeMerge` with exact ties), read a second time and checked against
/// the first read. Otherwise (inputs that cannot be read twice, lines left
/// pending by an earlier run, or disorder of hours over many events), an
/// external sort with bounded memory:
///
/// - **Collecting.** The inputs are read one after another. An input's events
///   that come in order (each at or after the last one that did) are its
///   *in-order run*: they are only counted (and their bytes summed into a
///   CRC-32), and read again from the file when the events go out, instead of
///   being held. The others (a late message, a batch sent minutes behind) are
///   held in memory; when they take more than the budget
///   (`input.reorder_buffer`), they are sorted and spilled to a run on disk
///   (`SortRunWriter`, gzip level 1, under a `SpillDirectory`). A file in
///   event order, or nearly, so costs a second read and parse, not its size
///   in memory or on disk. Lines rejected at input have no event time: they go
///   to the rejects as soon as they are read.
/// - **Merging.** A k-way merge of the in-order runs (read again with the
///   same rule, and checked against their count and CRC), the runs on disk
///   and the run in memory gives every event in order.
///
/// With `carryFrom` (a non-final `--state` run), the events at or after that
/// long before the latest event time are not given out: they are `pending`
/// for the state, and the next run orders them with its own lines.
///
/// Every read in it (the survey, the collecting, the merges) pauses for the
/// run's housekeeping as the inputs' reads do (`ReadPacing`): `next` returns
/// `.paused` and, called again, goes on where it stood. While the merge reads
/// nothing of the inputs, it pauses every 4096 events for the outputs to be handed on.
/// One input found in order, with nothing to carry, is handed over at a pause
/// (`takeInOrder`): the runner reads its `InOrderTies` itself, stops that, and
/// calls `endInOrder` at its end; this feed is not asked again.
final class ExactOrderFeed: InputFeed {
    let inputs: [InputLines]
    /// How a file is read again (its in-order start) and how spilled runs are read.
    private let mergeReading: InputReading
    /// Opens input `index` again, from its start.
    private let reopen: (Int) -> InputLines?
    private let budget: Int
    private let spill: SpillDirectory
    /// How far behind the latest event time events are carried instead of given out (nil: none are).
    private let carryFrom: Duration?
    @exclusivity(unchecked) private var counted: OrderCounts

    private struct InOrderStart {
        var last: Event?
        var events = 0
        var lastLine: Int64 = 0
        var crc: UInt32 = 0
        /// Whether the input can be read again (a regular file, or bytes in memory).
        var rereadable: Bool
    }

    @exclusivity(unchecked) private var starts: [InOrderStart]
    @exclusivity(unchecked) private var held: [Event] = []
    @exclusivity(unchecked) private var heldBytes = 0
    @exclusivity(unchecked) private var runs: [String] = []
    @exclusivity(unchecked) private var current = 0
    @exclusivity(unchecked) private var collecting = true
    @exclusivity(unchecked) private var stopRequested = false
    @exclusivity(unchecked) private var latest = Int64.min

    /// Whether the way was chosen (from the first call on): the window merge, or without one the sort.
    @exclusivity(unchecked) private var surveyed: Bool
    /// Through the window: the merge, and the same when it is a merge (one input in order needs none).
    @exclusivity(unchecked) private var windowMerge: (any InputFeed)?
    @exclusivity(unchecked) private var merge: EventTimeMerge?
    @exclusivity(unchecked) private var survey: OrderSurvey?
    /// The one input the first read found in order, when the run carries nothing on: the runner
    /// may read it straight through this (`takeInOrder`), then `endInOrder`.
    @exclusivity(unchecked) private var inOrder: InOrderTies?
    /// The survey under way: the inputs before `surveyIndex` are read, `surveyInput` is being read.
    @exclusivity(unchecked) private var surveying: OrderSurvey?
    @exclusivity(unchecked) private var surveyIndex = 0
    @exclusivity(unchecked) private var surveyInput: InputLines?
    /// The second half of `surveyInput`'s file, read meanwhile on a thread of its own (a large plain file).
    @exclusivity(unchecked) private var surveyHalf: SurveyHalf?
    /// The least size of a file the first read reads in two halves.
    private let splitSurveyFrom: Int
    /// A merge of the runs on disk into one, under way.
    @exclusivity(unchecked) private var runMerge: SortRunMerge?

    @exclusivity(unchecked) private var sources: [any SortedSource] = []
    /// The merge's heads: each source's next event, least first.
    @exclusivity(unchecked) private var heads = MergeHeads()
    /// The merge's heads are being read (`headsRead` of the sources so far).
    @exclusivity(unchecked) private var readingHeads = false
    @exclusivity(unchecked) private var headsRead = 0
    /// The cutoff was reached: the rest of the merge is being carried into `pending`.
    @exclusivity(unchecked) private var carrying = false
    @exclusivity(unchecked) private var cutoff = Int64.max
    @exclusivity(unchecked) private var sinceHousekeeping = 0
    /// The event the merge paused before (for the outputs to be handed on): given on the next call.
    @exclusivity(unchecked) private var afterHousekeeping: Event?
    /// What the reads pause at (the run's housekeeping), and whether a shutdown was asked for.
    private let pacing: ReadPacing?

    /// Events a non-final `--state` run leaves for the next one, in order.
    @exclusivity(unchecked) private(set) var pending: [Event] = []

    /// - Parameters:
    ///   - inputs: the run's inputs, in the order given.
    ///   - rereadable: per input, whether it can be read a second time.
    ///   - carriedIn: events an earlier run left pending (`--state`).
    init(_ inputs: [InputLines], rereadable: [Bool], carriedIn: [Event], budgetBytes: Int, spill: SpillDirectory,
         carryFrom: Duration?, mergeReading: InputReading, reopen: @escaping (Int) -> InputLines?,
         allowWindow: Bool = true, splitSurveyFrom: Int = SurveyHalf.smallestSplit) {
        surveyed = !allowWindow
        self.splitSurveyFrom = splitSurveyFrom
        self.inputs = inputs
        self.mergeReading = mergeReading
        self.reopen = reopen
        budget = max(budgetBytes, 64 << 10)
        self.spill = spill
        self.carryFrom = carryFrom
        pacing = mergeReading.pacing
        starts = rereadable.map { InOrderStart(rereadable: $0) }
        counted = OrderCounts(mode: .exact, inputs: inputs.count, budgetBytes: budget)
        counted.carriedIn = carriedIn.count
        for event in carriedIn {
            if event.time.microseconds > latest { latest = event.time.microseconds }
            hold(event)
        }
    }

    /// The latest event time read so far (nil before the first event): what dates a line rejected while reading.
    var latestRead: EventTime? { latest == Int64.min ? nil : EventTime(microseconds: latest) }

    var counts: OrderCounts {
        var counts = counted
        if windowMerge != nil {
            let window = merge?.counts ?? ReorderCounts(inputs: 1, windowMilliseconds: 0, bufferBytes: 0)
            counts.held = window.held
            counts.heldBytesHighWater = window.heldBytesHighWater
            counts.pending = pending.count
            return counts
        }
        counts.held = held.count
        counts.pending = pending.count
        return counts
    }

    /// Whether the run was asked to shut down (looked at while the survey reads, which nothing stops).
    private var runStopping: Bool { pacing?.stopRequested ?? false }

    func next() throws -> InputRecord? {
        if !surveyed {
            guard chooseTheWay() else { return .paused }
            // One pause more, where the runner may take the in-order input over (a pause hands the outputs on).
            if inOrder != nil, let pacing {
                pacing.due = .refill
                return .paused
            }
        }
        if let windowMerge { return try nextThroughWindow(windowMerge) }
        while collecting {
            if let merging = runMerge {
                guard try merging.proceed() else { return .paused }
                runMerge = nil
                runs = [merging.path]
                counted.runMerges += 1
            }
            guard current < inputs.count else {
                try beginMerge()
                break
            }
            let input = inputs[current]
            if stopRequested && !input.reached {
                current += 1
                continue
            }
            let record: InputRecord?
            do {
                record = try input.next()
            } catch {
                current += 1
                throw error
            }
            guard let record = consume record else {
                current += 1
                continue
            }
            switch consume record {
            case .rejected(let line):
                return .rejected(line)
            case .event(let event):
                try take(event, from: current)
            case .paused:
                return .paused
            }
        }
        if readingHeads { guard try readHeads() else { return .paused } }
        return try nextMerged()
    }

    func stop(drainRead: Bool) {
        stopRequested = true
        if let windowMerge {
            windowMerge.stop(drainRead: drainRead)
            return
        }
        // What was read is ordered and given out whatever the stop: the merge
        // reads only the run's own files and in-order starts it counted.
        if !drainRead, collecting, current < inputs.count { inputs[current].abandon() }
    }

    // MARK: - The window

    /// Surveys the inputs and merges them through a window when it fits; else leaves them to the sort.
    /// False when a read paused (called again, it goes on surveying).
    private func chooseTheWay() -> Bool {
        if surveying == nil {
            guard held.isEmpty, starts.allSatisfy(\.rereadable) else {
                surveyed = true
                return true
            }
            // 16 bytes a line recorded, and with one input up to 8 more for its runs (16 while their
            // arrays grow): at most half the budget, or all of it at the worst.
            surveying = OrderSurvey(inputs: inputs.count, mostLines: budget / 32)
        }
        while surveyIndex < inputs.count && !runStopping {
            if let half = surveyHalf, surveyInput == nil {
                // The first half is read: the second half's findings join it. While they are not
                // in, the run's housekeeping is served (a stop, the reporters) every 50 ms.
                let outcome = half.wait(upTo: pacing == nil ? nil : .milliseconds(50))
                if case .reading = outcome {
                    pacing?.due = .refill
                    return false
                }
                surveyHalf = nil
                guard case let .read(part) = outcome, surveying!.append(part, to: surveyIndex) else { return chooseTheSort() }
                surveyIndex += 1
                continue
            }
            if surveyInput == nil {
                guard let input = beginSurvey(surveyIndex) else { return chooseTheSort() }
                surveyInput = input
                surveying!.begin(input, index: surveyIndex)
            }
            switch surveying!.read(surveyInput!, index: surveyIndex) {
            case .paused: return false
            case .tooManyLines: return chooseTheSort()
            case .done:
                surveyInput = nil
                // With a second half under way, the loop waits for it first.
                if surveyHalf == nil { surveyIndex += 1 }
            }
        }
        abandonSurveyHalf()
        surveyed = true
        let survey = surveying!
        surveying = nil
        let window = survey.window
        // One input in order holds nothing but an instant's ties: nothing to play over.
        let peak = inputs.count == 1 && window == 0 ? 0 : survey.peakHeld(window: window)
        guard peak <= budget || runStopping else {
            counted.method = .sort
            return true
        }
        counted.method = .window
        counted.windowMilliseconds = window / 1000
        counted.surveyedLines = survey.lines.reduce(0) { $0 + $1.count }
        for input in inputs { input.checksumsLines = true }
        if let carryFrom, survey.latest != Int64.min { cutoff = survey.latest - carryFrom.microseconds }
        self.survey = survey
        // What the second read checks is kept; the lines, 16 bytes each, were needed only to choose.
        self.survey?.forgetLines()
        if inputs.count == 1 && window == 0 {
            let ties = InOrderTies(inputs[0], ties: survey.runs[0].ties)
            windowMerge = ties
            // Handed over at a pause (a feed without pacing never pauses).
            if cutoff == .max && pacing != nil && !runStopping && !stopRequested { inOrder = ties }
        } else {
            let merge = EventTimeMerge(inputs, window: .microseconds(window), bufferBytes: .max, exactTies: true)
            self.merge = merge
            windowMerge = merge
        }
        return true
    }

    /// Opens input `index` for the first read: a large plain file's first half, its second half
    /// then read on another thread (`SurveyHalf`); any other input whole. Nil when it cannot be read again.
    private func beginSurvey(_ index: Int) -> InputLines? {
        guard let input = reopen(index) else { return nil }
        guard !input.isInMemory, let split = SurveyHalf.splitOffset(of: input.path, smallest: splitSurveyFrom),
              let firstHalf = input.firstPart(endingAt: split) else { return input }
        // It may record what is left of the lines the survey may record; the joined halves are held to it too.
        surveyHalf = SurveyHalf(path: input.path, from: split, maxLineBytes: mergeReading.maxLineBytes,
                                mostLines: surveying!.mostLines - surveying!.recorded, findsRuns: inputs.count == 1)
        return firstHalf
    }

    /// Stops the second half's read, if one is under way (the run stops, or the inputs are sorted).
    private func abandonSurveyHalf() {
        guard let half = surveyHalf else { return }
        surveyHalf = nil
        half.cancel()
        _ = half.wait()
    }

    deinit {
        // A run that ends during the first read (an error) lets the second half's thread go.
        abandonSurveyHalf()
    }

    /// The survey gave up (too many lines, or an input could not be read again): the inputs are sorted.
    private func chooseTheSort() -> Bool {
        abandonSurveyHalf()
        surveyed = true
        surveying = nil
        surveyInput = nil
        counted.method = .sort
        return true
    }

    private func nextThroughWindow(_ merge: any InputFeed) throws -> InputRecord? {
        while let record = try merge.next() {
            // Nothing carried (a final run): every record goes on as it is, moved rather than copied.
            if cutoff == .max { return record }
            // A rejected line, or a pause.
            guard case .event(let event) = record else { return record }
            if event.time.microseconds >= cutoff {
                pending.append(event)
                continue
            }
            return .event(event)
        }
        try checkAgainstFirstRead(stopped: stopRequested || runStopping)
        return nil
    }

    /// The in-order input, for the runner to read straight through (once; nil when there is none).
    /// Once it is read to its end, the runner calls `endInOrder`.
    func takeInOrder() -> InOrderTies? {
        defer { inOrder = nil }
        return inOrder
    }

    /// After the in-order input was read to its end (or until reading stopped: `stopped`): checks it
    /// against the first read, as the end of the read through this feed does.
    func endInOrder(stopped: Bool) throws {
        try checkAgainstFirstRead(stopped: stopped || runStopping)
    }

    /// Each input the second read read whole must have the lines the first read found, and be the
    /// same file (`InputChangedWhileRead` if not). A stop ends the second read early (it may come
    /// while the first read runs): nothing to check then.
    private func checkAgainstFirstRead(stopped: Bool) throws {
        defer { survey = nil }
        guard !stopped, let survey else { return }
        for (index, input) in inputs.enumerated() where input.error == nil {
            guard input.lines == survey.lineCounts[index], input.lineChecksum == survey.checksums[index],
                  FileIdentity(of: input) == survey.identities[index] else {
                throw InputChangedWhileRead(path: input.name, detail: "the first read found \(survey.lineCounts[index]) lines, "
                                                + "the second \(input.lines), or lines of other lengths, or the file was written to")
            }
        }
    }

    // MARK: - Collecting

    private func take(_ event: consuming Event, from index: Int) throws {
        let time = event.time.microseconds
        if time > latest { latest = time }
        if starts[index].rereadable, !(starts[index].last.map { EventOrder.precedes(event, $0) } ?? false) {
            // In order in its input: read again at the merge rather than held.
            starts[index].events += 1
            starts[index].lastLine = event.origin.line
            starts[index].crc = Self.crc(starts[index].crc, event)
            starts[index].last = event
            counted.inOrderLines += 1
            return
        }
        hold(event)
        if heldBytes > budget { try spillHeld() }
    }

    private func hold(_ event: consuming Event) {
        heldBytes += ReorderBuffer.footprint(of: event)
        held.append(event)
        if heldBytes > counted.heldBytesHighWater { counted.heldBytesHighWater = heldBytes }
    }

    private func sortHeld() {
        held.sort { a, b in
            let (ta, tb) = (a.time.microseconds, b.time.microseconds)
            if ta != tb { return ta < tb }
            return EventOrder.compareTies(a, b) < 0
        }
    }

    private func spillHeld() throws {
        sortHeld()
        let writer = try SortRunWriter(path: try spill.newFile())
        for event in held { try writer.append(event) }
        try writer.finish()
        runs.append(writer.path)
        counted.spilledRuns += 1
        counted.spilledLines += writer.lines
        counted.spilledBytes += writer.compressedBytes
        held.removeAll()
        heldBytes = 0
        // Merged into one (a second pass over them) before the next line is read, so the last merge opens few files.
        if runs.count >= Self.mostRunsOpen { runMerge = try SortRunMerge(runs, into: spill, reading: mergeReading) }
    }

    /// How many runs on disk the merge reads at once: past it, they are merged into one first.
    static let mostRunsOpen = 64

    static func crc(_ crc: UInt32, _ event: borrowing Event) -> UInt32 {
        event.document.withRawBytes(0) { raw in
            raw.isEmpty ? crc : sluice_crc32(crc, raw.baseAddress!.assumingMemoryBound(to: UInt8.self), raw.count)
        }
    }

    // MARK: - Merging

    private func beginMerge() throws {
        collecting = false
        counted.sortedInMemory = held.count
        sortHeld()
        var all: [any SortedSource] = []
        for index in starts.indices where starts[index].events > 0 {
            guard let input = reopen(index) else { continue }
            all.append(InOrderStartSource(input: input, name: inputs[index].name, events: starts[index].events,
                                          lastLine: starts[index].lastLine, crc: starts[index].crc))
        }
        for run in runs { all.append(try SortRunReader(path: run, reading: mergeReading)) }
        if !held.isEmpty {
            all.append(HeldRun(held))
            held = []
            heldBytes = 0
        }
        for start in starts.indices { starts[start].last = nil }
        sources = all
        readingHeads = true
        if let carryFrom, latest != Int64.min {
            cutoff = latest - carryFrom.microseconds
        }
    }

    /// Reads each source's first event into the heads; false when a read paused.
    private func readHeads() throws -> Bool {
        while headsRead < sources.count {
            switch try sources[headsRead].next() {
            case .paused: return false
            case .event(let event): heads.insert(event, source: headsRead)
            case .end: break
            }
            headsRead += 1
        }
        readingHeads = false
        return true
    }

    private func nextMerged() throws -> InputRecord? {
        if let event = afterHousekeeping.take() { return .event(event) }
        if carrying { return try carryTheRest() }
        guard let source = heads.minSource else {
            spill.remove()
            return nil
        }
        let refill: Event?
        switch try sources[source].next() {
        case .paused: return .paused
        case .event(let event): refill = event
        case .end: refill = nil
        }
        let event = heads.replaceMin(with: refill)
        if event.time.microseconds >= cutoff {
            // From here on every event is at or after the cutoff: all are left for the next run.
            pending.append(event)
            carrying = true
            return try carryTheRest()
        }
        sinceHousekeeping += 1
        if sinceHousekeeping == 4096, let pacing {
            // The outputs are handed on while the merge reads nothing of the inputs.
            sinceHousekeeping = 0
            pacing.due = .refill
            afterHousekeeping = event
            return .paused
        }
        return .event(event)
    }

    /// Carries the rest of the merge into `pending`; nil once done, `.paused` when a read paused.
    private func carryTheRest() throws -> InputRecord? {
        while let more = heads.minSource {
            let refill: Event?
            switch try sources[more].next() {
            case .paused: return .paused
            case .event(let event): refill = event
            case .end: refill = nil
            }
            pending.append(heads.replaceMin(with: refill))
        }
        carrying = false
        spill.remove()
        return nil
    }
}

/// The merge's heads, least first by `EventOrder` (equal lines by source).
struct MergeHeads {
    private var heads: [(event: Event, source: Int)] = []

    var minSource: Int? { heads.first?.source }

    private static func less(_ a: (event: Event, source: Int), _ b: (event: Event, source: Int)) -> Bool {
        let (ta, tb) = (a.event.time.microseconds, b.event.time.microseconds)
        if ta != tb { return ta < tb }
        let order = EventOrder.compareTies(a.event, b.event)
        return order != 0 ? order < 0 : a.source < b.source
    }

    mutating func insert(_ event: consuming Event, source: Int) {
        heads.append((event, source))
        var child = heads.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.less(heads[child], heads[parent]) else { break }
            heads.swapAt(child, parent)
            child = parent
        }
    }

    /// Takes the least head and puts the same source's next event (if any) in its place.
    mutating func replaceMin(with next: consuming Event?) -> Event {
        let source = heads[0].source
        let least: Event
        if let next {
            least = heads[0].event
            heads[0] = (next, source)
        } else {
            let last = heads.removeLast()
            if heads.isEmpty { return last.event }
            least = heads[0].event
            heads[0] = last
        }
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heads.count, Self.less(heads[left], heads[smallest]) { smallest = left }
            if right < heads.count, Self.less(heads[right], heads[smallest]) { smallest = right }
            if smallest == parent { break }
            heads.swapAt(parent, smallest)
            parent = smallest
        }
        return least
    }
}

/// The run still in memory, sorted.
final class HeldRun: SortedSource {
    @exclusivity(unchecked) private var events: [Event]
    @exclusivity(unchecked) private var index = 0

    init(_ events: [Event]) { self.events = events }

    func next() throws -> SortedNext {
        guard index < events.count else {
            events = []
            return .end
        }
        defer { index += 1 }
        return .event(events[index])
    }
}

/// An input's in-order run, read again: the events that were each at or
/// after the last one taken, up to the last one counted, checked against
/// their number and CRC-32 (a file that changed between the reads fails the
/// run rather than give other events).
final class InOrderStartSource: SortedSource {
    private let input: InputLines
    private let name: String
    @exclusivity(unchecked) private var remaining: Int
    private let lastLine: Int64
    private let expectedCRC: UInt32
    @exclusivity(unchecked) private var crc: UInt32 = 0
    @exclusivity(unchecked) private var last: Event?

    init(input: InputLines, name: String, events: Int, lastLine: Int64, crc: UInt32) {
        self.input = input
        self.name = name
        remaining = events
        self.lastLine = lastLine
        expectedCRC = crc
    }

    func next() throws -> SortedNext {
        guard remaining > 0 else { return .end }
        while true {
            let record: InputRecord?
            do {
                record = try input.next()
            } catch {
                throw InputChangedWhileRead(path: name, detail: "\(error)")
            }
            switch consume record {
            case nil:
                throw InputChangedWhileRead(path: name, detail: "it ended before line \(lastLine)")
            case .rejected?:
                // Given to the rejects on the first read.
                continue
            case .paused?:
                return .paused
            case .event(let event)?:
                // Behind the run: held on the first read, and given out from there.
                if let last, EventOrder.precedes(event, last) { continue }
                remaining -= 1
                crc = ExactOrderFeed.crc(crc, event)
                if remaining == 0 {
                    input.abandon()
                    last = nil
                    guard event.origin.line == lastLine, crc == expectedCRC else {
                        throw InputChangedWhileRead(path: name, detail: "its first \(lastLine) lines are not what the first read found")
                    }
                } else {
                    last = event
                }
                return .event(event)
            }
        }
    }
}

/// An input read twice (exact order) that was not the same the second time: the run fails (exit 74).
struct InputChangedWhileRead: Error, CustomStringConvertible {
    var path: String
    var detail: String
    var description: String {
        "input \(path) changed while the run read it (\(detail)); exact order reads a file's in-order start twice: "
            + "run over files that are no longer written, or give --order window"
    }
}
