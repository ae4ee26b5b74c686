import ArgumentParser
import Sluice
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Write a realistic stream of app analytics events (NDJSON) to stdout.",
        usage: """
        sluice generate [--events <n>] [--seed <s>] [--devices <d>]
                        [--malformed <rate>] [--duplicates <rate>]
                        [--late <rate>] [--start <time>]
        """,
        discussion: """
        Many devices interleaved, each living through sessions: launches, sign-ins,
        screens, taps, timed flows (some abandoned, some stops without a start),
        PII in free text, odd event names, opted-out users, duplicates and late
        events, and with --malformed, broken lines. Same options, same bytes.

        Examples:
          sluice generate --events 100000 | sluice run
          sluice generate --events 20000 --malformed 0.01 | gzip > day.gz
        """
    )

    @Option(parsing: .unconditional, help: ArgumentHelp("How many lines to write (default: 100000).", valueName: "n"),
            transform: { try CountArgument.parse($0, minimum: 0) })
    var events: Int = 100_000

    @Option(parsing: .unconditional, help: ArgumentHelp("Random seed: the same seed gives the same bytes (default: 1).", valueName: "s"),
            transform: { text in
                guard let seed = UInt64(text) else { throw ValidationError("must be positive (or 0): a whole number such as 7") }
                return seed
            })
    var seed: UInt64 = 1

    @Option(parsing: .unconditional, help: ArgumentHelp("Concurrent devices (default: events / 50, at least 10, at most \(GeneratorOptions.maxDevices)).",
                               valueName: "d"),
            transform: { try CountArgument.parse($0) })
    var devices: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Share of broken lines (0 to 1; default: 0).", valueName: "rate"),
            transform: { try ShareArgument.parse($0) })
    var malformed: Double = 0

    @Option(parsing: .unconditional,
            help: ArgumentHelp("Share of events sent twice with the same messageId (0 to 1; default: 0.005).", valueName: "rate"),
            transform: { try ShareArgument.parse($0) })
    var duplicates: Double = 0.005

    @Option(parsing: .unconditional, help: ArgumentHelp("Share of events delivered late (0 to 1; default: 0.01).", valueName: "rate"),
            transform: { try ShareArgument.parse($0) })
    var late: Double = 0.01

    @Option(help: ArgumentHelp("Event time of the first event (ISO 8601, UTC).", valueName: "time"))
    var start: String = "2026-11-20T08:00:00Z"

    func validate() throws {
        if let devices, devices > GeneratorOptions.maxDevices {
            throw ValidationError("--devices must be between 1 and \(GeneratorOptions.maxDevices), not \(devices)")
        }
        if EventTime.parseISO8601(start) == nil { throw ValidationError("--start must be ISO 8601 with a zone, e.g. 2026-11-20T08:00:00Z") }
    }

    func run() throws {
        signal(SIGPIPE, SIG_IGN)
        var options = GeneratorOptions()
        options.events = events
        options.seed = seed
        options.devices = devices ?? 0
        options.malformed = malformed
        options.duplicates = duplicates
        options.late = late
        options.start = EventTime.parseISO8601(start)!
        var generator = EventGenerator(options: options)
        do {
            try generator.run { chunk in
                var written = 0
                while written < chunk.count {
                    let n = write(STDOUT_FILENO, chunk.baseAddress! + written, chunk.count - written)
                    if n < 0 {
                        if errno == EINTR { continue }
                        if errno == EPIPE { throw StdoutClosed() }
                        StandardOutput.fail(errno)
                    }
                    written += n
                }
            }
        } catch is StdoutClosed {
            // `sluice generate | head`: the reader has what it wanted.
        }
    }

    private struct StdoutClosed: Error {}
}
