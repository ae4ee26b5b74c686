import Foundation
import SluiceTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `sluice serve`'s bounds and what it reports about them: the bodies held
/// at once (429), a journal on a disk that fills up (503), the errors' JSON
/// as the SDKs read it, and the run's own metrics in `GET /metrics`.
@Suite(.serialized) struct ServeLimitsTests {
    /// Two requests whose bodies together pass `--max-body-memory`: the second is answered 429 with
    /// `Retry-After` while the first is still arriving, the first is journaled, and the memory is given back.
    @Test func aRequestOverTheBodyMemoryCapIsAnswered429AndTheOneHoldingItIsJournaled() throws {
        let directory = TemporaryDirectory()
        _ = directory.write("p.yaml", Array(ServeTests.pipeline.utf8))
        let server = try ServeProcess(["--pipeline", "p.yaml", "--out", "out", "--max-body-memory", "40KiB"], in: directory)
        let first = trackBatch(0..<250), second = trackBatch(1000..<1100)
        #expect(first.count < 40 * 1024 && first.count + second.count > 40 * 1024, "\(first.count) + \(second.count)")
        guard let fd = connectLoopback(port: server.port) else {
            Issue.record("cannot connect")
            return
        }
        defer { close(fd) }
        let head = "POST /v1/batch HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n"
            + "Authorization: \(basicAuth("k1")["Authorization"]!)\r\nContent-Length: \(first.count)\r\n\r\n"
        let held = first.count - 100
        sendAll(fd, Array(head.utf8) + first[..<held])
        #expect(waitUntil(timeout: 30) { (scrapeMetrics(port: server.port)["sluice_serve_body_memory_bytes"] ?? 0) >= Double(held) })

        let refused = httpExchange(port: server.port, path: "/v1/batch", body: second, headers: basicAuth("k1"))
        #expect(refused?.status == 429)
        #expect(refused?.head.contains("Retry-After: 1") == true, "\(String(describing: refused))")
        #expect(refused?.body.contains(#""code":"too_many_requests""#) == true)

        sendAll(fd, Array(first[held...]))
        #expect(readAnswer(fd)?.status == 200)
        let samples = scrapeMetrics(port: server.port)
        #expect(samples["sluice_serve_body_memory_bytes"] == 0)
        #expect(samples["sluice_serve_body_memory_refusals_total"] == 1)
        #expect(samples["sluice_serve_requests_total{status=\"429\"}"] == 1)
        // Sent again once the memory is free, as the SDKs do after Retry-After.
        #expect(httpExchange(port: server.port, path: "/v1/batch", body: second, headers: basicAuth("k1"))?.status == 200)
        server.process.signal(SIGTERM)
        #expect(server.process.waitForExit(timeout: 60) == 143, "\(server.process.stderr)")
        try ServeTests().drainState(directory)
        let ids = records(in: directory, out: "out", destination: "archive").compactMap { $0["messageId"] as? String }
        #expect(ids.sorted() == ((0..<250).map { "m\($0)" } + (1000..<1100).map { "m\($0)" }).sorted())
    }

    /// Every refusal's JSON has `code` and `message`, which the SDKs read to tell a final
    /// answer from a network failure, and Segment's `error`.
    @Test func refusalsCarryACodeAndAMessageTheSDKsRead() throws {
        let directory = TemporaryDirectory()
        _ = directory.write("p.yaml", Array(ServeTests.pipeline.utf8))
        let server = try ServeProcess(["--pipeline", "p.yaml", "--out", "out"], in: directory)
        let answers: [(Int, String, (status: Int, body: String, head: String)?)] = [
            (401, "unauthorized", httpExchange(port: server.port, path: "/v1/batch", body: trackBatch(0..<1), headers: basicAuth("nope"))),
            (400, "bad_request", httpExchange(port: server.port, path: "/v1/batch", body: Array("{not json".utf8), headers: basicAuth("k1"))),
            (404, "not_found", httpExchange(port: server.port, path: "/v2/batch", body: trackBatch(0..<1), headers: basicAuth("k1"))),
            (405, "method_not_allowed", httpExchange(port: server.port, method: "PUT", path: "/v1/batch", body: trackBatch(0..<1),
                                                     headers: basicAuth("k1"))),
        ]
        for (status, code, answer) in answers {
            #expect(answer?.status == status)
            let object = (try? JSONSerialization.jsonObject(with: Data((answer?.body ?? "").utf8))) as? [String: Any]
            #expect(object?["code"] as? String == code, "\(String(describing: answer))")
            #expect((object?["message"] as? String)?.isEmpty == false)
            #expect(object?["message"] as? String == object?["error"] as? String)
            #expect(object?["success"] as? Bool == false)
        }
        server.process.signal(SIGTERM)
        #expect(server.process.waitForExit(timeout: 60) == 143, "\(server.process.stderr)")
    }

