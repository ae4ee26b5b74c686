import Foundation
import ProviderEmulator
import SluiceTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// End to end: `sluice run`, then `sluice send` to the provider emulator on loopback.
@Suite struct SendCommandTests {
    @Test func runThenSendDeliversEveryRecordOnceAndMovesTheFilesToSent() throws {
        let fixture = try SendFixture(events: 6000, maxEvents: 700)
        let before = fixture.records()
        #expect(before.count > 5000)
        let result = try fixture.send(["--stats", "stats.json", "--metrics", "send.prom"])
        #expect(result.status == 0, "\(result.stderr)")
        let imported = fixture.emulator.imported.map(\.line)
        #expect(imported.sorted() == before.sorted())
        #expect(Set(imported.map(insertID)).count == imported.count)
        #expect(gunzipFiles(fixture.directory, under: "out/mixpanel/").isEmpty)
        #expect(gunzipFiles(fixture.directory, under: "out/sent/mixpanel/").flatMap(\.lines).count == before.count)
        let stats = fixture.stats()
        #expect(stats["records"] as? Int == before.count)
        #expect(stats["sent"] as? Int == before.count)
        #expect(stats["unsent"] as? Int == 0)
        #expect(stats["requests"] as? Int == fixture.emulator.requests)
        let metrics = prometheusSamples(fixture.directory.file("send.prom"))
        #expect(metrics["sluice_send_records_total{destination=\"mixpanel\",outcome=\"sent\"}"] == Double(before.count))
        // A second send finds nothing left.
        let again = try fixture.send(["--stats", "stats2.json"])
        #expect(again.status == 0)
        #expect(fixture.stats("stats2.json")["records"] as? Int == 0)
        #expect(fixture.emulator.imported.count == before.count)
    }

    @Test func theSecretIsNeverPrintedNorWritten() throws {
        let fixture = try SendFixture(events: 300)
        let basic = Data((SendFixture.secret + ":").utf8).base64EncodedString()
        var texts: [String] = []
        // A failure first, whose message quotes the provider's answer.
        let wrong = try fixture.send(["--stats", "failed.json"], secret: "another-secret-that-is-wrong")
        #expect(wrong.status == 77)
        texts += [wrong.stderr, wrong.stdoutText]
        for extra in [["--dry-run"], ["--stats", "stats.json", "--metrics", "m.prom", "--progress"]] {
            let result = try fixture.send(extra)
            #expect(result.status == 0, "\(result.stderr)")
            texts += [result.stderr, result.stdoutText]
        }
        for file in ["stats.json", "m.prom", "failed.json", "out/.sluice-send/mixpanel.ledger"] {
            texts.append((try? String(contentsOfFile: fixture.directory.file(file), encoding: .utf8)) ?? "")
        }
        for text in texts {
            #expect(!text.contains(SendFixture.secret))
            #expect(!text.contains(basic))
            #expect(!text.contains("another-secret-that-is-wrong"))
        }
        #expect(fixture.emulator.authorizations.contains("Basic " + basic))
    }

    @Test func refusedCredentialsExit77WithNothingMarkedSent() throws {
        let fixture = try SendFixture(events: 3000, maxEvents: 500, emulatorSecret: "the-right-secret-0000")
        let files = gunzipFiles(fixture.directory, under: "out/mixpanel/").map(\.file)
        let result = try fixture.send(["--stats", "stats.json"])
        #expect(result.status == 77, "\(result.stderr)")
        #expect(result.stderr.contains("refused the credentials"))
        #expect(fixture.emulator.imported.isEmpty)
        #expect(fixture.emulator.statuses.allSatisfy { $0 == 401 })
        #expect(!fixture.ledger().contains { $0.hasPrefix("ack") || $0.hasPrefix("done") })
        #expect(gunzipFiles(fixture.directory, under: "out/mixpanel/").map(\.file) == files)
        #expect(gunzipFiles(fixture.directory, under: "out/sent/").isEmpty)
        #expect(fixture.stats()["sent"] as? Int == 0)
    }

