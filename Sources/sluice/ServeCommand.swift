import ArgumentParser
import Logging
import Sluice
import SluiceServe

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Take Segment's HTTP Tracking API and run the pipeline over what it acknowledged, durably.",
        discussion: """
        Answers POST /v1/batch, /v1/track, /v1/identify, /v1/page, /v1/screen,
        /v1/group and /v1/alias as Segment's API does (Basic auth with a write key
        as the user name, or writeKey in the body; Content-Encoding: gzip; 32 KB per
        message, 500 KB per batch), so an analytics SDK pointed at it (host=) sends
        its events here. Each message is normalized (receivedAt, timestamp corrected
        for the device's clock skew, the batch's context and sentAt, context.ip) and
        appended to a journal on disk; the 200 goes out once it is fsynced.

        The pipeline runs over the journal in epochs (every --epoch-interval, at
        SIGHUP, and when the backlog passes half of --max-backlog): each epoch is a
        `sluice run` over the sealed segments with --state (what is open is carried
        to the next epoch) and all-or-nothing files: after kill -9 at any moment, a
        restart finishes or redoes the epoch, and every acknowledged message is in
        the files exactly once.

        GET /health: 200 while the process lives. GET /ready: 200 while accepting,
        503 when stopping or backlogged. GET /metrics: Prometheus text (requests
        by status, messages, latency, backlog, connections, epochs).

        Status codes: 200 journaled; 400 never accepted (bad JSON, over a limit, a
        gzip body that is not gzip or inflates past 500 KB); 401 unknown or
        missing write key; 408 not whole within --request-timeout (slow clients);
        429 with Retry-After: the bodies held at once are at --max-body-memory;
        503 with Retry-After: try again (stopping, backlog over --max-backlog,
        the journal cannot be written, over --max-connections).

        SIGTERM/SIGINT: new requests get 503, the journal is sealed, a last epoch
        runs, exit 143/130. SIGHUP: an epoch now.

        Examples:
          KEYS=key1,key2 sluice serve --pipeline app.yaml --out /data/out \\
              --write-key-env KEYS
          sluice serve --listen 0.0.0.0:8088 --listen-public \\
              --write-key-file /etc/sluice/keys --trusted-proxy 10.0.0.5
          sluice serve --listen 127.0.0.1:0 --port-file port --write-key-env KEYS
          sluice serve --listen 0.0.0.0:8443 --listen-public --tls-cert cert.pem \\
              --tls-key key.pem --write-key-file /etc/sluice/keys
        """
    )

    @Option(name: .long, help: ArgumentHelp("The pipeline file (YAML; default: the built-in pipelines/default.yaml).", valueName: "file"),
            completion: .file(extensions: ["yaml", "yml"]))
    var pipeline: String?

    @Option(name: .long, help: ArgumentHelp("The root that relative output paths are under (default: out).", valueName: "dir"),
            completion: .directory)
    var out: String?

    @Option(help: ArgumentHelp("Where to listen (default: 127.0.0.1:8088; port 0: any free port, said on stderr and in --port-file).",
                               valueName: "host:port"))
    var listen: String = "127.0.0.1:8088"

    @Flag(name: .customLong("listen-public"), help: "Allow --listen on an address that is not a loopback address.")
    var listenPublic = false

    @Option(name: .customLong("port-file"), help: ArgumentHelp("Write the port listened on to this file once listening.", valueName: "file"),
            completion: .file())
    var portFile: String?

    @Option(name: .customLong("write-key-env"), help: ArgumentHelp("The environment variable holding the write keys (comma-separated).",
                                                                    valueName: "var"))
    var writeKeyEnv: String?

    @Option(name: .customLong("write-key-file"), help: ArgumentHelp("A file of write keys (one a line, or comma-separated).", valueName: "file"),
            completion: .file())
    var writeKeyFile: String?

    @Option(name: .customLong("trusted-proxy"), help: ArgumentHelp("A proxy's address whose X-Forwarded-For gives the client's address "
                                                                     + "(repeatable).", valueName: "address"))
    var trustedProxies: [String] = []

    @Option(help: ArgumentHelp("The journal's directory (default: OUT/.sluice-serve/journal).", valueName: "dir"), completion: .directory)
    var journal: String?

    @Option(name: .long, help: ArgumentHelp("Carry open timers, sessions and the dedupe window from epoch to epoch, and from run to run, "
                                            + "in this file (default: OUT/.sluice-serve/state).", valueName: "file"),
            completion: .file())
    var state: String?

    @Option(name: .customLong("commit-interval"), parsing: .unconditional,
            help: ArgumentHelp("How long the journal waits for more requests before one fsync for all (default: 2ms).",
                               valueName: "duration"),
            transform: { try DurationArgument.parse($0 == "0" ? "0s" : $0) })
    var commitInterval: DurationArgument = DurationArgument(.milliseconds(2))

    @Option(name: .customLong("epoch-interval"), parsing: .unconditional,
            help: ArgumentHelp("How often the pipeline runs over the journal (default: 1m).", valueName: "duration"),
            transform: { try DurationArgument.parse($0) })
    var epochInterval: DurationArgument = DurationArgument(.seconds(60))

    @Option(name: .customLong("segment-size"), help: ArgumentHelp("Seal a journal segment at this size (default: 64MiB).", valueName: "size"))
    var segmentSize: String = "64MiB"

    @Option(name: .customLong("max-backlog"), help: ArgumentHelp("Answer 503 once the journal holds this much not yet run (default: 1GiB).",
                                                                 valueName: "size"))
    var maxBacklog: String = "1GiB"

    @Option(name: .customLong("request-timeout"), parsing: .unconditional,
            help: ArgumentHelp("A request must arrive whole (head and body) within this, else 408 and the connection closed; "
                               + "an idle connection is closed after it too (default: 30s).", valueName: "duration"),
            transform: { try DurationArgument.parse($0) })
    var requestTimeout: DurationArgument = DurationArgument(.seconds(30))

    @Option(name: .customLong("max-connections"), parsing: .unconditional,
            help: ArgumentHelp("Connections open at once; one more is answered 503 and closed (default: 1024).", valueName: "n"),
            transform: { try CountArgument.parse($0) })
    var maxConnections: Int = 1024

    @Option(name: .customLong("max-body-memory"),
            help: ArgumentHelp("Request body bytes held at once across connections; a request that would pass it is answered 429 "
                               + "(default: 64MiB).", valueName: "size"))
    var maxBodyMemory: String = "64MiB"

    @Option(name: .customLong("tls-cert"), help: ArgumentHelp("Serve HTTPS with this PEM certificate chain (with --tls-key).",
                                                               valueName: "file"), completion: .file())
    var tlsCert: String?

    @Option(name: .customLong("tls-key"), help: ArgumentHelp("The PEM private key of --tls-cert.", valueName: "file"), completion: .file())
    var tlsKey: String?

    @Option(help: ArgumentHelp("Write the last epoch's accounting as JSON to this file after every epoch.", valueName: "file"),
            completion: .file())
    var stats: String?

    @Option(help: ArgumentHelp("Write the accounting as a Prometheus textfile, every flush interval and after every epoch.",
                               valueName: "file"),
            completion: .file())
    var metrics: String?

    @Option(name: .customLong("flush-interval"), parsing: .unconditional,
            help: ArgumentHelp("How stale finished data in an open .part file may get (default: 5s).", valueName: "duration"),
            transform: { try DurationArgument.parse($0) })
    var flushInterval: DurationArgument = DurationArgument(.seconds(5))

    @Option(name: .customLong("compression-threads"), parsing: .unconditional,
            help: ArgumentHelp("Threads that deflate the output files (default: one per core).", valueName: "n"),
            transform: { try CountArgument.parse($0) })
    var compressionThreads: Int?

    @Option(name: .customLong("shutdown-timeout"), parsing: .unconditional,
            help: ArgumentHelp("How long the last epoch after SIGTERM/SIGINT may take before exiting 75 (default: 30s).",
                               valueName: "duration"),
            transform: { try DurationArgument.parse($0) })
    var shutdownTimeout: DurationArgument = DurationArgument(.seconds(30))

    @Flag(help: "Print nothing on stderr but errors.")
    var quiet = false

    func validate() throws {
        _ = try address()
        if writeKeyEnv == nil && writeKeyFile == nil {
            throw ValidationError("give the write keys: --write-key-env VAR or --write-key-file FILE")
        }
        for (flag, text) in [("--segment-size", segmentSize), ("--max-backlog", maxBacklog), ("--max-body-memory", maxBodyMemory)]
        where ConfigReader.parseSize(text) == nil {
            throw ValidationError("\(flag) '\(text)' is not a size (e.g. 64MiB, 1GiB)")
        }
        if (tlsCert == nil) != (tlsKey == nil) {
            throw ValidationError("give --tls-cert and --tls-key together")
        }
        if let compressionThreads, !(1...256).contains(compressionThreads) {
            throw ValidationError("--compression-threads \(compressionThreads): give 1 to 256")
        }
    }

    /// `HOST:PORT`, `[IPv6]:PORT`.
    private func address() throws -> (host: String, port: Int) {
        var host = Substring(listen)
        guard let colon = host.lastIndex(of: ":"), let port = Int(host[host.index(after: colon)...]), (0...65535).contains(port) else {
            throw ValidationError("--listen '\(listen)' is not HOST:PORT (e.g. 127.0.0.1:8088, [::1]:8088, 127.0.0.1:0)")
        }
        host = host[..<colon]
        if host.hasPrefix("[") && host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        guard !host.isEmpty else { throw ValidationError("--listen '\(listen)' has no host") }
        return (String(host), port)
    }

    func run() throws {
        var request = ServeRequest()
        (request.host, request.port) = try address()
        request.listenPublic = listenPublic
        request.portFile = portFile
        request.writeKeyEnvironmentVariable = writeKeyEnv
        request.writeKeyFile = writeKeyFile
        request.trustedProxies = trustedProxies
        request.journalDirectory = journal
        request.commitInterval = commitInterval.value
        request.epochInterval = epochInterval.value
        request.segmentBytes = ConfigReader.parseSize(segmentSize) ?? (64 << 20)
        request.maxBacklog = ConfigReader.parseSize(maxBacklog) ?? (1 << 30)
        request.requestTimeout = requestTimeout.value
        request.maxConnections = maxConnections
        request.maxBodyMemory = ConfigReader.parseSize(maxBodyMemory) ?? (64 << 20)
        request.tlsCertificate = tlsCert
        request.tlsKey = tlsKey
        request.run.pipelinePath = pipeline
        request.run.options.outDirectory = out ?? "out"
        request.run.options.statePath = state
        request.run.options.flushInterval = flushInterval.value
        request.run.options.compressionThreads = compressionThreads
        request.run.statsPath = stats
        request.run.metricsPath = metrics
        request.run.quiet = quiet
        request.run.shutdownTimeout = shutdownTimeout.value
        let status = ServeProgram.run(request, logger: .sluiceStderr(console: StderrConsole(), quiet: quiet))
        if status != 0 { throw ExitCode(status) }
    }
}
