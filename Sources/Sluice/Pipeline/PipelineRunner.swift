import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a pipeline over inputs: lines → events → stages → fan-out → outputs,
/// keeping the accounting exact. Single-threaded up to the outputs; each
/// destination compresses on its own thread.
public final class PipelineRunner {
    private let configuration: PipelineConfiguration
    private let options: RunOptions
    private var stages: [any Stage]
    private var destinations: [any Destination]
    private var routes: [RoutingRules]
    private let renames: [[[UInt8]: String]]
    private var outputs: [DestinationOutput] = []
    /// The output writing to stdout, if any (`--stdout NAME` or `path: "-"`).
    private var stdoutIndex: Int?
    /// Its sink: what stdout's reader never got.
    private var stdout: StdoutSink?
    private var counts: [RunSummary.DestinationCounts]
    /// Per destination: events it did not take, by reason (added to `counts` by `snapshot`).
    private var notTaken: [ReasonTally]
    private var rejectsOutput: DestinationOutput!
    private var stageBuffers: [StageOutput]
    private var summary = RunSummary()
    private var sourceNames: [String] = []
    /// The latest event time seen: dates the rejects files (deterministic, unlike the wall clock).
    private var latestTime = EventTime.epoch
    var stopReading = false
    private let finisher = FileFinisher()
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
    private var reports: [CompressionWorker.Report]
    private var rejectsReport = CompressionWorker.Report()
    /// What the destinations read of the event being fanned out (one for it, one for a renamed copy).
    private var encoding = EncodingContext()
    private var renamedEncoding = EncodingContext()
    /// The monotonic clock when the event being fanned out was taken up (files' `max_age`).
    private var fanOutClock: UInt64 = 0
    /// The parser's tape space, reused for every line.
    private let tapeScratch = JSONTapeScratch()

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
        reports = Array(repeating: CompressionWorker.Report(), count: configuration.destinations.count)
        stages = configuration.stages
        stageBuffers = Array(repeating: StageOutput(), count: configuration.stages.count)
        destinations = configuration.destinations.map(\.destination)
        routes = configuration.destinations.map {
            RoutingRules(patterns: $0.events, destinationName: $0.name, destinationType: $0.type.name)
        }
        counts = configuration.destinations.map { RunSummary.DestinationCounts(name: $0.name, type: $0.type.name) }
        notTaken = Array(repeating: ReasonTally(), count: configuration.destinations.count)
        renames = configuration.destinations.map(\.rename)
        let descriptors = configuration.destinations.enumerated().map { index, settings in
            DestinationDescriptor(index: index, name: settings.name, type: settings.type.name,
                                  consentCategory: settings.consentCategory)
        }
        for index in stages.indices { stages[index].prepare(destinations: descriptors) }
        if let name = options.stdoutDestination, !configuration.destinations.contains(where: { $0.name == name }) {
            throw UsageError("--stdout \(name): no destination of that name; the pipeline has " +
                configuration.destinations.map(\.name).joined(separator: ", "))
        }
        if let name = options.stdoutDestination,
           let other = configuration.destinations.first(where: { $0.target == .stdout && $0.name != name }) {
            throw UsageError("--stdout \(name): destination '\(other.name)' already writes to stdout (its path is \"-\"); "
                + "only one destination can write to stdout, or their records would be mixed")
        }
        if let memory = options.memoryOutputs {
            outputs = configuration.destinations.map {
                DestinationOutput(name: $0.name, sink: MemorySink(name: $0.name, memory: memory), rotation: $0.rotation)
            }
            rejectsOutput = DestinationOutput(name: "rejects", sink: MemorySink(name: "rejects", memory: memory),
                                              rotation: configuration.rejects.rotation)
            return
        }
        try FileSystem.makeDirectories(options.outDirectory)
        if access(options.outDirectory, W_OK) != 0 { throw OutputError.cannotCreate(path: options.outDirectory, errno: errno) }
        for settings in configuration.destinations {
            let toStdout = settings.target == .stdout || settings.name == options.stdoutDestination
            let sink: any OutputSink
            if toStdout {
                stdout = StdoutSink()
                stdoutIndex = outputs.count
                sink = stdout!
            } else {
                guard case let .files(template) = settings.target else { continue }
                sink = FileSink(template: template, worker: CompressionWorker(
                    name: settings.name, root: options.outDirectory, level: settings.gzipLevel,
                    maxAge: settings.rotation.maxAge, flushInterval: options.flushInterval, finisher: finisher,
                    openParts: openParts))
            }
            outputs.append(DestinationOutput(name: settings.name, sink: sink, rotation: settings.rotation))
            if toStdout { counts[outputs.count - 1].toStdout = true }
        }
        let rejects = configuration.rejects
        rejectsOutput = DestinationOutput(name: "rejects", sink: FileSink(template: rejects.template, worker: CompressionWorker(
            name: "rejects", root: options.outDirectory, level: rejects.gzipLevel,
            maxAge: rejects.rotation.maxAge, flushInterval: options.flushInterval, finisher: finisher,
            openParts: openParts)), rotation: rejects.rotation)
    }

    /// Reads every input in order (`-` is stdin), then drains the stages and
    /// closes every file. Inputs that cannot be opened fail before anything is read.
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
            if state != nil && !options.finalRun {
                // What the stages hold goes to the state, not out as `end_of_input`.
                summary.carried = stages.reduce(0) { $0 + (($1 as? any StatefulStage)?.heldLines ?? 0) }
            } else {
                try finishStages()
            }
            try finishOutputs()
            // Saved only once every output file is complete: a run that dies before
            // leaves the previous state, and rerunning its inputs repeats outputs
            // rather than losing the lines the state carries. Rejected lines and a
            // corrupt gzip are data problems and the state is saved; an input that
            // could not be read is a failed run, and the state is left as it was.
            if let inputFailure, !inputFailure.isDataProblem, let statePath = options.statePath {
                logger.error("--state \(statePath) is left as it was, because an input could not be read: run the same inputs again from it")
            } else if let state {
                let saving = Monotonic.nanoseconds()
                summary.state.savedBytes = try state.save(stages: stages, sourceNames: sourceNames, latestTime: latestTime)
                summary.state.saveSeconds = Double(Monotonic.nanoseconds() - saving) / 1e9
            }
        } catch {
            _ = try? finishOutputs()
            throw RunFailure(summary: snapshot(), error: error)
        }
        let summary = snapshot()
        if let inputFailure { throw RunFailure(summary: summary, error: inputFailure) }
        return summary
    }

    /// The accounting so far (complete once `run` has returned): lines held
    /// by a stage show as `inFlight`.
    public func snapshot() -> RunSummary {
        var result = summary
        var destinations = counts
        for index in destinations.indices {
            let report = outputsFinished ? reports[index] : outputs[index].report
            destinations[index].files = report.fileCount
            destinations[index].uncompressedBytes = report.uncompressedBytes
            destinations[index].compressedBytes = report.compressedBytes
            destinations[index].changes = self.destinations[index].changes
            for (reason, count) in notTaken[index].entries { destinations[index].notTaken[reason, default: 0] += count }
        }
        result.destinations = destinations
        result.rejectFiles = (outputsFinished ? rejectsReport : rejectsOutput.report).fileCount
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
        if let header = try state.load(into: &stages, sourceBase: Int32(sourceNames.count)) {
            sourceNames += header.sources
            latestTime = header.latestTime
            summary.carriedIn = header.carriedLines
            summary.state.loadedBytes = header.fileBytes
            summary.state.loadSeconds = Double(Monotonic.nanoseconds() - loading) / 1e9
        }
        return state
    }

    private func read(_ path: String, contents: [UInt8]? = nil) throws {
        let sourceIndex = Int32(sourceNames.count)
        sourceNames.append(path == "-" ? "<stdin>" : path)
        summary.inputs.append(RunSummary.InputCounts(path: sourceNames.last!))
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
                switch Event.decode(buffer, origin: origin, scratch: tapeScratch) {
                case .success(let event):
                    if event.time > latestTime { latestTime = event.time }
                    try runStage(0, event)
                case .failure(let rejection):
                    try writeReject(line: buffer, origin: origin, stage: "input", destination: nil, rejection: rejection)
                }
            case let .tooLong(preview, length, number):
                summary.inputs[inputIndex].lines = number
                summary.linesIn += 1
                let rejection = Rejection(.lineTooLong, "the line has \(length) bytes; input.max_line_bytes is \(configuration.input.maxLineBytes)")
                try writeReject(line: preview, origin: Origin(source: sourceIndex, line: number), stage: "input",
                                destination: nil, rejection: rejection, truncatedFrom: length)
            case let .cutShort(buffer, number):
                summary.inputs[inputIndex].lines = number
                if isBlank(buffer) {
                    // Only whitespace (or a `\r`) was read of it: nothing is lost, it is a blank line like any other.
                    summary.blankLines += 1
                    continue
                }
                summary.linesIn += 1
                let rejection = Rejection(.cutByShutdown, "reading stopped for a shutdown after \(buffer.count) bytes of this line")
                try writeReject(line: buffer, origin: Origin(source: sourceIndex, line: number), stage: "input",
                                destination: nil, rejection: rejection)
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
                try writeReject(event: event, stage: stages[index].name, destination: nil, rejection: rejection)
            }
        }
        if output.events.count > 1 { output.events.reverse() }
        while let event = output.events.popLast() { try runStage(index + 1, event) }
    }

    // MARK: - Fan-out

    private func deliver(_ event: Event) throws {
        // Destinations read fields off the tape: hand them a document whose
        // bytes already hold every stage's edits (stages usually leave none).
        // The event is borrowed, not copied, on the way to every destination.
        if event.document.isModified {
            var materialized = event
            materialized.document = event.document.materialized()
            try fanOut(materialized)
        } else {
            try fanOut(event)
        }
    }

    /// What one destination made of an event.
    private enum Offer {
        case notTaken, delivered
        case refused(Rejection)
    }

    private func fanOut(_ event: Event) throws {
        var deliveries = 0
        var stdoutTook = false
        var firstRefusal: Rejection?
        var withheld = false
        let integrations = RoutingRules.integrations(of: event)
        encoding.reset()
        fanOutClock = Monotonic.nanoseconds()
        for index in destinations.indices {
            guard routes[index].accepts(event, integrations: integrations) else { continue }
            if let mark = event.withheld, mark.contains(index) {
                // A stage ruled this destination out for this event (consent): counted here, not sent.
                notTaken[index].add(mark.reason.rawValue)
                withheld = true
                continue
            }
            // `rename:` comes first, so every rule of the destination (its names, Adjust's tokens) sees the new name.
            let result: Offer
            if let name = renames[index].isEmpty ? nil : renames[index][event.name] {
                renamedEncoding.reset()
                result = try offer(renamed(event, to: name), to: index, context: &renamedEncoding)
            } else {
                result = try offer(event, to: index, context: &encoding)
            }
            switch result {
            case .notTaken: break
            case .delivered:
                deliveries += 1
                if index == stdoutIndex { stdoutTook = true }
            case let .refused(rejection): if firstRefusal == nil { firstRefusal = rejection }
            }
        }
        if stdoutTook && deliveries > 1 { stdout?.markLastEventShared() }
        if deliveries > 0 {
            summary.emitted += 1
        } else if let firstRefusal {
            summary.rejected[firstRefusal.reason, default: 0] += 1
        } else if withheld, let mark = event.withheld {
            summary.dropped[mark.reason, default: 0] += 1
        } else {
            summary.dropped[.unrouted, default: 0] += 1
        }
    }

    /// Encodes the event for the destination at `index` and counts what it made of it.
    private func offer(_ event: Event, to index: Int, context: inout EncodingContext) throws -> Offer {
        if let reason = destinations[index].skipReasonInPlace(for: event) {
            notTaken[index].add(reason)
            return .notTaken
        }
        var outcome = EncodeOutcome.records(0)
        let written = try outputs[index].append(time: event.time, now: fanOutClock) { buffer in
            outcome = destinations[index].encode(event, context: &context, into: &buffer)
            if case let .records(count) = outcome { return count }
            return 0
        }
        switch outcome {
        case .records:
            guard written > 0 else { return .notTaken }
            counts[index].events += 1
            counts[index].records += written
            return .delivered
        case let .refused(rejection):
            // Every refusal is a reject record naming its destination, even
            // when another destination took the event; the line itself is
            // counted once, by the caller.
            counts[index].refused[rejection.reason.rawValue, default: 0] += 1
            try appendRejectRecord(line: event.document.bytes, origin: event.origin, stage: "destination",
                                   destination: configuration.destinations[index].name, rejection: rejection)
            return .refused(rejection)
        }
    }

    private static let eventPath = JSONPath("event")
    private static let namePath = JSONPath("name")

    /// The event as a destination with `rename:` sees it: the new name is
    /// written into the bytes, like every other change a destination sees.
    private func renamed(_ event: Event, to name: String) -> Event {
        var copy = event
        copy.name = Array(name.utf8)
        switch event.type {
        case .track: copy.document.set(PipelineRunner.eventPath, string: name)
        case .screen, .page: copy.document.set(PipelineRunner.namePath, string: name)
        default: break
        }
        copy.document = copy.document.materialized()
        return copy
    }

    // MARK: - Rejects

    private func writeReject(event: Event, stage: String, destination: String?, rejection: Rejection) throws {
        try writeReject(line: event.document.bytes, origin: event.origin, stage: stage, destination: destination, rejection: rejection)
    }

    private func writeReject<Bytes: Collection>(line: Bytes, origin: Origin, stage: String, destination: String?,
                                                rejection: Rejection, truncatedFrom: Int? = nil) throws where Bytes.Element == UInt8 {
        summary.rejected[rejection.reason, default: 0] += 1
        try appendRejectRecord(line: line, origin: origin, stage: stage, destination: destination, rejection: rejection,
                               truncatedFrom: truncatedFrom)
    }

    /// Writes one reject record without counting a line (a destination's refusal of a line counted elsewhere).
    private func appendRejectRecord<Bytes: Collection>(line: Bytes, origin: Origin, stage: String, destination: String?,
                                                       rejection: Rejection, truncatedFrom: Int? = nil) throws where Bytes.Element == UInt8 {
        let record = RejectRecord(source: sourceNames[Int(origin.source)], lineNumber: origin.line, stage: stage,
                                  destination: destination, rejection: rejection, truncatedFrom: truncatedFrom)
        _ = try rejectsOutput.append(time: latestTime) { buffer in
            record.encode(line: line, into: &buffer)
            return 1
        }
    }

    // MARK: - Outputs

    func handOver() throws {
        for output in outputs {
            try output.handOver()
            if stdout?.closed == true && !stopReading {
                stopReading = true
                summary.stdoutClosedEarly = true
            }
        }
        absorbStdoutLoss()
        try rejectsOutput.handOver()
    }

    /// Events whose records stdout's reader never got (it closed the pipe
    /// first) are not delivered there: they leave the destination's counts
    /// for `not_taken` `stdout_closed`, and a line no other destination took
    /// leaves `emitted` for `dropped` `stdout_closed`, so the balance stays exact.
    private func absorbStdoutLoss() {
        guard let stdout, let index = stdoutIndex else { return }
        let loss = stdout.takeLoss()
        guard loss.events > 0 else { return }
        counts[index].events -= loss.events
        counts[index].records -= loss.records
        counts[index].notTaken[DropReason.stdoutClosed.rawValue, default: 0] += loss.events
        summary.emitted -= loss.lines
        if loss.lines > 0 { summary.dropped[.stdoutClosed, default: 0] += loss.lines }
    }

    /// Closes and renames every file of every destination and the rejects
    /// (SIGHUP); the next records start new files.
    func rotateAllOutputs() throws {
        for output in outputs { try output.rotateAll() }
        try rejectsOutput.rotateAll()
    }

    private var outputsFinished = false

    private func finishOutputs() throws {
        guard !outputsFinished else { return }
        var firstError: Error?
        for (index, output) in outputs.enumerated() {
            do {
                reports[index] = try output.finish()
            } catch {
                reports[index] = output.report
                if firstError == nil { firstError = error }
            }
            if index == stdoutIndex && stdout?.closed == true { summary.stdoutClosedEarly = true }
        }
        absorbStdoutLoss()
        do {
            rejectsReport = try rejectsOutput.finish()
        } catch {
            rejectsReport = rejectsOutput.report
            if firstError == nil { firstError = error }
        }
        outputsFinished = true
        finisher.shutdown()
        if let firstError { throw firstError }
    }
}
