import ArgumentParser
import Sluice
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a pipeline over NDJSON events from files or stdin.",
        discussion: """
        Reads every INPUT in order (a path, or - for stdin; none means stdin).
        Gzipped inputs are detected and gunzipped on the fly. Without --pipeline,
        the built-in default pipeline (pipelines/default.yaml) runs.

        Examples:
          sluice generate --events 100000 | sluice run
          sluice run --pipeline pipelines/default.yaml --out /data/out logs/*.ndjson.gz
          sluice run --stdout archive < events.ndjson | jq -c .event | head

        Exit codes: 0 success, 64 usage, 65 data error (--strict and something was
        rejected, or a corrupt gzip input), 66 an input cannot be opened, 73 an
        output cannot be created, 74 an I/O error while running, 78 pipeline-file error.
        """
    )

    @Option(name: .long, help: ArgumentHelp("The pipeline file (YAML).", valueName: "file"))
    var pipeline: String?

    @Option(name: .long, help: ArgumentHelp("The root that relative output paths are under.", valueName: "dir"))
    var out: String = "out"

    @Option(name: .customLong("stdout"),
            help: ArgumentHelp("Send this destination's records to stdout as plain NDJSON instead of files.", valueName: "name"))
    var stdoutDestination: String?

    @Flag(help: "Exit 65 if any line was rejected.")
    var strict = false

    @Option(name: .long, help: ArgumentHelp("Write the accounting as JSON to this file.", valueName: "file"))
    var stats: String?

    @Option(name: .customLong("flush-interval"),
            help: ArgumentHelp("How stale finished data in an open .part file may get (e.g. 500ms, 5s).", valueName: "duration"))
    var flushInterval: DurationArgument = DurationArgument(.seconds(5))

    @Flag(help: "Print nothing on stderr but errors.")
    var quiet = false

    @Argument(help: ArgumentHelp("Input files (- for stdin); .gz files are gunzipped.", valueName: "input"))
    var inputs: [String] = []

    func run() throws {
        // A closed stdout must be an EPIPE we handle, not a signal that kills us;
        // a file-size limit must be an EFBIG we report, not a core dump.
        signal(SIGPIPE, SIG_IGN)
        signal(SIGXFSZ, SIG_IGN)

        let configuration: PipelineConfiguration
        do {
            configuration = try pipeline.map { try PipelineConfiguration.load(path: $0) } ?? PipelineConfiguration.builtIn()
        } catch let error as ConfigurationError {
            Diagnostics.error(error.description)
            throw ExitCode(ExitStatus.config)
        }
        var options = RunOptions()
        options.outDirectory = out
        options.stdoutDestination = stdoutDestination
        options.flushInterval = flushInterval.value

        var summary: RunSummary
        var failure: Int32?
        do {
            let runner = try PipelineRunner(configuration: configuration, options: options) { Diagnostics.error($0) }
            summary = try runner.run(inputs: inputs)
        } catch let error as RunFailure {
            summary = error.summary
            failure = Self.exitStatus(for: error.error)
        } catch let error as UsageError {
            Diagnostics.error("sluice: \(error)")
            throw ExitCode(ExitStatus.usage)
        } catch let error as InputError {
            Diagnostics.error("sluice: \(error)")
            throw ExitCode(Self.exitStatus(for: error))
        } catch let error as OutputError {
            Diagnostics.error("sluice: \(error)")
            if case .cannotCreate = error { throw ExitCode(ExitStatus.cannotCreate) }
            throw ExitCode(ExitStatus.ioError)
        }
        if let stats {
            do {
                try AtomicFile.write(summary.json, to: stats)
            } catch {
                Diagnostics.error("sluice: \(error)")
                throw ExitCode(ExitStatus.cannotCreate)
            }
        }
        if !quiet { Diagnostics.error(summary.summaryLine) }
        if let failure { throw ExitCode(failure) }
        if strict && summary.rejectedTotal > 0 {
            if !quiet { Diagnostics.error("sluice: --strict: \(summary.rejectedTotal) lines were rejected") }
            throw ExitCode(ExitStatus.dataError)
        }
    }

    static func exitStatus(for error: InputError) -> Int32 {
        switch error {
        case .cannotOpen: return ExitStatus.noInput
        case .readFailed: return ExitStatus.ioError
        case .corruptGzip: return ExitStatus.dataError
        }
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

    var defaultValueDescription: String {
        let (seconds, _) = value.components
        return "\(seconds)s"
    }
}
