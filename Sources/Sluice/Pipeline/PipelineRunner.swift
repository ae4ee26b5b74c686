import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SluiceJSON

/// Runs a pipeline over inputs: lines → events → stages → fan-out → outputs,
/// keeping the accounting exact. Single-threaded up to the outputs; each
/// destination compresses on its own thread.
///
/// This is the order of things: read a line, decode it, run it through the
/// stages one by one, hand what comes out to the fan-out (`FanOut/`), and
/// count every line once as emitted, merged, rejected or dropped. Between
/// reads the outputs are handed over (`OutputSet`) and signals served
/// (`RunHousekeeping.swift`); at the end the stages drain and the outputs finish.
public final class PipelineRunner {
    private let configuration: PipelineConfiguration
    private let options: RunOptions
    private var stages: [any Stage]
    /// One reusable output per stage, so an event's trip through the stages allocates nothing.
    /// Reached through a pointer: a stage's output is handed on while the next stage's is in
    /// use, which an array's element would allow only swapped out and back (a release of two
    /// empty arrays per stage and event).
    private let stageBuffers: UnsafeMutablePointer<StageOutput>
    /// Every destination's output and the rejects' (the housekeeping rotates them on SIGHUP).
    let outputs: OutputSet
    private let fanOut: FanOut
    private let rejects: RejectWriter
    private var summary = RunSummary()
    var stopReading = false
    let logger: Logger
    /// Requests from other threads (signals): stop, rotate, stats.
    let control: RunControl
    /// What is told at intervals while the run goes on (metrics file, progress line).
    let reporters: [any RunReporter]
    /// When each reporter is next due (monotonic nanoseconds).
    var reportersDue: [UInt64] = []
    /// Reporters whose failure was logged already (once each: a run may last days).
    var reportersWarned: Set<Int> = []
    /// Set once a stop was requested: every later read stops at once.
    var stopping = false
    private var started: UInt64 = 0
    /// The outputs were finished (or failed): a record not in a finished file now never will be.
    private var outputsFinished = false
    /// The size of all inputs when every one is a regular file (for progress), else nil.
    private var inputBytesTotal: Int?
    /// The `--state` file (and its lock), once `run` has written the state to be committed.
    private var stateFile: StateFile?
    /// The parser's scratch space, reused for every line.
    private let parseScratch = JSONParseScratch()
    /// Where the lines come from, once the run has started.
    private var feed: (any InputFeed)?

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
        self.reporters = reporters
        stages = configuration.stages
        let descriptors = configuration.destinations.enumerated().map { index, settings in
            DestinationDescriptor(index: index, name: settings.name, type: settings.type.name,
                                  consentCategory: settings.consentCategory)
        }
        var rejectScrubbers: [(stage: Int, scrubber: any RejectScrubber)] = []
        for index in stages.indices {
            stages[index].prepare(destinations: descriptors)
            if !configuration.rejects.keepRaw, let scrubber = stages[index].makeRejectScrubber() { rejectScrubbers.append((index, scrubber)) }
        }
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
        started = Monotonic.nanoseconds()
        reportersDue = reporters.map { started + UInt64(max($0.interval.nanoseconds, 1_000_000)) }
        let paths: [String]
        do {
            paths = try contents == nil ? InputList.resolve(arguments) : arguments
        } catch {
            _ = try? finishOutputs()
            throw error
        }
        inputBytesTotal = contents.map(\.count) ?? InputSize.total(of: paths)
        var state: StateFile?
        var pendingIn: [Event] = []
        if let statePath = options.statePath {
            do {
                (state, pendingIn) = try restoreState(from: statePath)
            } catch {
                _ = try? finishOutputs()
                throw error
            }
        }
        var inputFailure: InputError?
        do {
            let feed = makeFeed(paths: paths, contents: contents, pendingIn: pendingIn)
            self.feed = feed
            // Called with the concrete type, so the read loop is specialized for each.
            if let exact = feed as? ExactOrderFeed {
                inputFailure = try read(exact)
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
            let pendingOut = (feed as? ExactOrderFeed)?.pending ?? []
            // `--watermark-end` holds for an input read to its end, not one a stop cut short.
            if let end = options.watermarkEnd, !stopReading { try advanceStages(to: end) }
            if state != nil && !options.finalRun {
                // What the stages hold goes to the state, not out as `end_of_input`.
                summary.carried = stages.reduce(0) { $0 + (($1 as? any StatefulStage)?.heldLines ?? 0) } + pendingOut.count
            } else {
                try finishStages()
            }
            try finishOutputs()
            // Written only once every output file is complete, and put in place by
            // `commitState` once the stats are written too: a run that dies or fails
            // before leaves the previous state, and rerunning its inputs repeats
            // outputs rather than losing the lines the state carries. Rejected lines
            // and a corrupt gzip are data problems and the state is written; an input
            // that could not be read is a failed run, and the state is left as it was.
            if let inputFailure, !inputFailure.isDataProblem, let statePath = options.statePath {
                logger.error("--state \(statePath) is left as it was, because an input could not be read: run the same inputs again from it")
            } else if let state {
                let saving = Monotonic.nanoseconds()
                summary.state.savedBytes = try state.write(stages: stages, memories: fanOut.deviceMemories, pendingLines: pendingOut,
                                                            sourceNames: rejects.sourceNames, latestTime: rejects.latestTime)
                summary.state.saveSeconds = Double(Monotonic.nanoseconds() - saving) / 1e9
                stateFile = state
            }
        } catch {
            _ = try? finishOutputs()
            throw RunFailure(summary: snapshot(), error: error)
        }
        let summary = snapshot()
        if let inputFailure { throw RunFailure(summary: summary, error: inputFailure) }
        return summary
    }

