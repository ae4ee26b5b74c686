import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything `sluice run` was asked to do.
public struct RunRequest: Sendable {
    /// `--pipeline`: nil runs the built-in default pipeline.
    public var pipelinePath: String?
    /// The inputs in order; `-` (or none) is stdin.
    public var inputs: [String] = []
    public var options = RunOptions()
    /// `--stats FILE`: the accounting as JSON, written atomically at the end.
    public var statsPath: String?
    /// `--metrics FILE`: the accounting as a Prometheus textfile, every flush interval and at the end.
    public var metricsPath: String?
    /// `--progress` / `--no-progress`; nil: only when stderr is a terminal.
    public var progress: Bool?
    /// `--strict`: exit 65 if any line was rejected.
    public var strict = false
    /// `--quiet`: no summary line.
    public var quiet = false
    /// `--shutdown-timeout`: how long the drain after SIGTERM/SIGINT may take (default 30s).
    public var shutdownTimeout: Duration = .seconds(30)

    public init() {}
}

extension ExitStatus {
    public static func forInputError(_ error: InputError) -> Int32 {
        switch error {
        case .cannotOpen: return noInput
        case .readFailed: return ioError
        case .corruptGzip: return dataError
        }
    }

    /// A state file that cannot be trusted is a data error: never a silent fresh start.
    public static func forStateError(_ error: StateError) -> Int32 {
        switch error {
        case .notAStateFile, .incompatibleVersion, .corrupt, .differentPipeline: return dataError
        case .cannotRead: return noInput
        case let .cannotWrite(_, _, atEnd): return atEnd ? ioError : cannotCreate
        case .locked: return stateInUse
        }
    }

    public static func forOutputError(_ error: OutputError) -> Int32 {
        if case .cannotCreate = error { return cannotCreate }
        return ioError
    }
}

/// `sluice run` as one library call: signals, the pipeline file, the run,
/// stats, metrics, progress and the summary, mapped to an exit status. The
/// executable only parses arguments and calls this.
public enum RunProgram {
    /// Runs the request and returns the process's exit status.
    /// - Parameters:
    ///   - logger: where messages go (one line each, stderr in the CLI).
    ///   - console: the stderr writer the progress line shares with the logger.
    public static func run(_ request: RunRequest, logger: Logger, console: StderrConsole) -> Int32 {
        let advice = request.options.stagingDirectory.map { "nothing was moved into place; the next run with --staging \($0) starts afresh" }
            ?? "run `sluice recover \(request.options.outDirectory)`"
        guard let signals = ProcessSignals.start(shutdownTimeout: request.shutdownTimeout, leftoverAdvice: advice, logger: logger) else {
            return ExitStatus.ioError
        }
        let (control, openParts, listener) = (signals.control, signals.openParts, signals.listener)

        // Stats or metrics written into the stream of records would corrupt it for its reader.
        if request.metricsPath == "-" {
            logger.error("--metrics - : the metrics file is rewritten while the run goes on; give it a file")
            return ExitStatus.usage
        }
        let reports = RunReports(statsPath: request.statsPath, metricsPath: request.metricsPath, interval: request.options.flushInterval,
                                 shard: request.options.shard)
        // A report that cannot be written fails the run now, not after an hour of work.
        if let problem = reports.problem() {
            logger.error("\(problem)")
            return ExitStatus.cannotCreate
        }
        // A forced exit (75) writes them too, with the counts the run last reported.
        listener.onForcedExit { [reports] message in reports.writeAtForcedExit(status: SignalListener.forcedExitStatus, error: message) }

        let configuration: PipelineConfiguration
        do {
            configuration = try request.pipelinePath.map { try PipelineConfiguration.load(path: $0, awaitReadable: { control.awaitReadable(fd: $0) }) }
                ?? PipelineConfiguration.builtIn()
        } catch is InputStopped {
            // A FIFO given as --pipeline had no writer yet: the signal is served now, nothing was read.
            let stop = control.stopRequested ?? .terminate
            let message = "\(stop.signalName) while waiting for --pipeline \(request.pipelinePath ?? "")'s writer: nothing was read"
            logger.error("\(message)")
            return reports.failed(stop.exitStatus, error: message, logger: logger)
        } catch let error as ConfigurationError {
            for line in error.description.split(separator: "\n") { logger.error("\(line)") }
            return reports.failed(ExitStatus.config, error: error.description, logger: logger)
        } catch {
            logger.error("\(error)")
            return reports.failed(ExitStatus.config, error: "\(error)", logger: logger)
        }

        for warning in configuration.warnings { logger.warning("\(warning)") }

        if request.options.stdoutDestination != nil || configuration.destinations.contains(where: { $0.target == .stdout }) {
            for (flag, path) in [("--stats", request.statsPath), ("--metrics", request.metricsPath)] {
                if let path, path == "-" || FileSystem.isOpen(path, as: STDOUT_FILENO) {
                    logger.error("\(flag) \(path) is the standard output, where the records go: give it a file")
                    return ExitStatus.usage
                }
            }
        }

        // A sharded run whose paths lack {shard} is refused before anything is read.
        let shardFindings = configuration.shardLint(shard: request.options.shard)
        for finding in shardFindings {
            let text = "\(finding.file):\(finding.line):\(finding.column): \(finding.message)"
            switch finding.severity {
            case .note: logger.info("\(text)")
            case .warning: logger.warning("\(text)")
            case .error: logger.error("\(text)")
            }
        }
        if let refused = shardFindings.first(where: { $0.severity == .error }) {
            let text = "\(refused.file):\(refused.line):\(refused.column): \(refused.message)"
            return reports.failed(ExitStatus.config, error: text, logger: logger)
        }
        return execute(request, configuration: configuration, control: control, openParts: openParts, reports: reports,
                       console: console, logger: logger)
    }