    @Test func aBatchTooLargeForTheProviderIsSplitUntilItFits() throws {
        // Files of 2000 records; this provider takes 300 a request: 413, halves, quarters, eighths.
        let fixture = try SendFixture(events: 4000, maxEvents: 2000, maxRecords: 300)
        let before = fixture.records()
        let result = try fixture.send(["--stats", "stats.json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fixture.emulator.statuses.contains(413))
        #expect(fixture.emulator.imported.map(\.line).sorted() == before.sorted())
        #expect(fixture.stats()["sent"] as? Int == before.count)
    }

    @Test func recordsTheProviderRefusesGoToSendRejectsWithItsReasonAndTheRestCountAsSent() throws {
        let refused = (0..<3).map { i in
            "{\"type\":\"track\",\"event\":\"Bad\",\"userId\":\"u-refused-\(i)\",\"messageId\":\"m-refused-\(i)\","
                + "\"timestamp\":\"2026-11-20T08:30:00Z\",\"properties\":{\"emulator_refuse\":true}}"
        }
        let fixture = try SendFixture(events: 500, extraInput: refused)
        let before = fixture.records()
        let result = try fixture.send(["--stats", "stats.json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fixture.emulator.imported.count == before.count - 3)
        let rejects = gunzipFiles(fixture.directory, under: "out/send-rejects/mixpanel/").flatMap(\.lines)
        #expect(rejects.count == 3)
        for line in rejects {
            let object = try JSONSerialization.jsonObject(with: Data(line)) as! [String: Any]
            #expect(object["reason"] as? String == "properties.emulator_refuse: 'properties.emulator_refuse' is invalid")
            #expect(object["status"] as? Int == 400)
            let record = object["record"] as? [String: Any]
            #expect(record?["event"] as? String == "Bad")
        }
        let stats = fixture.stats()
        #expect(stats["refused"] as? Int == 3)
        #expect(stats["sent"] as? Int == before.count - 3)
        #expect(gunzipFiles(fixture.directory, under: "out/mixpanel/").isEmpty)
    }

    @Test func answers429And503AreRetriedHonouringRetryAfter() throws {
        let fixture = try SendFixture(events: 1000)
        fixture.emulator.script([.status(429, retryAfter: "1"), .status(503), .status(502, retryAfter: "0")])
        let started = Date()
        let result = try fixture.send(["--stats", "stats.json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Date().timeIntervalSince(started) >= 1.0)
        #expect(fixture.emulator.imported.map(\.line).sorted() == fixture.records().sorted())
        #expect(fixture.stats()["retried"] as? Int == 3)
    }

    @Test func slowAnswersPastTheRequestTimeoutAreRetried() throws {
        let fixture = try SendFixture(events: 300)
        fixture.emulator.script([.delay(milliseconds: 1500)])
        let result = try fixture.send(["--stats", "stats.json", "--request-timeout", "300ms"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect((fixture.stats()["retried"] as? Int ?? 0) >= 1)
        // The timed-out request may have been imported too: Mixpanel's dedup takes it as one (same $insert_id).
        let imported = fixture.emulator.imported.map(\.line)
        #expect(Set(imported).sorted() == fixture.records().sorted())
    }

    /// `--request-timeout` is the whole request's deadline: an answer dripped a byte every
    /// half second is cut off, and the batch retried, instead of holding the sender for minutes.
    @Test func anAnswerDrippedByteByByteIsCutOffAtTheRequestTimeoutAndRetried() throws {
        let fixture = try SendFixture(events: 300)
        fixture.emulator.script([.drip(milliseconds: 500)])
        let started = Date()
        let result = try fixture.send(["--stats", "stats.json", "--request-timeout", "2s", "--max-retry-time", "15s"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Date().timeIntervalSince(started) < 12, "the dripped answer held the send")
        #expect((fixture.stats()["retried"] as? Int ?? 0) >= 1)
        #expect(Set(fixture.emulator.imported.map(\.line)).sorted() == fixture.records().sorted())
    }

    /// `--only NAME` sends that destination alone, and the others' credentials are not needed;
    /// an unknown name, or an `--endpoint` for a destination this command does not send, says why.
    @Test func onlySendsTheNamedDestinationWithoutTheOthersCredentials() throws {
        let fixture = try SendFixture(events: 300)
        fixture.directory.write("two.yaml", """
            version: 1
            destinations:
              mixpanel: {type: mixpanel, send: {credentials_env: MIXPANEL_SECRET}}
              amplitude: {type: amplitude, send: {credentials_env: AMPLITUDE_KEY_NOT_SET}}

            """)
        let environment = ["MIXPANEL_SECRET": SendFixture.secret]
        let send = { (extra: [String]) in
            try SluiceBinary.run(["send", "--pipeline", "two.yaml", "--endpoint", "mixpanel=\(fixture.emulator.url)"] + extra + ["out"],
                                 in: fixture.directory.path, environment: environment)
        }
        let all = try send([])
        #expect(all.status == 78, "\(all.stderr)")
        #expect(all.stderr.contains("AMPLITUDE_KEY_NOT_SET"))
        let unknown = try send(["--only", "mixpanl"])
        #expect(unknown.status == 64, "\(unknown.stderr)")
        #expect(unknown.stderr.contains("--only mixpanl: no destination or side output 'mixpanl'"))
        let left = try send(["--only", "amplitude"])
        #expect(left.status == 64, "\(left.stderr)")
        #expect(left.stderr.contains("--endpoint mixpanel=…: mixpanel is not sent by this command: --only leaves it out"), "\(left.stderr)")
        let validating = try send(["--validate"])
        #expect(validating.status == 64, "\(validating.stderr)")
        #expect(validating.stderr.contains("--validate checks only destinations with a validation endpoint (ga4), and mixpanel is mixpanel"),
                "\(validating.stderr)")
        #expect(fixture.emulator.requests == 0)
        let only = try send(["--only", "mixpanel"])
        #expect(only.status == 0, "\(only.stderr)")
        #expect(fixture.emulator.imported.map(\.line).sorted() == fixture.records().sorted())
    }

    @Test func retryingPastMaxRetryTimeExits75AndARerunFinishes() throws {
        let fixture = try SendFixture(events: 500)
        fixture.emulator.script(Array(repeating: .status(503, retryAfter: "1"), count: 3))
        let result = try fixture.send(["--max-retry-time", "1500ms"])
        #expect(result.status == 75, "\(result.stderr)")
        #expect(result.stderr.contains("gave up"))
        #expect(fixture.emulator.imported.isEmpty)
        let rerun = try fixture.send()
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(fixture.emulator.imported.map(\.line).sorted() == fixture.records().sorted())
    }

    @Test func dryRunPrintsTheRequestsAndSendsNothing() throws {
        let fixture = try SendFixture(events: 1000, maxEvents: 400)
        let count = fixture.records().count
        let result = try SluiceBinary.run(["send", "--pipeline", "p.yaml", "--dry-run", "out"], in: fixture.directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n")
        #expect(lines.count == gunzipFiles(fixture.directory, under: "out/mixpanel/").count)
        #expect(lines.allSatisfy { $0.hasPrefix("mixpanel POST https://api.mixpanel.com/import?strict=1 mixpanel/") })
        #expect(result.stderr.contains("\(count) records"))
        #expect(fixture.emulator.requests == 0)
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.file("out/sent")))
    }

    @Test func afterSendKeepLeavesTheFilesAndARerunSendsNothingAgain() throws {
        let fixture = try SendFixture(events: 800, send: "{credentials_env: MIXPANEL_SECRET, after_send: keep, region: eu}")
        let files = gunzipFiles(fixture.directory, under: "out/mixpanel/").map(\.file)
        #expect(try fixture.send().status == 0)
        #expect(try fixture.send().status == 0)
        #expect(gunzipFiles(fixture.directory, under: "out/mixpanel/").map(\.file) == files)
        #expect(fixture.emulator.imported.count == fixture.records().count)
    }
}