    /// Whether `run` wrote a `--state` that waits for `commitState` or `discardState`.
    public var holdsUnsavedState: Bool { stateFile?.isPending ?? false }

    /// Puts the state `run` wrote in place of the `--state` file: the caller
    /// calls it once the run's stats are written, so a run that fails before
    /// (or is never committed) leaves the previous state for a retry.
    public func commitState() throws(StateError) {
        try stateFile?.commit()
    }

    /// Drops the state `run` wrote: the `--state` file stays as the run found it.
    public func discardState() {
        stateFile?.discard()
    }

    /// The accounting so far (complete once `run` has returned): lines held
    /// by a stage show as `inFlight`.
    public func snapshot() -> RunSummary {
        var result = summary
        result.destinations = fanOut.destinationCounts(outputs: outputs, finished: outputsFinished)
        let rejectsReport = outputs.rejectsReport
        result.rejectFiles = rejectsReport.fileCount
        if outputsFinished, let inFiles = rejectsReport.finishedRecords {
            result.rejectRecordsNotDelivered = max(0, rejects.records - inFiles)
        }
        (result.files, result.filesNotListed) = outputs.finishedFiles
        result.stages = stages.map { ($0.name, $0.counters) }
        result.stageGroups = stages.map(\.counterGroups)
        result.inputBytesTotal = inputBytesTotal
        result.filesRoot = options.writeRoot
        if let feed {
            let reached = feed.inputs.filter(\.reached)
            result.linesIn = reached.reduce(0) { $0 + $1.nonBlankLines }
            result.blankLines = reached.reduce(0) { $0 + $1.blankLines }
            result.inputs = reached.map(\.counts)
            result.reorder = (feed as? EventTimeMerge)?.counts
            if let exact = feed as? ExactOrderFeed {
                result.order = exact.counts
            } else {
                result.order = RunSummary.OrderCounts(mode: feed is EventTimeMerge ? .window : .asRead, inputs: feed.inputs.count,
                                                      budgetBytes: configuration.input.reorderBufferBytes)
            }
        }
        if started > 0 { result.elapsedSeconds = Double(Monotonic.nanoseconds() - started) / 1e9 }
        return result
    }

