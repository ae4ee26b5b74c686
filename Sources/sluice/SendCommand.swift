import ArgumentParser
import Logging
import Sluice
import SluiceSend

struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Deliver the finished files of each destination with a send: block to its provider's API.",
        discussion: """
        Reads the files `sluice run` finished under OUT (default ./out) for every
        destination whose pipeline entry has a `send:` block, and of its side
        outputs (Mixpanel profiles and groups, Amplitude groups and user
        mappings, each to its own endpoint), sends them in
        request-sized batches as the provider documents, and records every batch
        the provider acknowledged in OUT/.sluice-send/NAME.ledger (fsynced) before
        going on. A rerun, after a crash or a kill -9, sends what the ledger does
        not hold: at most the batches that were in flight are sent again. Records
        the provider refuses go to OUT/send-rejects/ with its reason. A file whose
        every record is acknowledged is moved to OUT/sent/ (after_send: move,
        the default), kept or deleted. Credentials come from the variable or file
        the send: block names and never appear in output, stats or errors.

        Examples:
          MIXPANEL_SECRET=... sluice send --pipeline app.yaml /data/analytics
          sluice send --pipeline app.yaml --dry-run out
          sluice send --pipeline app.yaml --only mixpanel --only mixpanel.profiles out
          sluice send --pipeline app.yaml \\
              --endpoint mixpanel=http://127.0.0.1:8080/import out
          sluice send --pipeline app.yaml --watch \\
              --metrics /var/lib/node_exporter/textfile/sluice-send.prom out

        Exit codes: 0 every file sent (refused records are counted, not failures),
        64 usage, 65 a finished file is not whole gzip, 66 OUT is not a directory,
        69 the provider answered a status a retry cannot change, 73 --stats or
        --metrics cannot be written, 74 an I/O error (a file, the ledger),
        75 retried past --max-retry-time, or the ledger is in use (try again),
        77 the provider refused the credentials (nothing unacknowledged marked
        sent), 78 the pipeline file or the credentials are wrong, 130/143 stopped
        by SIGINT/SIGTERM after the requests in flight finished.
        """
    )

    @Option(help: ArgumentHelp("The pipeline file whose destinations' send: blocks say where and how.", valueName: "file"),
            completion: .file(extensions: ["yaml", "yml"]))
    var pipeline: String

    @Option(name: .customLong("endpoint"),
            help: ArgumentHelp("Send destination NAME's requests (a side output's: DEST.KIND) to URL instead of the provider's (tests, proxies, data residency).",
                               valueName: "name=url"))
    var endpoints: [String] = []

    @Option(name: .customLong("only"),
            help: ArgumentHelp("Send only destination NAME (a side output: DEST.KIND); repeatable. The others' credentials are not needed.",
                               valueName: "name"))
    var only: [String] = []

    @Flag(name: .customLong("dry-run"), help: "Print the requests that would be made (counts and sizes, no secrets); send nothing.")
    var dryRun = false

    @Flag(name: .customLong("validate"), help: "Post GA4 destinations' lines to the Measurement Protocol's validation endpoint (an --endpoint's /mp/collect becomes /debug/mp/collect; any other path is refused): its messages go to the send-rejects; nothing is marked sent, moved or sent to the others.")
    var validateOnly = false

    @Flag(help: "Keep running: send files as `sluice run` finishes them, until SIGTERM or SIGINT.")
    var watch = false

    @Option(help: ArgumentHelp("Write per-destination counts as JSON here at the end.", valueName: "file"),
            completion: .file())
    var stats: String?

    @Option(help: ArgumentHelp("Write per-destination counts and request latency as a Prometheus textfile at the end.",
                               valueName: "file"),
            completion: .file())
    var metrics: String?

    @Flag(inversion: .prefixedNo, help: "Show a progress line on stderr (default: only when stderr is a terminal).")
    var progress: Bool?

    @Option(name: .customLong("max-retry-time"), parsing: .unconditional,
            help: ArgumentHelp("How long a batch may be retried (429, 5xx, timeouts) before sending stops with exit 75 "
                               + "(default: 1h).", valueName: "duration"),
            transform: { try DurationArgument.parse($0) })
    var maxRetryTime = DurationArgument(.seconds(3600))

    @Option(name: .customLong("request-timeout"), parsing: .unconditional,
            help: ArgumentHelp("How long one request may take, from connecting to the answer's last byte, before it is cut off as a timeout and retried (default: 60s).",
                               valueName: "duration"),
            transform: { try DurationArgument.parse($0) })
    var requestTimeout = DurationArgument(.seconds(60))

    @Option(name: .customLong("shutdown-timeout"), parsing: .unconditional,
            help: ArgumentHelp("After SIGTERM/SIGINT, how long requests in flight may take to finish before they are cut off (their batches stay unacknowledged; a rerun sends them) (default: 30s).",
                               valueName: "duration"),
            transform: { try DurationArgument.parse($0) })
    var shutdownTimeout = DurationArgument(.seconds(30))

    @Flag(help: "No summary line (nor progress) on stderr, only errors.")
    var quiet = false

    @Argument(help: ArgumentHelp("The output root `sluice run` wrote.", valueName: "out"), completion: .directory)
    var out: String = "out"

    func validate() throws {
        for endpoint in endpoints {
            guard let equals = endpoint.firstIndex(of: "="), equals != endpoint.startIndex,
                  endpoint[endpoint.index(after: equals)...].hasPrefix("http") else {
                throw ValidationError("--endpoint takes NAME=URL (such as mixpanel=http://127.0.0.1:8080/import), not '\(endpoint)'")
            }
        }
        if validateOnly && (watch || dryRun) { throw ValidationError("--validate goes with neither --watch nor --dry-run") }
        for (name, duration) in [("--max-retry-time", maxRetryTime), ("--request-timeout", requestTimeout),
                                 ("--shutdown-timeout", shutdownTimeout)] where duration.value <= .zero {
            throw ValidationError("\(name) must be positive: a duration such as 30s")
        }
    }

    func run() async throws {
        var options = SendRun.Options(pipeline: pipeline)
        options.root = out
        for endpoint in endpoints {
            let equals = endpoint.firstIndex(of: "=")!
            options.endpoints[String(endpoint[..<equals])] = String(endpoint[endpoint.index(after: equals)...])
        }
        options.dryRun = dryRun
        options.validate = validateOnly
        options.only = Set(only)
        options.watch = watch
        options.statsPath = stats
        options.metricsPath = metrics
        options.progress = progress
        options.quiet = quiet
        options.maxRetryTime = maxRetryTime.value
        options.requestTimeout = requestTimeout.value
        options.shutdownTimeout = shutdownTimeout.value
        let console = StderrConsole()
        // Every message level: --quiet leaves out the summary lines and the progress itself.
        let code = await SendRun.run(options, logger: .sluiceStderr(console: console, quiet: false), console: console)
        if code != ExitStatus.ok { throw ExitCode(code) }
    }
}
