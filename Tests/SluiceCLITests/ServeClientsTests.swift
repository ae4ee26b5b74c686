import Foundation
import SluiceTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `sluice serve` under the clients services already use: RudderStack's
/// Python SDK, and Segment's over HTTPS (`--tls-cert`, `--tls-key`).
@Suite(.serialized) struct ServeClientsTests {
    /// A self-signed certificate for 127.0.0.1 and localhost (valid to 2126) and its key, for these tests only.
    static let tls = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("TLS").path

    /// RudderStack's Python SDK (`pip install rudder-sdk-python`), gzip on, as a service would use it:
    /// every message in the files once; a wrong key given up after one answer (it reads `code` and
    /// `message` in an error's JSON, and retries when they are missing as if the network had failed).
    @Test(.enabled(if: pythonModuleInstalled("rudderstack.analytics", requiredBy: "SLUICE_REQUIRE_RUDDERSTACK_SDK"),
                   "needs python3 and rudder-sdk-python"))
    func rudderStacksPythonSDKSendsThroughTheServerAndAWrongKeyIsNotRetried() throws {
        let directory = TemporaryDirectory()
        _ = directory.write("p.yaml", Array(ServeTests.pipeline.utf8))
        _ = directory.write("send.py", """
            import sys
            from rudderstack.analytics.client import Client
            errors = []
            def on_error(error, batch):
                errors.append(str(error))
            client = Client(sys.argv[1], host=sys.argv[2], gzip=True, on_error=on_error, upload_size=10, max_retries=3)
            for i in range(40):
                client.track(user_id=f"u{i % 5}", event="Song Played", properties={"i": i}, message_id=f"rs{i}")
            client.screen(user_id="u1", name="Home", message_id="rs-screen")
            client.identify(user_id="u1", traits={"plan": "pro"}, message_id="rs-identify")
            client.group(user_id="u1", group_id="g1", traits={"name": "Acme"}, message_id="rs-group")
            client.alias(previous_id="anon-1", user_id="u1", message_id="rs-alias")
            client.page(user_id="u1", name="Pricing", message_id="rs-page")
            client.flush()
            client.join()
            if errors:
                print("\\n".join(errors), file=sys.stderr)
                sys.exit(1)

            """)
        let server = try ServeProcess(["--pipeline", "p.yaml", "--out", "out"], in: directory, keys: "wk_rudder")
        let sent = try SluiceBinary.shell("python3 send.py wk_rudder http://127.0.0.1:\(server.port)", in: directory.path)
        #expect(sent.status == 0, "\(sent.stderr)")
        let refused = try SluiceBinary.shell("python3 send.py not_a_key http://127.0.0.1:\(server.port)", in: directory.path)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("unauthorized"), "\(refused.stderr)")
        // 45 messages in batches of at most 10: five requests, each refused once and never sent again.
        let samples = scrapeMetrics(port: server.port)
        #expect(samples["sluice_serve_requests_total{status=\"401\"}"] == 5, "\(samples)")
        server.process.signal(SIGTERM)
        #expect(server.process.waitForExit(timeout: 60) == 143, "\(server.process.stderr)")
        try ServeTests().drainState(directory)

