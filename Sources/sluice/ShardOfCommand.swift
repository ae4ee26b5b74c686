import ArgumentParser
import Logging
import Sluice
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct ShardOfCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shard-of",
        abstract: "Print each NDJSON line's shard and event time, to split a run across processes.",
        discussion: """
        Reads every INPUT in order (a path, or - for stdin; none means stdin; gzip
        is detected) and prints one line per input line, in order:

          SHARD<TAB>TIME_MS

        SHARD is the line's device's shard among N: StableHash(anonymousId, else
        userId) mod N, the function docs/operations.md gives in full with test
        vectors. TIME_MS is the event's timestamp in epoch milliseconds. A line
        that sluice run would reject at input (not JSON, no id, no valid
        timestamp, ...) or skip (blank) gets shard 0 and the previous line's
        TIME_MS in the same input (0 for an input's first line).

        Partition the lines by SHARD, sort each partition by (TIME_MS, input index,
        line number), and run each with sluice run --shard SHARD: every device's
        events are in one shard, in time order.

        Examples:
          sluice shard-of --shards 16 logs/2026-11-20/*.ndjson.gz > shards.tsv
          sluice shard-of --shards 4 day.ndjson | paste - day.ndjson | awk '$1 == 3'

        Exit codes: 0 success (also when the reader closes the pipe early), 64
        usage, 65 a corrupt gzip input (lines before the damage are printed), 66
        an input cannot be opened (nothing is printed), 74 a read or write error.
        """
    )

    @Option(parsing: .unconditional, help: ArgumentHelp("How many shards (1 to \(ShardFunction.maxShards)).", valueName: "n"),
            transform: { try CountArgument.parse($0) })
    var shards: Int

    @Option(name: .customLong("max-line-bytes"), parsing: .unconditional,
            help: ArgumentHelp("Longer lines count as invalid: the pipeline's input.max_line_bytes (e.g. 4MiB).",
                               valueName: "size"))
    var maxLineBytes: String = "1MiB"

    @Argument(help: ArgumentHelp("Input files (- for stdin); .gz files are gunzipped.", valueName: "input"), completion: .file())
    var inputs: [String] = []

    func validate() throws {
        guard (1...ShardFunction.maxShards).contains(shards) else {
            throw ValidationError("--shards \(shards): give 1 to \(ShardFunction.maxShards)")
        }
        guard let size = ConfigReader.parseSize(maxLineBytes), (1...InputSettings.maxLineBytesLimit).contains(size) else {
            throw ValidationError("--max-line-bytes \(maxLineBytes): " + (maxLineBytes.hasPrefix("-") ? "must be positive: " : "")
                + "give a size from 1 byte to 1GiB, such as 1MiB")
        }
    }

    func run() throws {
        var options = ShardOf.Options()
        options.shards = shards
        options.maxLineBytes = ConfigReader.parseSize(maxLineBytes)!
        let status = ShardOf.run(inputs: inputs, options: options, output: STDOUT_FILENO,
                                 logger: .sluiceStderr(console: StderrConsole(), quiet: false))
        if status != 0 { throw ExitCode(status) }
    }
}
