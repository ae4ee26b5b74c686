import Foundation
import SluiceTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `sluice serve` end to end: the built binary on a loopback port, real
/// sockets, real signals, and its files read back.
@Suite(.serialized) struct ServeTests {
    /// dedupe (a re-sent message is one message), an archive of the normalized
    /// messages, and a provider's encoding of them.
    static let pipeline = """
        version: 1
        stages:
          - dedupe:
              ignore_fields: [sentAt, receivedAt]
        destinations:
          archive:
            type: ndjson
            events: ["*"]
            path: "{dest}/{date}/{dest}-{hour}-{seq}.ndjson.gz"
          mixpanel:
            type: mixpanel
            events: ["*"]
            token: 0123456789abcdef0123456789abcdef
            path: "{dest}/{date}/{dest}-{hour}-{seq}.ndjson.gz"

        """

    /// Ends the series the server's epochs started: what the state still holds is let out (`--final`).
    func drainState(_ directory: TemporaryDirectory) throws {
        let empty = directory.write("empty.ndjson", [])
        let drained = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "--state", "out/.sluice-serve/state", "--final",
                                            "--out", "out", "--quiet", empty], in: directory.path)
        #expect(drained.status == 0, "\(drained.stderr)")
    }

    @Test func everyAcknowledgedMessageIsInTheFilesOnceAndTheFilesAreWhatRunWritesFromTheSameLines() throws {
        let directory = TemporaryDirectory()
        _ = directory.write("p.yaml", Array(Self.pipeline.utf8))
        let server = try ServeProcess(["--pipeline", "p.yaml", "--out", "out", "--epoch-interval", "300ms"], in: directory)
        var acknowledged: [Int] = []
        for batch in 0..<12 {
            let range = batch * 25..<(batch + 1) * 25
            var body = trackBatch(range)
            var headers = basicAuth(batch % 2 == 0 ? "k1" : "k2")
            if batch % 3 == 0 {
                body = TestGzip.compress(body)
                headers["Content-Encoding"] = "gzip"
            }
            let answer = httpExchange(port: server.port, path: "/v1/batch", body: body, headers: headers)
            #expect(answer?.status == 200, "\(String(describing: answer))")
            if answer?.status == 200 { acknowledged += Array(range) }
            if batch == 5 { server.process.signal(SIGHUP) }
        }
        // A single message through its own endpoint, the key in the body.
        let single = httpExchange(port: server.port, path: "/v1/identify",
                                  body: Array(#"{"userId":"u1","messageId":"single","traits":{"plan":"pro"},"writeKey":"k1","timestamp":"2026-11-20T10:30:00Z"}"#.utf8),
                                  headers: ["Content-Type": "application/json"])
        #expect(single?.status == 200)
        #expect(httpExchange(port: server.port, method: "GET", path: "/health")?.status == 200)
        #expect(httpExchange(port: server.port, method: "GET", path: "/ready")?.status == 200)

        server.process.signal(SIGTERM)
        #expect(server.process.waitForExit(timeout: 60) == 143, "\(server.process.stderr)")
        try drainState(directory)

        let archive = records(in: directory, out: "out", destination: "archive")
        let ids = archive.compactMap { $0["messageId"] as? String }
        #expect(ids.count == acknowledged.count + 1)
        #expect(Set(ids) == Set(acknowledged.map { "m\($0)" } + ["single"]))
        #expect(archive.allSatisfy { ($0["receivedAt"] as? String) != nil && ($0["context"] as? [String: Any])?["ip"] as? String == "127.0.0.1" })
        #expect(archive.allSatisfy { $0["writeKey"] == nil })

        // The same normalized lines through `sluice run` in one go give the same records.
        let lines = gunzipFiles(directory, under: "out/archive/").flatMap(\.lines).map { $0 + [0x0A] }.joined()
        _ = directory.write("normalized.ndjson", Array(lines))
        let run = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "--out", "again", "--quiet", "normalized.ndjson"], in: directory.path)
        #expect(run.status == 0, "\(run.stderr)")
        for destination in ["archive", "mixpanel"] {
            let served = records(in: directory, out: "out", destination: destination).map(canonical).sorted()
            let ran = records(in: directory, out: "again", destination: destination).map(canonical).sorted()
            #expect(served.count == ran.count && served == ran, "\(destination): \(served.count) served, \(ran.count) from run")
        }
    }

    @Test func refusedRequestsGetTheStatusTheSDKsActOnAndReachNoFile() throws {
        let directory = TemporaryDirectory()
        _ = directory.write("p.yaml", Array(Self.pipeline.utf8))
        let server = try ServeProcess(["--pipeline", "p.yaml", "--out", "out"], in: directory)
        let port = server.port
        #expect(httpExchange(port: port, path: "/v1/batch", body: trackBatch(0..<2), headers: basicAuth("unknown"))?.status == 401)
        #expect(httpExchange(port: port, path: "/v1/batch", body: trackBatch(2..<4), headers: ["Content-Type": "application/json"])?.status == 401)
        #expect(httpExchange(port: port, path: "/v1/batch", body: Array(#"{"batch":[{"type":"track","#.utf8), headers: basicAuth("k1"))?.status == 400)
        let big = #"{"batch":[{"type":"track","event":"E","userId":"u","messageId":"big","properties":{"p":""# + String(repeating: "x", count: 40_000) + #""}}]}"#
        let oversizedMessage = httpExchange(port: port, path: "/v1/batch", body: Array(big.utf8), headers: basicAuth("k1"))
        #expect(oversizedMessage?.status == 400)
        #expect(oversizedMessage?.body.contains("32768") == true)
        // A body announced over 500 KB is answered from its head, before it is read.
        #expect(httpExchange(port: port, path: "/v1/batch", headers: basicAuth("k1"), contentLength: 600_000)?.status == 400)
        // A gzip bomb: 60 MB of spaces in about 60 KB.
        var bombHeaders = basicAuth("k1")
        bombHeaders["Content-Encoding"] = "gzip"
        let bomb = TestGzip.compress(Array(#"{"batch":["#.utf8) + [UInt8](repeating: 0x20, count: 60 << 20) + Array("]}".utf8))
        #expect(httpExchange(port: port, path: "/v1/batch", body: bomb, headers: bombHeaders)?.status == 400)
        #expect(httpExchange(port: port, path: "/v1/batch", body: [1, 2, 3], headers: bombHeaders)?.status == 400)
        #expect(httpExchange(port: port, path: "/v2/batch", body: trackBatch(4..<5), headers: basicAuth("k1"))?.status == 404)
        #expect(httpExchange(port: port, method: "GET", path: "/v1/batch", headers: basicAuth("k1"))?.status == 405)
        #expect(httpExchange(port: port, path: "/v1/batch", body: trackBatch(10..<12), headers: basicAuth("k1"))?.status == 200)

        server.process.signal(SIGTERM)
        #expect(server.process.waitForExit(timeout: 60) == 143, "\(server.process.stderr)")
        try drainState(directory)
        let ids = records(in: directory, out: "out", destination: "archive").compactMap { $0["messageId"] as? String }
        #expect(ids.sorted() == ["m10", "m11"])
    }

    @Test func afterKill9BetweenRequestsAndMidEpochEveryAcknowledgedMessageIsInTheFilesExactlyOnce() throws {
        let directory = TemporaryDirectory()
        _ = directory.write("p.yaml", Array(Self.pipeline.utf8))
        let arguments = ["--pipeline", "p.yaml", "--out", "out", "--epoch-interval", "50ms", "--commit-interval", "0"]
        var acknowledged = Set<Int>()
        var server = try ServeProcess(arguments, in: directory)
        var next = 0
        /// Sends batch `range` until it is acknowledged; a batch that got no answer is sent again (as the SDKs do).
        func send(_ range: Range<Int>, to server: ServeProcess) -> Bool {
            let answer = httpExchange(port: server.port, path: "/v1/batch", body: trackBatch(range), headers: basicAuth("k1"))
            if answer?.status == 200 { acknowledged.formUnion(range) }
            return answer?.status == 200
        }
        for round in 0..<4 {
            for _ in 0..<8 {
                #expect(send(next..<next + 20, to: server))
                next += 20
            }
            // An epoch now, and the kill while it runs (or just after: the outcome must be the same).
            server.process.signal(SIGHUP)
            if round % 2 == 1 { usleep(UInt32(2_000 * round)) }
            server.process.signal(SIGKILL)
            _ = server.process.waitForExit(timeout: 30)
            // A batch in flight at the kill: no answer, sent again to the next server.
            let unanswered = next..<next + 20
            next += 20
            server = try ServeProcess(arguments, in: directory)
            #expect(send(unanswered, to: server))
        }
        for _ in 0..<5 {
            #expect(send(next..<next + 20, to: server))
            next += 20
        }
        server.process.signal(SIGTERM)
        #expect(server.process.waitForExit(timeout: 60) == 143, "\(server.process.stderr)")
        try drainState(directory)

        let ids = records(in: directory, out: "out", destination: "archive").compactMap { $0["messageId"] as? String }
        #expect(ids.count == Set(ids).count, "a message is in the files twice")
        #expect(Set(ids) == Set(acknowledged.map { "m\($0)" }))
        #expect(!FileManager.default.fileExists(atPath: directory.file("out/.sluice-serve/journal/commit")))
    }

    @Test func afterKill9WhileRequestsAreInFlightEveryAcknowledgedMessageIsInTheFilesExactlyOnce() throws {
        let directory = TemporaryDirectory()
        _ = directory.write("p.yaml", Array(Self.pipeline.utf8))
        let arguments = ["--pipeline", "p.yaml", "--out", "out", "--epoch-interval", "30ms", "--commit-interval", "1ms"]
        let sender = BatchSender()
        var server = try ServeProcess(arguments, in: directory)
        for round in 1...3 {
            // Two clients keep sending; the kill comes once enough is acknowledged, whatever is in flight then.
            let done = DispatchGroup()
            for _ in 0..<2 {
                done.enter()
                let port = server.port
                Thread { sender.sendUntilCutOff(port: port); done.leave() }.start()
            }
            #expect(waitUntil(timeout: 60) { sender.acknowledgedCount >= round * 200 })
            server.process.signal(SIGKILL)
            _ = server.process.waitForExit(timeout: 30)
            done.wait()
            server = try ServeProcess(arguments, in: directory)
            // What got no answer is sent again, as the SDKs do.
            for range in sender.takeUnanswered() {
                #expect(httpExchange(port: server.port, path: "/v1/batch", body: trackBatch(range), headers: basicAuth("k1"))?.status == 200)
                sender.acknowledge(range)
            }
        }
        server.process.signal(SIGTERM)
        #expect(server.process.waitForExit(timeout: 60) == 143, "\(server.process.stderr)")
        try drainState(directory)

        let ids = records(in: directory, out: "out", destination: "archive").compactMap { $0["messageId"] as? String }
        #expect(ids.count == Set(ids).count, "a message is in the files twice")
        #expect(Set(ids) == Set(sender.acknowledged.map { "m\($0)" }))
    }

    /// Segment's own Python SDK (`pip install segment-analytics-python`), gzip on, pointed at the server:
    /// skipped where python3 or the package is missing, except in CI, which installs it.
    @Test(.enabled(if: pythonModuleInstalled("segment.analytics", requiredBy: "SLUICE_REQUIRE_SEGMENT_SDK"), "needs python3 and segment-analytics-python"))
    func segmentsPythonSDKSendsThroughTheServerAndEveryMessageReachesTheFilesOnce() throws {
        let directory = TemporaryDirectory()
        _ = directory.write("p.yaml", Array(Self.pipeline.utf8))
        _ = directory.write("send.py", """
            import sys
            import segment.analytics as analytics
            errors = []
            def on_error(error, batch):
                errors.append(str(error))
            client = analytics.Client(sys.argv[1], host=sys.argv[2], gzip=True, on_error=on_error, upload_size=10, max_retries=3)
            for i in range(50):
                client.track(user_id=f"u{i % 5}", event="Song Played", properties={"i": i}, message_id=f"py{i}")
            client.screen(user_id="u1", name="Home", message_id="py-screen")
            client.identify(user_id="u1", traits={"plan": "pro"}, message_id="py-identify")
            client.group(user_id="u1", group_id="g1", traits={"name": "Acme"}, message_id="py-group")
            client.alias(previous_id="anon-1", user_id="u1", message_id="py-alias")
            client.page(user_id="u1", name="Pricing", message_id="py-page")
            client.shutdown()
            if errors:
                print("\\n".join(errors), file=sys.stderr)
                sys.exit(1)

            """)
        let server = try ServeProcess(["--pipeline", "p.yaml", "--out", "out"], in: directory, keys: "wk_python")
        let sent = try SluiceBinary.shell("python3 send.py wk_python http://127.0.0.1:\(server.port)", in: directory.path)
        #expect(sent.status == 0, "\(sent.stderr)")
        let refused = try SluiceBinary.shell("python3 send.py not_a_key http://127.0.0.1:\(server.port)", in: directory.path)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("401"))
        server.process.signal(SIGTERM)
        #expect(server.process.waitForExit(timeout: 60) == 143, "\(server.process.stderr)")
        try drainState(directory)

        let archive = records(in: directory, out: "out", destination: "archive")
        let ids = archive.compactMap { $0["messageId"] as? String }
        let expected = (0..<50).map { "py\($0)" } + ["py-screen", "py-identify", "py-group", "py-alias", "py-page"]
        #expect(ids.sorted() == expected.sorted())
        #expect(archive.allSatisfy { (($0["context"] as? [String: Any])?["library"] as? [String: Any])?["name"] as? String == "analytics-python" })
        #expect(Set(archive.compactMap { $0["type"] as? String }) == ["track", "screen", "identify", "group", "alias", "page"])
    }

    @Test func aJournalWriteThatFailsIsAnswered503AndNothingOfItReachesTheFiles() throws {
        let directory = TemporaryDirectory()
        _ = directory.write("p.yaml", Array(Self.pipeline.utf8))
        // 8 KiB per file: the journal's first segment cannot take a second batch, as on a full disk.
        let server = try ServeProcess(["--pipeline", "p.yaml", "--out", "out"], in: directory, fileSizeLimit: 8)
        #expect(httpExchange(port: server.port, path: "/v1/batch", body: trackBatch(0..<25), headers: basicAuth("k1"))?.status == 200)
        let failed = httpExchange(port: server.port, path: "/v1/batch", body: trackBatch(25..<50), headers: basicAuth("k1"))
        #expect(failed?.status == 503)
        #expect(failed?.body.contains("not journaled") == true, "\(String(describing: failed))")
        // Still answering: a small request fits what is left.
        #expect(httpExchange(port: server.port, path: "/v1/batch", body: trackBatch(50..<51), headers: basicAuth("k1"))?.status == 200)
        server.process.signal(SIGTERM)
        #expect(server.process.waitForExit(timeout: 60) == 143, "\(server.process.stderr)")
        try drainState(directory)
        let ids = records(in: directory, out: "out", destination: "archive").compactMap { $0["messageId"] as? String }
        #expect(Set(ids) == Set((0..<25).map { "m\($0)" } + ["m50"]))
        #expect(ids.count == 26)
    }

    @Test func metricsCountRequestsByStatusMessagesLatencyAndTheBacklog() throws {
        let directory = TemporaryDirectory()
        _ = directory.write("p.yaml", Array(Self.pipeline.utf8))
        let server = try ServeProcess(["--pipeline", "p.yaml", "--out", "out"], in: directory)
        for batch in 0..<3 {
            #expect(httpExchange(port: server.port, path: "/v1/batch", body: trackBatch(batch * 10..<batch * 10 + 10), headers: basicAuth("k1"))?.status == 200)
        }
        #expect(httpExchange(port: server.port, path: "/v1/batch", body: trackBatch(0..<1), headers: basicAuth("nope"))?.status == 401)
        let scraped = httpExchange(port: server.port, method: "GET", path: "/metrics")
        #expect(scraped?.status == 200)
        let text = scraped?.body ?? ""
        let samples = prometheusSamples(text: text)
        #expect(samples["sluice_serve_requests_total{status=\"200\"}"] == 3)
        #expect(samples["sluice_serve_requests_total{status=\"401\"}"] == 1)
        #expect(samples["sluice_serve_messages_total"] == 30)
        #expect(samples["sluice_serve_request_duration_seconds_count"] == 4)
        #expect(samples["sluice_serve_request_duration_seconds_bucket{le=\"+Inf\"}"] == 4)
        #expect((samples["sluice_serve_journal_backlog_bytes"] ?? 0) > 0)
        #expect(samples["sluice_serve_accepting"] == 1)
        // Prometheus's own parser (prometheus_client), where it is installed.
        if (try? SluiceBinary.shell("python3 -c 'import prometheus_client'", in: directory.path).status) == 0 {
            _ = directory.write("metrics.txt", Array(text.utf8))
            let parsed = try SluiceBinary.shell("""
                python3 -c 'import sys; from prometheus_client.parser import text_string_to_metric_families as f
                print(sorted(m.name for m in f(open("metrics.txt").read())))'
                """, in: directory.path)
            #expect(parsed.status == 0, "\(parsed.stderr)")
            #expect(parsed.stdoutText.contains("sluice_serve_request_duration_seconds"))
        }
        server.process.signal(SIGTERM)
        #expect(server.process.waitForExit(timeout: 60) == 143, "\(server.process.stderr)")
    }

    @Test func aSlowClientIsAnswered408AndAConnectionOverTheCap503() throws {
        let directory = TemporaryDirectory()
        _ = directory.write("p.yaml", Array(Self.pipeline.utf8))
        // Slowloris: half a head, never finished; then a body that never ends.
        let slow = try ServeProcess(["--pipeline", "p.yaml", "--out", "out", "--request-timeout", "300ms"], in: directory)
        for partial in ["POST /v1/batch HTTP/1.1\r\nHost: x\r\n", "POST /v1/batch HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"ba"] {
            let fd = try #require(connectLoopback(port: slow.port))
            sendAll(fd, Array(partial.utf8))
            #expect(readAnswer(fd)?.status == 408)
            close(fd)
        }
        #expect(httpExchange(port: slow.port, path: "/v1/batch", body: trackBatch(0..<1), headers: basicAuth("k1"))?.status == 200)
        let metrics = httpExchange(port: slow.port, method: "GET", path: "/metrics")?.body ?? ""
        #expect(metrics.contains("sluice_serve_request_timeouts_total 2"))
        slow.process.signal(SIGTERM)
        #expect(slow.process.waitForExit(timeout: 60) == 143)

        let capped = try ServeProcess(["--pipeline", "p.yaml", "--out", "out2", "--max-connections", "2"], in: directory)
        let first = try #require(connectLoopback(port: capped.port))
        let second = try #require(connectLoopback(port: capped.port))
        let third = try #require(connectLoopback(port: capped.port))
        let refused = readAnswer(third)
        #expect(refused?.status == 503)
        #expect(refused?.body.contains("too many connections") == true)
        close(third)
        close(first)
        // Once one is closed, a new connection is taken again.
        #expect(waitUntil(timeout: 30) { httpExchange(port: capped.port, method: "GET", path: "/health")?.status == 200 })
        close(second)
        capped.process.signal(SIGTERM)
        #expect(capped.process.waitForExit(timeout: 60) == 143)
    }

    @Test func aHostThatIsNotLoopbackNeedsListenPublic() throws {
        let directory = TemporaryDirectory()
        let result = try SluiceBinary.run(["serve", "--listen", "0.0.0.0:0", "--write-key-env", "SERVE_KEYS", "--out", "out"],
                                          in: directory.path, environment: ["SERVE_KEYS": "k1"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--listen-public"))
    }
}

/// Clients sending batches of 10 until the server goes away, as SDKs would:
/// what was answered 200, and the batches that got no answer (or another status).
///
/// Sendable: every field is read and written under `lock`.
private final class BatchSender: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0
    private var acknowledgedIDs = Set<Int>()
    private var unanswered: [Range<Int>] = []

    var acknowledgedCount: Int { lock.withLock { acknowledgedIDs.count } }
    var acknowledged: Set<Int> { lock.withLock { acknowledgedIDs } }

    func acknowledge(_ range: Range<Int>) { lock.withLock { acknowledgedIDs.formUnion(range) } }

    func takeUnanswered() -> [Range<Int>] {
        lock.withLock {
            defer { unanswered = [] }
            return unanswered
        }
    }

    /// Sends until a request gets no answer (the server was killed).
    func sendUntilCutOff(port: Int) {
        while true {
            let range: Range<Int> = lock.withLock {
                defer { next += 10 }
                return next..<next + 10
            }
            let answer = httpExchange(port: port, path: "/v1/batch", body: trackBatch(range), headers: basicAuth("k1"))
            lock.withLock {
                if answer?.status == 200 { acknowledgedIDs.formUnion(range) } else { unanswered.append(range) }
            }
            if answer == nil { return }
        }
    }
}

/// A record as sorted-key JSON text, `receivedAt` and all, for comparing multisets of records.
private func canonical(_ record: [String: Any]) -> String {
    let data = (try? JSONSerialization.data(withJSONObject: record, options: [.sortedKeys])) ?? Data()
    return String(decoding: data, as: UTF8.self)
}