    /// After each committed epoch `GET /metrics` also carries the run's metrics (the names of
    /// `sluice run --metrics`), summed over the epochs since the server started.
    @Test func metricsCarryTheRunsCountsSummedOverTheCommittedEpochs() throws {
        let directory = TemporaryDirectory()
        _ = directory.write("p.yaml", Array(ServeTests.pipeline.utf8))
        let server = try ServeProcess(["--pipeline", "p.yaml", "--out", "out", "--epoch-interval", "1h"], in: directory)
        #expect(scrapeMetrics(port: server.port)["sluice_lines_in_total"] == nil, "no epoch yet, no run metrics")
        for (epoch, range) in [0..<30, 30..<50].enumerated() {
            #expect(httpExchange(port: server.port, path: "/v1/batch", body: trackBatch(range), headers: basicAuth("k1"))?.status == 200)
            server.process.signal(SIGHUP)
            #expect(waitUntil(timeout: 60) {
                scrapeMetrics(port: server.port)["sluice_serve_epochs_total{result=\"committed\"}"] == Double(epoch + 1)
            })
        }
        let samples = scrapeMetrics(port: server.port)
        #expect(samples["sluice_lines_in_total"] == 50, "\(samples.filter { $0.key.hasPrefix("sluice_lines") })")
        // What dedupe's window and the sessions hold are carried from epoch to epoch, never lost.
        let settled = (samples["sluice_lines_emitted_total"] ?? 0) + (samples["sluice_lines_in_flight"] ?? 0)
            + (samples["sluice_lines_carried_total"] ?? 0) - (samples["sluice_lines_carried_in_total"] ?? 0)
        #expect(settled == 50, "\(samples.filter { $0.key.hasPrefix("sluice_lines") })")
        #expect(samples["sluice_serve_messages_total"] == 50)
        server.process.signal(SIGTERM)
        #expect(server.process.waitForExit(timeout: 60) == 143, "\(server.process.stderr)")
    }

    /// The journal on a real full disk (a 1.25 MiB tmpfs, mounted in a mount namespace of the
    /// server's own): requests are answered 200 until only the 1 MiB kept for the epochs' commit
    /// record is free, then 503 with nothing of theirs in the files; the last epoch still commits,
    /// and every acknowledged message is in the files once.
    @Test(.enabled(if: canMountTmpfs(), "needs unshare -m and mount -t tmpfs (root, CAP_SYS_ADMIN)"))
    func onAFullTmpfsTheJournalAnswers503AndEveryAcknowledgedMessageIsInTheFilesOnce() throws {
        let directory = TemporaryDirectory()
        _ = directory.write("p.yaml", Array(ServeTests.pipeline.utf8))
        let server = try ServeProcess(["--pipeline", "p.yaml", "--out", "out", "--journal", "journal"], in: directory,
                                      setup: "mkdir -p journal && mount -t tmpfs -o size=1280k tmpfs journal",
                                      launcher: ["/usr/bin/unshare", "-m"])
        var acknowledged: [Int] = []
        var full: (status: Int, body: String, head: String)?
        for batch in 0..<400 where full == nil {
            let range = batch * 25..<batch * 25 + 25
            let answer = httpExchange(port: server.port, path: "/v1/batch", body: trackBatch(range), headers: basicAuth("k1"))
            if answer?.status == 200 { acknowledged += range } else { full = answer }
        }
        #expect(acknowledged.count >= 25, "nothing fit the tmpfs")
        #expect(full?.status == 503, "\(String(describing: full))")
        #expect(full?.body.contains("not journaled: the journal's disk is full") == true, "\(String(describing: full))")
        #expect(full?.head.contains("Retry-After") == true)
        server.process.signal(SIGTERM)
        #expect(server.process.waitForExit(timeout: 60) == 143, "\(server.process.stderr)")
        try ServeTests().drainState(directory)
        let ids = records(in: directory, out: "out", destination: "archive").compactMap { $0["messageId"] as? String }
        #expect(ids.count == acknowledged.count)
        #expect(Set(ids) == Set(acknowledged.map { "m\($0)" }))
    }
}

/// Whether this process may make a mount namespace and mount a tmpfs in it.
private func canMountTmpfs() -> Bool {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return false }
    let directory = TemporaryDirectory()
    let probe = try? SluiceBinary.shell("/usr/bin/unshare -m /bin/bash -c 'mkdir -p t && mount -t tmpfs -o size=64k tmpfs t'",
                                        in: directory.path)
    return probe?.status == 0
}