    /// The run itself, shared by `sluice run` (once) and `sluice serve` (each
    /// epoch): the inputs checked, the staging directory claimed, the pipeline
    /// run, its end (staged or not: the files, `--stats` and `--metrics`, the
    /// state) and the summary line; returns the exit status. `commit`: serve's
    /// commit record around a staged end's moves (`StagedRunEnd`).
    static func execute(_ request: RunRequest, configuration: PipelineConfiguration, control: RunControl, openParts: OpenPartFiles,
                        reports: RunReports, console: StderrConsole?, logger: Logger, commit: StagedCommitHooks? = nil) -> Int32 {
        // A missing input fails the run before anything is created (no empty --out left behind).
        do {
            _ = try InputList.resolve(request.inputs)
        } catch {
            logger.error("\(error)")
            return reports.failed(ExitStatus.forInputError(error), error: "\(error)", logger: logger)
        }
        var staging: StagingArea?
        if let directory = request.options.stagingDirectory {
            do {
                staging = try StagingArea(directory: directory, outDirectory: request.options.outDirectory, logger: logger)
            } catch {
                logger.error("\(error)")
                return reports.failed(error.exitStatus, error: "\(error)", logger: logger)
            }
        }
        if StdinHint.applies(to: request.inputs), !request.quiet { logger.info("\(StdinHint.text)") }

        let metrics = reports.metrics
        var progress: ProgressReporter?
        if let console, request.progress ?? (console.isTerminal && !request.quiet) { progress = ProgressReporter(console: console) }
        var reporters: [any RunReporter] = [reports]
        if let metrics { reporters.append(metrics) }
        if let progress { reporters.append(progress) }

        var summary: RunSummary
        var status = ExitStatus.ok
        let runner: PipelineRunner
        do {
            runner = try PipelineRunner(configuration: configuration, options: request.options, logger: logger,
                                        control: control, reporters: reporters, openParts: openParts)
        } catch {
            return reports.failed(exitStatus(for: error, logger: logger), error: "\(error)", logger: logger)
        }
        do {
            summary = try runner.run(inputs: request.inputs)
        } catch let failure as RunFailure {
            summary = failure.summary
            summary.error = "\(failure.error)"
            // The runner logged input errors as they happened (the run went on past them).
            status = exitStatus(for: failure.error, logger: failure.error is InputError ? nil : logger)
        } catch {
            return reports.failed(exitStatus(for: error, logger: logger), error: "\(error)", logger: logger)
        }
        progress?.finish()

        if status == ExitStatus.ok, let stop = control.stopRequested {
            status = stop.exitStatus
        }
        if status == ExitStatus.ok && request.strict && summary.rejectedTotal > 0 {
            logger.error("--strict: \(summary.rejectedTotal) lines were rejected")
            status = ExitStatus.dataError
        }
        if let staging {
            let written = { (summary: RunSummary, status: Int32) -> Int32 in
                let (written, status) = writeReports(reports, summary, status: status, control: control, logger: logger)
                return !written && status == ExitStatus.ok ? ExitStatus.cannotCreate : status
            }
            status = StagedRunEnd.finish(status: status, summary: &summary, staging: staging, runner: runner,
                                         statePath: request.options.statePath, control: control, logger: logger,
                                         commit: commit, writeReports: written)
        } else {
            let reported = writeReports(reports, summary, status: status, control: control, logger: logger)
            let reportsWritten = reported.written
            status = reported.status
            if !reportsWritten && status == ExitStatus.ok { status = ExitStatus.cannotCreate }
            // The state goes in place last, so every code a retry is for (73, 74, 75)
            // leaves the state the run started from: the same inputs from it again are exact.
            if runner.holdsUnsavedState, let statePath = request.options.statePath {
                if !reportsWritten && status == ExitStatus.cannotCreate {
                    runner.discardState()
                    logger.error("--state \(statePath) is left as it was, because --stats or --metrics could not be written: run the same inputs again from it")
                } else {
                    do {
                        try runner.commitState()
                    } catch {
                        logger.error("\(error)")
                        status = ExitStatus.ioError
                        summary.error = "\(error)"
                        _ = reports.write(summary, status: status, logger: nil)
                    }
                }
            }
        }
        warnOfEvictions(summary, logger: logger)
        logger.info("\(summary.summaryLine)")
        control.markFinished()
        return status
    }

