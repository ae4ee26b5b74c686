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
    private var stageBuffers: [StageOutput]
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
    /// The size of all inputs when every one is a regular file (for progress), else nil.
    private var inputBytesTotal: Int?
    /// The `--state` file (and its lock), once `run` has written the state to be committed.
    private var stateFile: StateFile?
    /// The parser's scratch space, reused for every line.
    private let parseScratch = JSONParseScratch()

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
        stageBuffers = Array(repeating: StageOutput(), count: configuration.stages.count)
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
    }

    /// Reads every input in order (`-` is stdin), then drains the stages and
    /// closes every file. Inputs that cannot be opened fail before anything is read.
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

    private func run(inputs: [String], contents: [UInt8]?) throws -> RunSummary {
        started = Monotonic.nanoseconds()
        reportersDue = reporters.map { started + UInt64(max($0.interval.nanoseconds, 1_000_000)) }
        for path in inputs where contents == nil && path != "-" && access(path, R_OK) != 0 {
            let code = errno
            _ = try? finishOutputs()
            throw InputError.cannotOpen(path: path, errno: code)
        }
        inputBytesTotal = contents.map(\.count) ?? InputSize.total(of: inputs)
        var state: StateFile?
        if let statePath = options.statePath {
            do {
                state = try restoreState(from: statePath)
            } catch {
                _ = try? finishOutputs()
                throw error
            }
        }
        var inputFailure: InputError?
        do {
            for path in inputs where !stopReading {
                do {
                    try read(path, contents: contents)
                } catch let error as InputError {
                    summary.inputs[summary.inputs.count - 1].error = error.description
                    logger.error("\(error)")
                    if inputFailure == nil { inputFailure = error }
                }
            }
            // `--watermark-end` holds for an input read to its end, not one a stop cut short.
            if let end = options.watermarkEnd, !stopReading { try advanceStages(to: end) }
            if state != nil && !options.finalRun {
                // What the stages hold goes to the state, not out as `end_of_input`.
                summary.carried = stages.reduce(0) { $0 + (($1 as? any StatefulStage)?.heldLines ?? 0) }
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
                summary.state.savedBytes = try state.write(stages: stages, sourceNames: rejects.sourceNames,
                                                            latestTime: rejects.latestTime)
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
        result.destinations = fanOut.destinationCounts(outputs: outputs)
        result.rejectFiles = outputs.rejectsReport.fileCount
        result.stages = stages.map { ($0.name, $0.counters) }
        result.stageGroups = stages.map(\.counterGroups)
        result.inputBytesTotal = inputBytesTotal
        if started > 0 { result.elapsedSeconds = Double(Monotonic.nanoseconds() - started) / 1e9 }
        return result
    }

    /// Locks the state file and restores the stages from it (a missing file is a first run).
    private func restoreState(from path: String) throws(StateError) -> StateFile {
        summary.usesState = true
        let state = try StateFile(path: path)
        let loading = Monotonic.nanoseconds()
        if let header = try state.load(into: &stages, sourceBase: Int32(rejects.sourceNames.count)) {
            rejects.sourceNames += header.sources
            rejects.latestTime = header.latestTime
            summary.carriedIn = header.carriedLines
            summary.state.loadedBytes = header.fileBytes
            summary.state.loadSeconds = Double(Monotonic.nanoseconds() - loading) / 1e9
        }
        return state
    }

    private func read(_ path: String, contents: [UInt8]? = nil) throws {
        let sourceIndex = Int32(rejects.sourceNames.count)
        rejects.sourceNames.append(path == "-" ? "<stdin>" : path)
        summary.inputs.append(RunSummary.InputCounts(path: rejects.sourceNames.last!))
        let inputIndex = summary.inputs.count - 1
        let reader = try contents.map {
            LineReader(path: path, source: MemoryByteSource($0), maxLineBytes: configuration.input.maxLineBytes)
        } ?? LineReader.open(path, maxLineBytes: configuration.input.maxLineBytes, gate: self)
        reader.beforeRead = { [unowned self] in
            try handOver()
            summary.inputs[inputIndex].bytes = reader.bytesConsumed
        }
        defer { summary.inputs[inputIndex].bytes = reader.bytesConsumed }
        while !stopReading, let line = try reader.next() {
            switch line {
            case let .line(buffer, number):
                summary.inputs[inputIndex].lines = number
                if isBlank(buffer) {
                    summary.blankLines += 1
                    continue
                }
                summary.linesIn += 1
                let origin = Origin(source: sourceIndex, line: number)
                switch Event.decode(buffer, origin: origin, scratch: parseScratch) {
                case .success(let event):
                    if event.time > rejects.latestTime { rejects.latestTime = event.time }
                    try runStage(0, event)
                case .failure(let rejection):
                    try reject(line: buffer, origin: origin, stage: "input", rejection: rejection)
                }
            case let .tooLong(preview, length, number):
                summary.inputs[inputIndex].lines = number
                summary.linesIn += 1
                let rejection = Rejection(.lineTooLong, "the line has \(length) bytes; input.max_line_bytes is \(configuration.input.maxLineBytes)")
                try reject(line: preview, origin: Origin(source: sourceIndex, line: number), stage: "input",
                           rejection: rejection, truncatedFrom: length)
            case let .cutShort(buffer, number):
                summary.inputs[inputIndex].lines = number
                if isBlank(buffer) {
                    // Only whitespace (or a `\r`) was read of it: nothing is lost, it is a blank line like any other.
                    summary.blankLines += 1
                    continue
                }
                summary.linesIn += 1
                let rejection = Rejection(.cutByShutdown, "reading stopped for a shutdown after \(buffer.count) bytes of this line")
                try reject(line: buffer, origin: Origin(source: sourceIndex, line: number), stage: "input",
                           rejection: rejection)
            }
        }
    }

    @inline(__always)
    private func isBlank(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in line where byte != 0x20 && byte != 0x09 && byte != 0x0D { return false }
        return true
    }

    // MARK: - Stages

    private func runStage(_ index: Int, _ event: consuming Event) throws {
        if index == stages.count {
            try deliver(event)
            return
        }
        // The stage's buffer is swapped out and back (moved, not copied: no retains).
        var output = StageOutput()
        swap(&output, &stageBuffers[index])
        stages[index].process(event, into: &output)
        try settle(&output, stage: index)
        output.removeAll()
        swap(&output, &stageBuffers[index])
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
            if outputs.stdoutClosed { summary.stdoutClosedEarly = true }
            fanOut.absorbStdoutLoss(into: &summary)
        }
        try outputs.finish()
    }
}
