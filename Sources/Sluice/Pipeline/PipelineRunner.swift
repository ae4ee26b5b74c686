// Unsafe code: the stages' outputs are an allocated buffer
// (`stageBuffers`), so one stage's output can be read while the next one's is
// written without an array's swap and two releases per stage and event on the
// reading thread. The runner owns it (freed in deinit), one per stage, and
// indexes only below the stage count.

import Logging
import SluiceJSON

/// Runs a pipeline over inputs: lines → events → stages → fan-out → outputs,
/// keeping the accounting exact. Single-threaded up to the outputs; each
/// destination compresses on its own thread.
///
/// This is the order of things (`read`, below): take a line from the feed,
/// run its event through the stages one by one, hand what comes out to the
/// fan-out (`FanOut/`), and count every line once as emitted, merged,
/// rejected or dropped. When a read pauses (`ReadPacing`), the loop does the
/// housekeeping due before it asks again: the outputs handed over, signals
/// and timers served, a pipe waited for (`RunHousekeeping.swift`). The
/// reading never calls the runner. How a run is put together is in
/// `RunSetup.swift`; how it ends (the stages drained, the outputs finished,
/// the state written) in `RunEnd.swift`.
public final class PipelineRunner {
    let configuration: PipelineConfiguration
    let options: RunOptions
    @exclusivity(unchecked) var stages: [any Stage]
    /// One reusable output per stage, so an event's trip through the stages allocates nothing.
    /// Reached through a pointer: a stage's output is handed on while the next stage's is in
    /// use, which an array's element would allow only swapped out and back (a release of two
    /// empty arrays per stage and event).
    private let stageBuffers: UnsafeMutablePointer<StageOutput>
    /// Every destination's output and the rejects' (the housekeeping rotates them on SIGHUP).
    let outputs: OutputSet
    let fanOut: FanOut
    let rejects: RejectWriter
    @exclusivity(unchecked) var summary = RunSummary()
    let logger: Logger
    /// Requests from other threads (signals): stop, rotate, stats.
    let control: RunControl
    /// What is told at intervals while the run goes on (metrics file, progress line).
    @exclusivity(unchecked) var reporters: ReporterSchedule
    /// Why reading stops before the inputs end, once it must (the inputs' reads see it in `pacing`).
    @exclusivity(unchecked) var readingStop: ReadingStop? {
        didSet {
            pacing.readingStopped = readingStop != nil
            pacing.stopRequested = readingStop == .requested
        }
    }
    /// What the inputs' reads pause at, with what is due, and where the runner says reading must stop.
    let pacing = ReadPacing()
    @exclusivity(unchecked) var started: UInt64 = 0
    /// The outputs were finished (or failed): a record not in a finished file now never will be.
    @exclusivity(unchecked) var outputsFinished = false
    /// The `--state` file (and its lock), once `run` has written the state to be committed.
    @exclusivity(unchecked) var stateFile: StateFile?
    /// The parser's scratch space, reused for every line.
    let parseScratch = JSONParseScratch()
    /// Where the lines come from, once the run has started.
    @exclusivity(unchecked) var feed: (any InputFeed)?

    /// Checks the options against the configuration and starts the output threads.
    /// - Parameters:
    ///   - logger: where warnings and errors go (stderr lines in the CLI).
    ///   - control: how signals (or a caller) stop the run, rotate its files, ask for stats.
    ///   - reporters: told the stats so far at their interval while reading.
    ///   - openParts: records the `.part` files not yet renamed.
    public init(configuration: PipelineConfiguration, options: RunOptions,
                logger: Logger = Logger(label: "sluice", factory: { _ in SwiftLogNoOpLogHandler() }),
                control: RunControl = RunControl(), reporters: [any RunReporter] = [],
                openParts: OpenPartFiles = OpenPartFiles()) throws {
        self.configuration = configuration
        self.options = options
        self.logger = logger
        self.control = control
        self.reporters = ReporterSchedule(reporters)
        stages = configuration.stages
        let rejectScrubbers = Self.prepare(&stages, for: configuration)
        outputs = try OutputSet(configuration: configuration, options: options, openParts: openParts)
        rejects = RejectWriter(output: outputs.rejects, scrubbers: rejectScrubbers)
        fanOut = FanOut(destinations: configuration.destinations, outputs: outputs, rejects: rejects)
        // Last, once nothing can throw: deinit frees it.
        stageBuffers = .allocate(capacity: configuration.stages.count)
        stageBuffers.initialize(repeating: StageOutput(), count: configuration.stages.count)
    }

    deinit {
        stageBuffers.deinitialize(count: configuration.stages.count)
        stageBuffers.deallocate()
    }

    /// Reads the inputs (`-` is stdin, a directory its files in name order):
    /// one, or several with `--concat`, one after another; several merged in
    /// event time (`EventTimeMerge`). Then drains the stages and closes every
    /// file. Inputs that cannot be opened fail before anything is read.
    /// With `--state`, the state is written but only put in place by `commitState`.
    ///
    /// A stop request (SIGTERM, SIGINT) ends reading at the next read: what
    /// was read is processed, the stages drain as at the end of input (with
    /// `--state`: what they hold is carried to the state), and every file is
    /// closed and renamed, so the summary is balanced.
    /// Throws `RunFailure` (with the summary so far) on an input or output error.
    public func run(inputs: [String]) throws -> RunSummary {
        try run(inputs: inputs.isEmpty ? ["-"] : inputs, contents: nil)
    }

    /// Runs over NDJSON already in memory (a test case's input), called `name`
    /// in the rejects and the stats; the rest is the same run.
    public func run(bytes: [UInt8], named name: String) throws -> RunSummary {
        try run(inputs: [name], contents: bytes)
    }

