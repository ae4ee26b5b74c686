import Foundation
import Logging
import NIOSSL
import Sluice
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything `sluice serve` was asked to do.
package struct ServeRequest: Sendable {
    /// The pipeline's side: `--pipeline`, `--out`, `--state`, `--stats`,
    /// `--metrics`, `--flush-interval`, `--compression-threads`,
    /// `--shutdown-timeout`, `--quiet` (its inputs are the epochs' segments).
    package var run = RunRequest()
    /// `--listen HOST:PORT` (port 0: any free port, said on stderr and in `--port-file`).
    package var host = "127.0.0.1"
    package var port = 8088
    /// `--listen-public`: a host that is not a loopback address is allowed.
    package var listenPublic = false
    /// `--port-file FILE`: the bound port, written once listening.
    package var portFile: String?
    package var writeKeyEnvironmentVariable: String?
    package var writeKeyFile: String?
    /// `--trusted-proxy ADDRESS`: peers whose `X-Forwarded-For` gives the client's address.
    package var trustedProxies: [String] = []
    /// `--journal DIR`; nil: `OUT/.sluice-serve/journal`.
    package var journalDirectory: String?
    package var commitInterval: Duration = .milliseconds(2)
    package var segmentBytes = 64 << 20
    package var maxBacklog = 1 << 30
    package var epochInterval: Duration = .seconds(60)
    /// `--request-timeout`: a request must arrive whole within it (and an idle connection is closed after it).
    package var requestTimeout: Duration = .seconds(30)
    /// `--max-connections`: connections open at once.
    package var maxConnections = 1024
    /// `--max-body-memory`: request body bytes held at once across connections.
    package var maxBodyMemory = 64 << 20
    /// `--tls-cert` and `--tls-key` (PEM): HTTPS instead of HTTP.
    package var tlsCertificate: String?
    package var tlsKey: String?

    package init() {}
}

