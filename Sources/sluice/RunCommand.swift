import ArgumentParser
import Logging
import Sluice

extension InputOrder: ExpressibleByArgument {}

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a pipeline over NDJSON events from files or stdin.",
        discussion: """
        Reads every INPUT (a file, a directory: its files in name order, or - for
        stdin; none means stdin). Gzipped inputs are detected and gunzipped on the
        fly. Without --pipeline, the built-in default pipeline (pipelines/default.yaml)
        runs.

        Order. When every input is a file or a directory, the stages get every
        event in exact event order (--order exact, the default there): all inputs
        are read, then sorted, in at most input.reorder_buffer bytes of memory
        (default 256MiB; beyond it sorted runs spill, gzipped, under --tmp DIR,
        else --out). Events of the same time go by a rule of their own content
        (session start, timer start, other, timer stop, sign-out; then messageId;
        then the line's bytes), so the same events give the same records however
        they were split into files, in whatever order the files are given.
        Stdin and FIFOs keep a reorder window (--order window): several inputs
        are merged in event time, a line held until no input can still bring an
        earlier one, up to --reorder-window behind its own input's latest event
        (default: the largest lateness of the pipeline's stages, 5m without).
        --concat reads the inputs one after another instead, as one input is read.

        Examples:
          sluice generate --events 100000 | sluice run
          sluice run --pipeline app.yaml --out /data/out logs/*.ndjson.gz
          sluice run --stdout archive < events.ndjson | jq -c .event | head
          tail -F app.log | sluice run --flush-interval 5s \\
              --metrics /var/lib/node_exporter/textfile/sluice.prom
          sluice run --pipeline app.yaml --state /var/lib/sluice/app.state \\
              logs/hour-09.ndjson.gz
          sluice run --pipeline app.yaml --stats part-3.json \\
              --watermark-end 2026-11-20T23:59:58.874Z part-3.ndjson.gz
          sluice run --pipeline app.yaml --shard 3 --staging /data/staging/3 \\
              --out /data/out part-3.ndjson
          sluice run --pipeline app.yaml --stats day.json /var/log/app/2026-11-20/

        With --state FILE, open timers, sessions and the dedupe window are restored
        from FILE at the start (a missing FILE is a first run) and saved there at
        the end; what is still open is carried to the next run, not let out.

        Shards (one process per partition of the devices): give each the same
        --watermark-end, the latest event time over all shards, so timers and
        sessions end alike in every shard; sluice stats merge sums their --stats.

        With --shard ID (or SLUICE_SHARD), the run is one shard of many that
        share --out: {shard} in the output paths becomes ID (without it, "all"),
        and a file path without {shard} is refused (exit 78). sluice shard-of splits the
        input by device.

        With --staging DIR, the files are written under DIR and moved into place
        under --out only when the run ends with exit 0 (DIR on --out's
        filesystem): a killed or failed attempt leaves nothing under --out, and
        a name that exists there already is never replaced (exit 73). With
        --state, the state is saved only then.

        Signals: SIGTERM/SIGINT stop reading, drain, finish every file and exit
        143/130 (a second SIGINT exits at once); SIGHUP closes and renames the
        current files and starts new ones; SIGUSR1 prints the stats so far.

        Exit codes: 0 success, 64 usage, 65 data error (--strict and something was
        rejected, a corrupt gzip input, or a --state file that is corrupt, of another
        format version or from another pipeline), 66 an input cannot be opened, 73
        an output cannot be created (or --stats, --metrics; with --staging: a file
        of that name is under --out already, or DIR is on another filesystem), 74
        an I/O error while running, 75 the shutdown did not finish in time (.part
        files left: run sluice recover) or the --state file or --staging DIR is in
        use by another run, 78 pipeline-file error, 130/143 interrupted/terminated
        after a clean drain. 64, 65, 66 and 78 are final; 73, 74 and 75 are worth
        a retry with the same inputs and the same --state, which they leave as it
        was (give the retry a fresh --out, or use --staging).
        """
    )

    @Option(name: .long, help: ArgumentHelp("The pipeline file (YAML; default: the built-in pipelines/default.yaml).", valueName: "file"),
            completion: .file(extensions: ["yaml", "yml"]))
    var pipeline: String?

    @Option(name: .long, help: ArgumentHelp("The root that relative output paths are under (default: out).", valueName: "dir"),
            completion: .directory)
    var out: String?

    /// A list only so that a second `--stdout` is caught (exit 64) instead of silently replacing the first.
    @Option(name: .customLong("stdout"),
            help: ArgumentHelp("Send this destination's records to stdout as plain NDJSON instead of files (one destination).",
                               valueName: "name"))
    var stdoutDestinations: [String] = []

    @Flag(help: "Exit 65 if any line was rejected.")
    var strict = false

    @Option(name: .long, help: ArgumentHelp("Write the accounting as JSON to this file (- for stdout), on every exit.", valueName: "file"),
            completion: .file())
    var stats: String?

    @Option(name: .long, help: ArgumentHelp("Write the accounting as a Prometheus textfile, every flush interval and on every exit.",
                                            valueName: "file"),
            completion: .file())
    var metrics: String?

    @Flag(inversion: .prefixedNo, help: "Show a progress line on stderr (default: only when stderr is a terminal).")
    var progress: Bool?

    @Option(name: .customLong("flush-interval"), parsing: .unconditional,
            help: ArgumentHelp("How stale finished data in an open .part file may get (e.g. 500ms, 5s, 1.5s; default: 5s).",
                               valueName: "duration"),
            transform: { try DurationArgument.parse($0) })
    var flushInterval: DurationArgument = DurationArgument(.seconds(5))

    @Option(name: .customLong("compression-threads"), parsing: .unconditional,
            help: ArgumentHelp("Threads that deflate the output files, shared by all destinations (default: one per core). "
                               + "The files' bytes are the same whatever the number.", valueName: "n"),
            transform: { try CountArgument.parse($0) })
    var compressionThreads: Int?

    @Option(name: .customLong("shutdown-timeout"), parsing: .unconditional,
            help: ArgumentHelp("How long the drain after SIGTERM/SIGINT may take before exiting 75 (default: 30s).",
                               valueName: "duration"),
            transform: { try DurationArgument.parse($0) })
    var shutdownTimeout: DurationArgument = DurationArgument(.seconds(30))

    @Option(name: .long, help: ArgumentHelp("Carry open timers, sessions and the dedupe window from run to run in this file.",
                                            valueName: "file"),
            completion: .file())
    var state: String?

    @Flag(help: ArgumentHelp("With --state: the last run of a series; let out what is still open instead of carrying it."))
    var final = false

    @Option(name: .customLong("watermark-end"), parsing: .unconditional,
            help: ArgumentHelp("The event time every shard treats as the end of input (RFC 3339, or epoch milliseconds): "
                               + "timers expire as if an event at TIME had been read.", valueName: "time"),
            transform: { text in
                guard let time = EventTime.parseArgument(text) else {
                    throw ValidationError("--watermark-end '\(text)' is not a time: give RFC 3339 with a zone (2026-11-20T09:00:00Z) or epoch milliseconds (1795165200000)")
                }
                return time
            })
    var watermarkEnd: EventTime?
    @Option(help: ArgumentHelp("This run is one shard of several sharing --out: {shard} in output paths becomes this "
                               + "(1-64 of A-Z a-z 0-9 _ -; default: $SLUICE_SHARD, else not sharded: \"all\").",
                               valueName: "id"))
    var shard: String?

    @Option(help: ArgumentHelp("Write the files here and move them under --out only when the run ends with exit 0 "
                               + "(same filesystem as --out).", valueName: "dir"),
            completion: .directory)
    var staging: String?

    @Flag(help: "Print nothing on stderr but errors.")
    var quiet = false

    @Option(name: .customLong("reorder-window"), parsing: .unconditional,
            help: ArgumentHelp("Merging several inputs: how far behind its input's latest event time a line may be and still be put in order "
                               + "(e.g. 0, 30s, 5m; default: the largest lateness of the pipeline's stages, 5m without).",
                               valueName: "duration"),
            transform: { try DurationArgument.parse($0 == "0" ? "0s" : $0) })
    var reorderWindow: DurationArgument?

    @Flag(help: "Read several inputs one after another, in the order given, instead of merging them in event time.")
    var concat = false

    @Option(help: ArgumentHelp("How events reach the stages: exact (every event in event order, sorted; the default when every "
                               + "input is a file or directory) or window (as read, several inputs merged through --reorder-window; "
                               + "the default for stdin and FIFOs).", valueName: "exact|window"))
    var order: InputOrder?

    @Option(name: .customLong("tmp"),
            help: ArgumentHelp("Where --order exact spills sorted runs when the events take more than input.reorder_buffer "
                               + "(default: under --out).", valueName: "dir"),
            completion: .directory)
    var temporaryDirectory: String?

    @Argument(help: ArgumentHelp("Input files, directories (their files in name order) or - for stdin; gzip is gunzipped.",
                                 valueName: "input"),
              completion: .file())
    var inputs: [String] = []

    func validate() throws {
        _ = try resolvedShard()
        if final && state == nil { throw ValidationError("--final needs --state: it ends a series of runs that carry state") }
        if concat && reorderWindow != nil {
            throw ValidationError("--reorder-window is for merging inputs in event time; --concat reads them one after another: give one of them")
        }
        if concat && order != nil {
            throw ValidationError("--order puts the inputs' events in order; --concat reads them one after another as they are: give one of them")
        }
        if order == .exact && reorderWindow != nil {
            throw ValidationError("--reorder-window is for --order window; --order exact sorts every event: give one of them")
        }
        if let compressionThreads, !(1...256).contains(compressionThreads) {
            throw ValidationError("--compression-threads \(compressionThreads): give 1 to 256")
        }
        if stdoutDestinations.count > 1 {
            throw ValidationError("--stdout is given \(stdoutDestinations.count) times (\(stdoutDestinations.joined(separator: ", "))): "
                + "only one destination can write to stdout, or its records would be mixed with another's")
        }
    }

    /// `--shard`, else `SLUICE_SHARD`; a bad name is a usage error (exit 64).
    private func resolvedShard() throws -> ShardID? {
        do {
            return try ShardID.resolve(option: shard, environment: ConfigReader.processEnvironment)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func run() throws {
        var request = RunRequest()
        request.options.shard = try resolvedShard()
        request.options.stagingDirectory = staging
        request.pipelinePath = pipeline
        request.inputs = inputs
        request.options.outDirectory = out ?? "out"
        request.options.stdoutDestination = stdoutDestinations.first
        request.options.flushInterval = flushInterval.value
        request.options.compressionThreads = compressionThreads
        request.options.statePath = state
        request.options.finalRun = final
        request.options.watermarkEnd = watermarkEnd
        request.options.reorderWindow = reorderWindow?.value
        request.options.concatenateInputs = concat
        // A reorder window asked for is a windowed run.
        request.options.order = order ?? (reorderWindow != nil ? .window : nil)
        request.options.temporaryDirectory = temporaryDirectory
        request.statsPath = stats
        request.metricsPath = metrics
        request.progress = progress
        request.strict = strict
        request.quiet = quiet
        request.shutdownTimeout = shutdownTimeout.value
        let console = StderrConsole()
        let status = RunProgram.run(request, logger: .sluiceStderr(console: console, quiet: quiet), console: console)
        if status != 0 { throw ExitCode(status) }
    }
}

/// A duration on the command line: `500ms`, `30s`, `5m`, `1h`.
struct DurationArgument: ExpressibleByArgument {
    var value: Duration

    init(_ value: Duration) { self.value = value }

    init?(argument: String) {
        guard let value = ConfigReader.parseDuration(argument) else { return nil }
        self.value = value
    }

    /// Reads an option's text, with a message that says what is wrong (exit 64):
    /// "must be positive" for a negative one, taken as the option's value
    /// (`parsing: .unconditional`), not as another option.
    static func parse(_ text: String) throws -> DurationArgument {
        guard let value = ConfigReader.parseDuration(text) else { throw ValidationError(ConfigReader.durationProblem(text)) }
        return DurationArgument(value)
    }
}