    /// Writes `--stats` and `--metrics` at the end; returns whether both were
    /// written and the exit status. A FIFO among them waits for its reader
    /// until a stop: one that comes meanwhile is served (that report is given
    /// up, the others say the signal's status, and the run exits with it);
    /// after a stop, a run that must end does not wait for a reader.
    private static func writeReports(_ reports: RunReports, _ summary: RunSummary, status: Int32, control: RunControl,
                                     logger: Logger) -> (written: Bool, status: Int32) {
        let stopBefore = control.stopRequested
        let written = reports.write(summary, status: status, logger: logger, stopWaiting: { control.stopRequested != nil })
        guard stopBefore == nil, let stop = control.stopRequested, status == ExitStatus.ok else { return (written, status) }
        logger.error("\(stop.signalName) while waiting for a reader of --stats or --metrics: exiting \(stop.exitStatus)")
        return (reports.write(summary, status: stop.exitStatus, logger: logger, stopWaiting: { true }), stop.exitStatus)
    }

    /// One warning per stage that let entries go at its caps this run (its
    /// `evicted` counters: ids, devices, open timers forgotten to make room),
    /// so a cap set too low is seen where the run is watched, not only in
    /// `--stats` and `--metrics`.
    private static func warnOfEvictions(_ summary: RunSummary, logger: Logger) {
        for stage in summary.stages {
            let evicted = stage.counters.filter { ($0.name == "evicted" || $0.name.hasSuffix("_evicted")) && $0.value > 0 }
            guard !evicted.isEmpty else { continue }
            let counts = evicted.map { "\($0.name) \($0.value)" }.joined(separator: ", ")
            let message = "the \(stage.name) stage reached its caps and let the oldest entries go (\(counts)); "
                + "raise its caps if that was not meant (see the stage's max_* settings)"
            logger.warning("\(message)")
        }
    }

    /// Logs an error (unless `logger` is nil) and gives its exit status.
    private static func exitStatus(for error: Error, logger: Logger?) -> Int32 {
        logger?.error("\(error)")
        switch error {
        case let error as InputError: return ExitStatus.forInputError(error)
        case let error as OutputError: return ExitStatus.forOutputError(error)
        case let error as StateError: return ExitStatus.forStateError(error)
        case is UsageError: return ExitStatus.usage
        default: return ExitStatus.ioError
        }
    }
}

/// What `run` and `serve` set up before anything else: a closed stdout an EPIPE
/// they handle and a file-size limit an EFBIG they report (not signals that end
/// the process), and the signal listener with the run control it stops and the
/// `.part` files a forced exit leaves, named with `leftoverAdvice`.
public struct ProcessSignals: Sendable {
    public let control: RunControl
    public let openParts: OpenPartFiles
    public let listener: SignalListener

    /// The signals handled from now on; nil (the error logged) when the listener cannot start.
    public static func start(shutdownTimeout: Duration, leftoverAdvice: String, logger: Logger) -> ProcessSignals? {
        signal(SIGPIPE, SIG_IGN)
        signal(SIGXFSZ, SIG_IGN)
        let control = RunControl()
        let openParts = OpenPartFiles()
        do {
            let listener = try SignalListener(control: control, openParts: openParts, shutdownTimeout: shutdownTimeout,
                                              leftoverAdvice: leftoverAdvice, logger: logger)
            return ProcessSignals(control: control, openParts: openParts, listener: listener)
        } catch {
            logger.error("\(error)")
            return nil
        }
    }
}