    /// Locks the state file and restores the stages from it (a missing file is a first run);
    /// returns it and the lines an exact-order run left pending in it.
    private func restoreState(from path: String) throws(StateError) -> (StateFile, [Event]) {
        summary.usesState = true
        let state = try StateFile(path: path)
        let loading = Monotonic.nanoseconds()
        var pending: [Event] = []
        if let header = try state.load(into: &stages, memories: fanOut.deviceMemories, sourceBase: Int32(rejects.sourceNames.count)) {
            for pendingLine in header.pending {
                let origin = pendingLine.origin
                let decoded = pendingLine.line.withUnsafeBufferPointer { Event.decode($0, origin: origin, scratch: parseScratch) }
                guard case .success(let event) = decoded else {
                    throw .corrupt(path: path, detail: "a pending line (from line \(origin.line) of an earlier input) is not an event")
                }
                pending.append(event)
            }
            rejects.sourceNames += header.sources
            rejects.latestTime = header.latestTime
            summary.carriedIn = header.carriedLines + pending.count
            summary.state.loadedBytes = header.fileBytes
            summary.state.restoredDevices = header.restoredDevices
            summary.state.loadSeconds = Double(Monotonic.nanoseconds() - loading) / 1e9
        }
        return (state, pending)
    }

    // MARK: - Reading

    /// The inputs in exact order (`ExactOrderFeed`, `InputOrder.resolve`); else one
    /// input, or `--concat`: the inputs one after another, as given; else several
    /// merged in event time over the window (by default the largest `lateness` of
    /// the stages, 5m without).
    private func makeFeed(paths: [String], contents: [UInt8]?, pendingIn: [Event]) -> any InputFeed {
        let order = options.concatenateInputs ? .window : InputOrder.resolve(options.order, paths: paths, inMemory: contents != nil)
        let merged = paths.count >= 2 && !options.concatenateInputs
        // Merged inputs are all open at once (exact order's window merge too): their buffers share one budget.
        let reading = InputReading(maxLineBytes: configuration.input.maxLineBytes, gate: self,
                                   beforeRead: { [unowned self] in try handOver() }, scratch: parseScratch,
                                   buffers: merged ? .forOpenInputs(paths.count) : .single)
        let base = Int32(rejects.sourceNames.count)
        let inputs = paths.enumerated().map { index, path in
            contents.map { InputLines(bytes: $0, named: path, source: base + Int32(index), reading: reading) }
                ?? InputLines(path: path, source: base + Int32(index), reading: reading)
        }
        rejects.sourceNames += inputs.map(\.name)
        let window = options.reorderWindow ?? stages.compactMap(\.toleratedLateness).max() ?? Self.defaultReorderWindow
        if order == .exact {
            // What is read after the inputs (sorted runs, in-order starts read again) serves
            // signals and hands outputs over, but is read to its end whatever the stop.
            var again = reading
            again.gate = HousekeepingGate(self)
            again.buffers = .forOpenInputs(16)
            let root = options.temporaryDirectory ?? (options.memoryOutputs == nil ? options.outDirectory : GzipMemberHold.temporaryDirectory)
            SpillDirectory.removeAbandoned(under: root)
            return ExactOrderFeed(
                inputs, rereadable: paths.map { contents != nil || InputOrder.isRegularFile($0) }, carriedIn: pendingIn,
                budgetBytes: configuration.input.reorderBufferBytes, spill: SpillDirectory(root: root),
                carryFrom: options.statePath != nil && !options.finalRun ? window : nil, mergeReading: again,
                reopen: { index in
                    contents.map { InputLines(bytes: $0, named: paths[index], source: base + Int32(index), reading: again) }
                        ?? InputLines(path: paths[index], source: base + Int32(index), reading: again)
                }, runStopping: { [unowned self] in stopping })
        }
        if !merged {
            return ConcatenatedInputs(inputs, mayBeginNext: { [unowned self] in !stopReading })
        }
        return EventTimeMerge(inputs, window: window, bufferBytes: configuration.input.reorderBufferBytes)
    }

