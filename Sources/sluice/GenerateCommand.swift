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
        discussion: """
        Many devices interleaved, each living through sessions: launches, sign-ins,
        screens, taps, timed flows (some abandoned, some stops without a start),
        PII in free text, odd event names, opted-out users, duplicates and late
        events, and with --malformed, broken lines. Same options, same bytes.

        Examples:
          sluice generate --events 100000 | sluice run
          sluice generate --events 20000 --malformed 0.01 | gzip > day.ndjson.gz
        """
    )

    @Option(help: "How many lines to write.")
    var events: Int = 100_000

    @Option(help: "Random seed: the same seed gives the same bytes.")
    var seed: UInt64 = 1

    @Option(help: "Concurrent devices (default: events / 50, at least 10, at most 10000000).")
    var devices: Int = 0

    @Option(help: "Share of broken lines (0 to 1).")
    var malformed: Double = 0

    @Option(help: "Share of events sent twice with the same messageId (0 to 1).")
    var duplicates: Double = 0.005

    @Option(help: "Share of events delivered late (0 to 1).")
    var late: Double = 0.01

    @Option(help: "Event time of the first event (ISO 8601, UTC).")
    var start: String = "2026-11-20T08:00:00Z"

    func validate() throws {
        if events < 0 { throw ValidationError("--events must be 0 or more") }
        if !(0...GeneratorOptions.maxDevices).contains(devices) {
            throw ValidationError("--devices must be between 0 and \(GeneratorOptions.maxDevices), not \(devices)")
        }
        for (name, value) in [("--malformed", malformed), ("--duplicates", duplicates), ("--late", late)] where !(0...1).contains(value) {
            throw ValidationError("\(name) must be between 0 and 1")
        }
        if EventTime.parseISO8601(start) == nil { throw ValidationError("--start must be ISO 8601 with a zone, e.g. 2026-11-20T08:00:00Z") }
    }

    func run() throws {
        signal(SIGPIPE, SIG_IGN)
        var options = GeneratorOptions()
        options.events = events
        options.seed = seed
        options.devices = devices
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
                        throw StdoutClosed()
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
