import ArgumentParser
import Logging
import Sluice

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Work with the --stats files of sluice run.",
        subcommands: [StatsMergeCommand.self]
    )
}

struct StatsMergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge the --stats files of shard runs into the stats of one run.",
        usage: """
        sluice stats merge [--out <file>] [--metrics <file>]
                           [--elapsed-seconds <seconds>] <file> ...
        """,
        discussion: """
        For a job run as shards (one sluice run per partition of the devices, all
        with the same pipeline and --watermark-end): sums every count (lines, per
        reason, per destination, per stage; a stage's *_high_water marks keep the
        largest, elapsed_seconds the longest unless --elapsed-seconds gives the
        job's), lists every shard's inputs, checks that each shard's lines add up,
        and writes the JSON of one run (stdout without --out), and with --metrics
        the Prometheus textfile of one run. Each shard must be given once: two
        files of the same shard (the "shard" a run with --shard writes), or the
        same file twice, would count its lines twice and are refused.

        Examples:
          sluice stats merge shard-*.json --out job.json
          sluice stats merge s0.json s1.json \\
              --metrics /var/lib/node_exporter/textfile/job.prom

        Exit codes: 0 merged; 65 a file is not the --stats JSON of sluice run (a
        sluice send --stats file is named as one), the files are of different
        pipelines, or a shard or file is given twice (nothing written), or a
        shard's lines do not add up or its run stopped on an error (the merge is
        written; the message names the file); 66 a file cannot be opened; 73 an
        output cannot be written; 74 a read error.
        """
    )

    @Argument(help: ArgumentHelp("The shards' --stats files.", valueName: "file"), completion: .file(extensions: ["json"]))
    var files: [String] = []

    @Option(help: ArgumentHelp("Write the merged JSON to this file (atomically) instead of stdout.", valueName: "file"),
            completion: .file())
    var out: String?

    @Option(help: ArgumentHelp("Also write the merged stats as a Prometheus textfile (atomically).", valueName: "file"),
            completion: .file())
    var metrics: String?

    @Option(help: ArgumentHelp("The job's wall time, for the merged elapsed_seconds (default: the longest shard's).",
                               valueName: "seconds"))
    var elapsedSeconds: Double?

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one --stats file") }
        if let elapsedSeconds, !(elapsedSeconds.isFinite && elapsedSeconds >= 0) {
            throw ValidationError("--elapsed-seconds must be a number of seconds, 0 or more")
        }
    }

    func run() throws {
        var request = StatsMergeProgram.Request()
        request.paths = files
        request.outPath = out
        request.metricsPath = metrics
        request.elapsedSeconds = elapsedSeconds
        let status = StatsMergeProgram.run(request, logger: .sluiceStderr(console: StderrConsole(), quiet: false))
        if status != 0 { throw ExitCode(status) }
    }
}