    private func run(inputs arguments: [String], contents: [UInt8]?) throws -> RunSummary {
        let (paths, state, pendingIn) = try begin(inputs: arguments, contents: contents)
        var inputFailure: InputError?
        do {
            let feed = makeFeed(paths: paths, contents: contents, pendingIn: pendingIn)
            self.feed = feed
            // Called with the concrete type, so the read loop is specialized for each.
            if let exact = feed as? ExactOrderFeed {
                inputFailure = try readExact(exact)
            } else {
                // Lines an exact-order run left pending go first (they are the oldest).
                for event in pendingIn { try runStage(0, event) }
                if let merge = feed as? EventTimeMerge {
                    inputFailure = try read(merge)
                    warnIfTheReorderBufferWasFull(merge)
                } else {
                    inputFailure = try read(feed as! ConcatenatedInputs)
                }
            }
            try end(state: state, inputFailure: inputFailure)
        } catch {
            _ = try? finishOutputs()
            throw RunFailure(summary: snapshot(), error: error)
        }
        let summary = snapshot()
        if let inputFailure { throw RunFailure(summary: summary, error: inputFailure) }
        return summary
    }

    // MARK: - The loop

    /// Hands every line the feed gives to the stages (or the rejects), until
    /// it has none left or hands its lines over to another feed (`handsOver`);
    /// returns the first input error (the other inputs go on).
    /// When the feed pauses, does the housekeeping due and asks again.
    /// Once reading must stop, the feed is told so (after a line, not while
    /// one is being read) and still gives what it holds.
    /// `handsOver`, asked at each pause: the feed hands its lines over to another (the read ends there).
    private func read<Feed: InputFeed>(_ feed: Feed, handsOver: (() -> Bool)? = nil) throws -> InputError? {
        var failure: InputError?
        var toldToStop = false
        // The feed's last answer was a pause: it is in the middle of a read, and is told to stop only after it.
        var paused = false
        while true {
            if stopReading && !toldToStop && !paused {
                toldToStop = true
                feed.stop(drainRead: stopping)
            }
            let record: InputRecord?
            do {
                record = try feed.next()
            } catch let error as InputError {
                paused = false
                logger.error("\(error)")
                if failure == nil { failure = error }
                continue
            }
            paused = false
            // Consumed, not copied: the event moves on to the stages without a retain.
            switch consume record {
            case nil:
                return failure
            case .paused?:
                // Between reads: the outputs handed over, signals and reporters served, a pipe waited for.
                paused = true
                try housekeep()
                if let handsOver, handsOver() { return failure }
            case .event(let event)?:
                if event.time > rejects.latestTime { rejects.latestTime = event.time }
                try runStage(0, event)
            case .rejected(let line)?:
                // Exact order rejects lines as it reads them, before any event goes on: dated by the latest read.
                if let read = (feed as? ExactOrderFeed)?.latestRead, read > rejects.latestTime { rejects.latestTime = read }
                try reject(line: line.bytes, origin: line.origin, stage: "input", rejection: line.rejection,
                           truncatedFrom: line.truncatedFrom)
            }
        }
    }

    /// Exact order's reads through its feed: the first read, then the second. One input the first
    /// read found in order, with nothing to carry on, is read straight through its `InOrderTies`
    /// (a call a line fewer), then checked against the first read.
    private func readExact(_ exact: ExactOrderFeed) throws -> InputError? {
        var inOrder: InOrderTies?
        let failure = try read(exact, handsOver: {
            inOrder = exact.takeInOrder()
            return inOrder != nil
        })
        guard let inOrder else { return failure }
        let second = try read(inOrder)
        try exact.endInOrder(stopped: stopReading)
        return failure ?? second
    }

    /// Runs an event through the stages from `index` on, and what comes out to the fan-out.
    func runStage(_ index: Int, _ event: consuming Event) throws {
        if index == stages.count {
            try deliver(event)
            return
        }
        let output = stageBuffers + index
        defer { output.pointee.removeAll() }
        stages[index].process(event, into: &output.pointee)
        try settle(&output.pointee, stage: index)
    }

    /// Hands an event that came through every stage to the fan-out, and counts what became of its line.
    /// Kept out of line so `runStage`, which recurses through the stages, stays small enough to be
    /// inlined into `settle` (inlined here, this switch cost 0.25% of the reading thread's instructions).
    @inline(never)
    private func deliver(_ event: Event) throws {
        switch try fanOut.deliver(event) {
        case .emitted: summary.emitted += 1
        case let .rejected(reason): summary.rejected[reason, default: 0] += 1
        case let .dropped(reason): summary.dropped[reason, default: 0] += 1
        }
    }

    /// Accounts for what a stage settled and hands its events on, in order,
    /// moving each out of `output` (an event is not copied between stages).
    func settle(_ output: inout StageOutput, stage index: Int) throws {
        for settled in output.settled {
            switch settled {
            case .merged:
                summary.merged += 1
            case let .dropped(_, reason):
                summary.dropped[reason, default: 0] += 1
            case let .rejected(event, rejection):
                try reject(line: event.document.bytes, origin: event.origin, stage: stages[index].name, stageIndex: index, rejection: rejection)
            }
        }
        if output.events.count > 1 { output.events.reverse() }
        while let event = output.events.popLast() { try runStage(index + 1, event) }
    }

    /// Counts a line as rejected and writes its reject record.
    private func reject<Bytes: Collection>(line: Bytes, origin: Origin, stage: String, stageIndex: Int? = nil, rejection: Rejection,
                                           truncatedFrom: Int? = nil) throws where Bytes.Element == UInt8 {
        summary.rejected[rejection.reason, default: 0] += 1
        try rejects.write(line: line, origin: origin, stage: stage, stageIndex: stageIndex, rejection: rejection, truncatedFrom: truncatedFrom)
    }
}
