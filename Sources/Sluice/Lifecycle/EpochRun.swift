import Logging

/// `sluice serve`'s pipeline: one `sluice run` per epoch over the journal's
/// sealed segments, in this process, through the same code as `sluice run`
/// (`RunProgram.execute`): the same stages, destinations, rotation, `--stats`
/// and `--metrics`, with `--state` carrying what is open from epoch to epoch
/// (never `--final`) and `--staging` making each epoch all or nothing.
///
/// Each epoch gets a `RunControl` of its own that no signal reaches: a
/// SIGTERM ends the server after a last whole epoch, it never cuts one short
/// (a cut epoch would move nothing and leave its segments to be done again).
package final class EpochRun {
    private let base: RunRequest
    private let configuration: PipelineConfiguration
    private let openParts: OpenPartFiles
    private let reports: RunReports
    private let logger: Logger

    /// `request` gives the options every epoch shares (`--out`, `--state`,
    /// `--staging`, `--stats`, `--metrics`, `--flush-interval`, ...); its
    /// inputs are replaced by each epoch's segments. Fails (with the exit
    /// status) when `--stats` or `--metrics` cannot be written.
    package init(request: RunRequest, configuration: PipelineConfiguration, openParts: OpenPartFiles,
                 logger: Logger) throws(EpochSetupError) {
        base = request
        self.configuration = configuration
        self.openParts = openParts
        self.logger = logger
        reports = RunReports(statsPath: request.statsPath, metricsPath: request.metricsPath, interval: request.options.flushInterval,
                             shard: request.options.shard)
        if let problem = reports.problem() { throw EpochSetupError(message: problem, status: ExitStatus.cannotCreate) }
        if request.metricsPath == "-" || request.statsPath == "-" {
            throw EpochSetupError(message: "--stats and --metrics of sluice serve are files, rewritten at every epoch: give a file",
                                  status: ExitStatus.usage)
        }
    }

    /// Runs one epoch over `inputs` (the sealed segments, oldest first) and
    /// returns its exit status: 0 once its files are in place and its state
    /// saved (`commit.prepare` wrote the record before the first move).
    /// `summary` is the epoch's stats, as its `--stats` says them (nil when it
    /// ended before it counted anything).
    package func run(inputs: [String], commit: StagedCommitHooks) -> (status: Int32, summary: RunSummary?) {
        var request = base
        request.inputs = inputs
        request.options.finalRun = false
        request.options.seqSkipsNamesUnderOut = true
        request.progress = false
        _ = reports.takeWritten()
        let status = RunProgram.execute(request, configuration: configuration, control: RunControl(), openParts: openParts,
                                        reports: reports, console: nil, logger: logger, commit: commit)
        return (status, reports.takeWritten())
    }
}

/// Why `sluice serve`'s epochs cannot run at all, with the exit status.
package struct EpochSetupError: Error, CustomStringConvertible {
    package var message: String
    package var status: Int32
    package var description: String { message }
}