/// `sluice serve` as one library call: the HTTP API in front, the journal,
/// and the pipeline run over the journal in epochs; returns the exit status.
///
/// Start: the journal is opened (its lock taken, a torn tail cut), a commit
/// record an earlier process left is rolled forward, an epoch that died
/// before its record is discarded (its staging directory and state file
/// removed: its segments are still in the journal), then the server listens.
///
/// Epochs: every `--epoch-interval`, at SIGHUP, and when the backlog passes
/// half of `--max-backlog`, the open segment is sealed and the pipeline runs
/// over every sealed segment (`EpochRun`), then the segments are deleted.
///
/// SIGTERM, SIGINT: every new request is answered 503, the requests being
/// journaled are finished, the journal is sealed, a last epoch runs, and the
/// process exits 143 / 130 (or the last epoch's error status).
package enum ServeProgram {
    package static func run(_ request: ServeRequest, logger: Logger) -> Int32 {
        guard let signals = ProcessSignals.start(shutdownTimeout: request.run.shutdownTimeout,
                                                 leftoverAdvice: "the journal keeps every acknowledged message: start sluice serve again",
                                                 logger: logger) else {
            return ExitStatus.ioError
        }
        let (control, openParts, listener) = (signals.control, signals.openParts, signals.listener)
        _ = listener

        if !request.listenPublic && !isLoopback(request.host) {
            logger.error("--listen \(request.host) is not a loopback address: give --listen-public to take requests from other machines")
            return ExitStatus.usage
        }
        let keys: WriteKeys
        do {
            keys = try WriteKeys.load(environmentVariable: request.writeKeyEnvironmentVariable, file: request.writeKeyFile)
        } catch {
            logger.error("\(error)")
            return ExitStatus.usage
        }
        var tls: NIOSSLContext?
        if let certificate = request.tlsCertificate, let key = request.tlsKey {
            do {
                tls = try ServeTLS.context(certificate: certificate, key: key)
            } catch {
                logger.error("\(error)")
                return ExitStatus.config
            }
        }
        var configuration: PipelineConfiguration
        do {
            configuration = try request.run.pipelinePath.map { try PipelineConfiguration.load(path: $0) } ?? PipelineConfiguration.builtIn()
        } catch {
            for line in "\(error)".split(separator: "\n") { logger.error("\(line)") }
            return ExitStatus.config
        }
        // An epoch's events are ordered within a smaller budget than a batch job's (sorted
        // runs spill beyond it), and its outputs buffer less: the server's memory stays
        // bounded while it takes requests.
        if !configuration.input.reorderBufferGiven { configuration.input.reorderBufferBytes = Self.epochReorderBuffer }
        for warning in configuration.warnings { logger.warning("\(warning)") }
        if configuration.destinations.contains(where: { $0.target == .stdout }) {
            logger.error("sluice serve writes files: a destination with path \"-\" (stdout) cannot be served")
            return ExitStatus.usage
        }

        let layout = Layout(request)
        for path in [layout.out, layout.journal, layout.staging, layout.state] where path.contains("\t") || path.contains("\n") {
            logger.error("\(path): sluice serve's paths may not hold a tab or a newline")
            return ExitStatus.usage
        }
        let journal: Journal
        do {
            journal = try Journal(directory: layout.journal, segmentBytes: request.segmentBytes, commitInterval: request.commitInterval,
                                  maxBacklog: request.maxBacklog)
        } catch {
            logger.error("\(error)")
            return error.exitStatus
        }
        do {
            try recover(layout, journal: journal, logger: logger)
        } catch {
            logger.error("\(error)")
            return ExitStatus.cannotCreate
        }

        var runRequest = request.run
        runRequest.options.outDirectory = layout.out
        runRequest.options.statePath = layout.state
        runRequest.options.stagingDirectory = layout.staging
        runRequest.options.outputBufferBytes = Self.epochOutputBuffers
        let epochs: EpochRun
        do {
            epochs = try EpochRun(request: runRequest, configuration: configuration, openParts: openParts, logger: logger)
        } catch {
            logger.error("\(error)")
            return error.status
        }

        let server = IngestServer(normalizer: MessageNormalizer(keys: keys, trustedProxies: Set(request.trustedProxies)), journal: journal,
                                  requestTimeout: .nanoseconds(max(request.requestTimeout.nanoseconds, 1_000_000)),
                                  maxConnections: request.maxConnections, maxBodyMemory: request.maxBodyMemory)
        let socket: IngestListener
        do {
            socket = try IngestListener(host: request.host, port: request.port, server: server, tls: tls)
        } catch {
            logger.error("cannot listen on \(request.host):\(request.port): \(error)")
            return ExitStatus.cannotCreate
        }
        logger.info("serve: listening on \(request.host):\(socket.port)\(tls == nil ? "" : " (TLS)"); journal \(layout.journal)")
        if let portFile = request.portFile {
            do {
                try AtomicText.write("\(socket.port)\n", to: portFile)
            } catch {
                logger.error("cannot write --port-file \(portFile): \(error)")
                socket.shutdown()
                return ExitStatus.cannotCreate
            }
        }
        journal.onBacklogPressure { control.requestRotation() }
        // From here this thread runs the epochs, and the threads each epoch starts (its reader, the
        // deflate pool) inherit its nice value: the connections and the journal's fsyncs, started
        // before, keep the cores first, and an epoch takes what they leave.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Self.epochNice)

        var status = ExitStatus.ok
        let interval = UInt64(max(request.epochInterval.nanoseconds, 1_000_000))
        var nextEpoch = Monotonic.nanoseconds() + interval
        var stop: RunControl.StopReason?
        while stop == nil {
            let now = Monotonic.nanoseconds()
            var descriptor = pollfd(fd: control.wakeDescriptor, events: Int16(POLLIN), revents: 0)
            let wait = nextEpoch > now ? Int32(min((nextEpoch - now) / 1_000_000 + 1, UInt64(Int32.max))) : 0
            _ = poll(&descriptor, 1, wait)
            let requests = control.take()
            stop = requests.stop
            if stop == nil && (requests.rotations > 0 || Monotonic.nanoseconds() >= nextEpoch) {
                let epochStatus = runEpoch(epochs, journal: journal, layout: layout, logger: logger, metrics: server.metrics)
                if epochStatus != ExitStatus.ok {
                    logger.error("the epoch failed (exit \(epochStatus)); its segments stay in the journal for the next epoch")
                }
                nextEpoch = Monotonic.nanoseconds() + interval
            }
        }
        guard let stop else { return status }
        logger.info("\(stop.signalName): answering 503 to new requests, running a last epoch")
        server.stopAccepting()
        journal.closeForShutdown()
        let last = runEpoch(epochs, journal: journal, layout: layout, logger: logger, metrics: server.metrics)
        socket.shutdown()
        status = last == ExitStatus.ok ? stop.exitStatus : last
        control.markFinished()
        return status
    }

    /// The paths of one server, absolute (a commit record outlives the working directory).
    struct Layout {
        var out: String
        var journal: String
        var staging: String
        var state: String
        var commitRecord: String

        init(_ request: ServeRequest) {
            let out = Self.absolute(request.run.options.outDirectory)
            let base = out + "/.sluice-serve"
            self.out = out
            journal = Self.absolute(request.journalDirectory ?? base + "/journal")
            staging = base + "/staging"
            state = FileSystem.followingSymlinks(Self.absolute(request.run.options.statePath ?? base + "/state"))
            commitRecord = CommitRecord.path(journal: journal)
        }

        static func absolute(_ path: String) -> String {
            if path.hasPrefix("/") { return path }
            return FileManager.default.currentDirectoryPath + "/" + path
        }
    }

    /// What an earlier process left: its commit record rolled forward, or a
    /// dead epoch's staging directory and state file removed.
    static func recover(_ layout: Layout, journal: Journal, logger: Logger) throws {
        if let record = try CommitRecord.read(layout.commitRecord) {
            let moved = try record.rollForward()
            let consumed = Set(record.segments)
            journal.consumed(journal.sealForEpoch().filter { consumed.contains($0.path) })
            CommitRecord.remove(layout.commitRecord)
            logger.info("serve: rolled forward an epoch an earlier process was committing (\(moved) of its \(record.files.count) files moved now)")
        } else if FileSystem.exists(layout.staging) {
            try? FileManager.default.removeItem(atPath: layout.staging)
            FileSystem.syncDirectory(FileSystem.directory(of: layout.staging))
            logger.warning("serve: discarded an epoch an earlier process did not commit; its messages are still in the journal")
        }
        // A state an epoch wrote and never committed (FILE.tmp-PID).
        let directory = FileSystem.directory(of: layout.state)
        let prefix = String(layout.state.dropFirst(directory.count + 1)) + ".tmp-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where name.hasPrefix(prefix) {
            unlink(directory + "/" + name)
        }
    }

    /// One epoch over every sealed segment; 0 when there was none, or once
    /// its files are in place, its state saved and its segments deleted.
    static func runEpoch(_ epochs: EpochRun, journal: Journal, layout: Layout, logger: Logger, metrics: ServeMetrics) -> Int32 {
        let segments = journal.sealForEpoch()
        guard !segments.isEmpty else { return ExitStatus.ok }
        let recordPath = layout.commitRecord
        var record: CommitRecord?
        let hooks = StagedCommitHooks(prepare: { files, temporary in
            let written = CommitRecord(staging: layout.staging, out: layout.out, state: layout.state, stateTemporary: temporary,
                                       segments: segments.map(\.path), files: files)
            try written.write(to: recordPath)
            record = written
        }, abandon: {
            CommitRecord.remove(recordPath)
            record = nil
        })
        let (status, summary) = epochs.run(inputs: segments.map(\.path), commit: hooks)
        metrics.epoch(committed: status == ExitStatus.ok, summary: summary)
        if status == ExitStatus.ok {
            journal.consumed(segments)
            CommitRecord.remove(recordPath)
            return status
        }
        if let record, FileSystem.exists(recordPath) {
            // Past the record an epoch only goes forward.
            do {
                try record.rollForward()
                if let summary { metrics.addRun(summary) }
                journal.consumed(segments)
                CommitRecord.remove(recordPath)
                logger.info("serve: the epoch's commit was finished from its record")
            } catch {
                logger.error("\(error); the record \(recordPath) is kept and rolled forward at the next start")
            }
        }
        return status
    }

    /// The nice value of the thread that runs the epochs (Linux's nice values are per thread).
    package static let epochNice: Int32 = 10

    /// `input.reorder_buffer` of the epochs when the pipeline file does not give one.
    package static let epochReorderBuffer = 32 << 20
    /// What the epochs' file outputs may hold in buffers together (`sluice run`: 256 MiB).
    package static let epochOutputBuffers = 32 << 20

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }
}

/// A small text file written whole: a temporary beside it, renamed over it.
enum AtomicText {
    static func write(_ text: String, to path: String) throws {
        let temporary = path + ".tmp-\(getpid())"
        try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
    }
}