        let archive = records(in: directory, out: "out", destination: "archive")
        let ids = archive.compactMap { $0["messageId"] as? String }
        let expected = (0..<40).map { "rs\($0)" } + ["rs-screen", "rs-identify", "rs-group", "rs-alias", "rs-page"]
        #expect(ids.sorted() == expected.sorted())
        #expect(Set(archive.compactMap { $0["type"] as? String }) == ["track", "screen", "identify", "group", "alias", "page"])
        // RudderStack's identify carries its traits in context.traits: Mixpanel's profile update still gets them.
        let mixpanel = records(in: directory, out: "out", destination: "mixpanel")
        #expect(mixpanel.contains { (($0["$set"] as? [String: Any])?["plan"] as? String) == "pro" }, "\(mixpanel.suffix(3))")
    }

    /// Segment's Python SDK keeps sending while the server is killed (-9) and started again on the
    /// same port: the SDK sends again what got no answer, and every message it was not told
    /// failed is in the files exactly once (the journal, and dedupe for a batch journaled whose
    /// 200 never went out).
    @Test(.enabled(if: pythonModuleInstalled("segment.analytics", requiredBy: "SLUICE_REQUIRE_SEGMENT_SDK"),
                   "needs python3 and segment-analytics-python"))
    func segmentsSDKSendsThroughAKill9AndARestartAndEveryMessageItWasNotToldFailedIsInTheFilesOnce() throws {
        let directory = TemporaryDirectory()
        _ = directory.write("p.yaml", Array(ServeTests.pipeline.utf8))
        _ = directory.write("send.py", """
            import json, sys
            import segment.analytics as analytics
            failed = []
            def on_error(error, batch):
                failed.extend(message["messageId"] for message in batch)
            client = analytics.Client(sys.argv[1], host=sys.argv[2], gzip=True, on_error=on_error, upload_size=20, max_retries=10,
                                      upload_interval=0.01)
            for i in range(int(sys.argv[3])):
                client.track(user_id=f"u{i % 9}", event="Song Played", properties={"i": i}, message_id=f"k{i}")
            client.shutdown()
            json.dump(failed, open("failed.json", "w"))

            """)
        let server = try ServeProcess(["--pipeline", "p.yaml", "--out", "out"], in: directory, keys: "wk_kill")
        let port = server.port
        let sender = try SluiceProcess(["python3", "send.py", "wk_kill", "http://127.0.0.1:\(port)", "4000"], in: directory.path,
                                       executable: "/usr/bin/env")
        // Killed once a part of the stream is acknowledged, while the SDK is still sending.
        #expect(waitUntil(timeout: 60) { (scrapeMetrics(port: port)["sluice_serve_messages_total"] ?? 0) >= 600 })
        server.process.signal(SIGKILL)
        _ = server.process.waitForExit(timeout: 30)
        let again = try ServeProcess(["--pipeline", "p.yaml", "--out", "out"], in: directory, keys: "wk_kill", port: port)
        #expect(sender.waitForExit(timeout: 120) == 0, "\(sender.stderr)")
        again.process.signal(SIGTERM)
        #expect(again.process.waitForExit(timeout: 60) == 143, "\(again.process.stderr)")
        try ServeTests().drainState(directory)

        let failed = Set((try? JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("failed.json"))))
                          as? [String]) ?? ["failed.json missing"])
        let ids = records(in: directory, out: "out", destination: "archive").compactMap { $0["messageId"] as? String }
        #expect(ids.count == Set(ids).count, "a message is in the files twice")
        let expected = Set((0..<4000).map { "k\($0)" }).subtracting(failed)
        let missing = expected.subtracting(ids).sorted().prefix(5), unexpected = Set(ids).subtracting(expected).sorted().prefix(5)
        #expect(Set(ids) == expected, "\(failed.count) failed; missing \(missing), unexpected \(unexpected)")
        #expect(failed.count < 100, "the SDK gave up on \(failed.count) messages")
    }

    /// HTTPS with the given certificate: Segment's Python SDK, trusting that certificate, sends
    /// through it; plain HTTP on the same port gets no HTTP answer; a key that is not PEM is exit 78.
    @Test(.enabled(if: pythonModuleInstalled("segment.analytics", requiredBy: "SLUICE_REQUIRE_SEGMENT_SDK"),
                   "needs python3 and segment-analytics-python"))
    func overTLSSegmentsSDKSendsAndPlainHTTPIsNotAnswered() throws {
        let directory = TemporaryDirectory()
        _ = directory.write("p.yaml", Array(ServeTests.pipeline.utf8))
        _ = directory.write("send.py", """
            import sys
            import segment.analytics as analytics
            errors = []
            def on_error(error, batch):
                errors.append(str(error))
            client = analytics.Client(sys.argv[1], host=sys.argv[2], gzip=True, on_error=on_error, upload_size=10, max_retries=1)
            for i in range(25):
                client.track(user_id=f"u{i % 5}", event="Song Played", properties={"i": i}, message_id=f"tls{i}")
            client.shutdown()
            if errors:
                print("\\n".join(errors), file=sys.stderr)
                sys.exit(1)

            """)
        let certificate = Self.tls + "/localhost-cert.pem", key = Self.tls + "/localhost-key.pem"
        let server = try ServeProcess(["--pipeline", "p.yaml", "--out", "out", "--tls-cert", certificate, "--tls-key", key],
                                      in: directory, keys: "wk_tls")
        let sent = try SluiceBinary.shell("python3 send.py wk_tls https://127.0.0.1:\(server.port)", in: directory.path,
                                          environment: ["REQUESTS_CA_BUNDLE": certificate])
        #expect(sent.status == 0, "\(sent.stderr)")
        // Without the certificate trusted the SDK refuses the server.
        let untrusted = try SluiceBinary.shell("python3 send.py wk_tls https://127.0.0.1:\(server.port)", in: directory.path)
        #expect(untrusted.status == 1)
        #expect(untrusted.stderr.contains("CERTIFICATE_VERIFY_FAILED"), "\(untrusted.stderr)")
        let plain = httpExchange(port: server.port, path: "/v1/batch", body: trackBatch(0..<1), headers: basicAuth("wk_tls"))
        #expect(plain == nil, "plain HTTP was answered: \(String(describing: plain))")
        server.process.signal(SIGTERM)
        #expect(server.process.waitForExit(timeout: 60) == 143, "\(server.process.stderr)")
        try ServeTests().drainState(directory)
        let ids = records(in: directory, out: "out", destination: "archive").compactMap { $0["messageId"] as? String }
        #expect(ids.sorted() == (0..<25).map { "tls\($0)" }.sorted())

        let broken = try SluiceBinary.run(["serve", "--pipeline", "p.yaml", "--out", "out2", "--listen", "127.0.0.1:0",
                                           "--write-key-env", "K", "--tls-cert", certificate, "--tls-key", "p.yaml"],
                                          in: directory.path, environment: ["K": "k"])
        #expect(broken.status == 78)
        #expect(broken.stderr.contains("--tls-key p.yaml: not a PEM private key"), "\(broken.stderr)")
        let half = try SluiceBinary.run(["serve", "--write-key-env", "K", "--tls-cert", certificate], in: directory.path,
                                        environment: ["K": "k"])
        #expect(half.status == 64)
        #expect(half.stderr.contains("give --tls-cert and --tls-key together"))
    }
}

/// `GET /metrics` read into samples by series (`name{labels}`).
func scrapeMetrics(port: Int) -> [String: Double] {
    prometheusSamples(text: httpExchange(port: port, method: "GET", path: "/metrics")?.body ?? "")
}

/// Whether `python3` can import `module`; always true where the environment variable
/// `requiredBy` is `1` (CI installs the package), so the test runs there and fails rather than being skipped.
func pythonModuleInstalled(_ module: String, requiredBy variable: String) -> Bool {
    if ProcessInfo.processInfo.environment[variable] == "1" { return true }
    let probe = Process()
    probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    probe.arguments = ["python3", "-c", "import \(module)"]
    probe.standardOutput = FileHandle.nullDevice
    probe.standardError = FileHandle.nullDevice
    guard (try? probe.run()) != nil else { return false }
    probe.waitUntilExit()
    return probe.terminationStatus == 0
}