    /// The reorder window without `--reorder-window` when no stage declares a lateness.
    static let defaultReorderWindow = Duration.seconds(5 * 60)

    /// Hands every line the feed gives to the stages (or the rejects), until
    /// it has none left; returns the first input error (the other inputs go on).
    /// Once reading must stop, the feed is told so and still gives what it holds.
    private func read<Feed: InputFeed>(_ feed: Feed) throws -> InputError? {
        var failure: InputError?
        var toldToStop = false
        while true {
            if stopReading && !toldToStop {
                toldToStop = true
                feed.stop(drainRead: stopping)
            }
            let record: InputRecord?
            do {
                record = try feed.next()
            } catch let error as InputError {
                logger.error("\(error)")
                if failure == nil { failure = error }
                continue
            }
            // Consumed, not copied: the event moves on to the stages without a retain.
            switch consume record {
            case nil:
                return failure
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

    private func warnIfTheReorderBufferWasFull(_ merge: EventTimeMerge) {
        let early = merge.counts.letOutFull
        guard early > 0 else { return }
        let room = configuration.input.reorderBufferBytes
        logger.warning("the reorder buffer was full (input.reorder_buffer: \(room) bytes): \(early) lines went on before their turn; give it more room, or a shorter --reorder-window")
    }

    // MARK: - Stages

    private func runStage(_ index: Int, _ event: consuming Event) throws {
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

    /// How many held lines a stage lets out per step at the end of input.
    static let finishStep = 4096

    private func finishStages() throws {
        for index in stages.indices {
            var done = false
            while !done {
                var output = StageOutput()
                done = stages[index].finish(into: &output, limit: Self.finishStep)
                try settle(&output, stage: index)
            }
        }
    }

    /// `--watermark-end`: event time reaches `end` in every stage, in pipeline
    /// order (what one lets out goes through the later ones before the next
    /// moves on), as if an event at `end` had just been read. A stage already
    /// past `end` stays where it is: the end is the later of `end` and the input's own.
    private func advanceStages(to end: EventTime) throws {
        if rejects.latestTime.milliseconds > end.milliseconds {
            // (Within the same millisecond it is not worth a word: an epoch-ms TIME from a maximum cut to ms.)
            logger.warning("--watermark-end \(end) is earlier than the input's latest event time \(rejects.latestTime): the input's own end holds")
        }
        if end > rejects.latestTime { rejects.latestTime = end }
        for index in stages.indices {
            var output = StageOutput()
            stages[index].advance(to: end, into: &output)
            try settle(&output, stage: index)
        }
    }

    /// Accounts for what a stage settled and hands its events on, in order,
    /// moving each out of `output` (an event is not copied between stages).
    private func settle(_ output: inout StageOutput, stage index: Int) throws {
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

    // MARK: - Rejects and outputs

    /// Counts a line as rejected and writes its reject record.
    private func reject<Bytes: Collection>(line: Bytes, origin: Origin, stage: String, stageIndex: Int? = nil, rejection: Rejection,
                                           truncatedFrom: Int? = nil) throws where Bytes.Element == UInt8 {
        summary.rejected[rejection.reason, default: 0] += 1
        try rejects.write(line: line, origin: origin, stage: stage, stageIndex: stageIndex, rejection: rejection, truncatedFrom: truncatedFrom)
    }

    /// Hands every output's pending records on (before each read); stops
    /// reading once stdout's reader went away.
    func handOver() throws {
        try outputs.handOver()
        if outputs.stdoutClosed && !stopReading {
            stopReading = true
            summary.stdoutClosedEarly = true
        }
        fanOut.absorbStdoutLoss(into: &summary)
    }

    /// Finishes every output (only the first call does anything) and settles what stdout's reader missed.
    private func finishOutputs() throws {
        defer {
            outputsFinished = true
            if outputs.stdoutClosed { summary.stdoutClosedEarly = true }
            fanOut.absorbStdoutLoss(into: &summary)
        }
        try outputs.finish()
    }
}
