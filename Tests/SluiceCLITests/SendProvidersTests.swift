import Foundation
import ProviderEmulator
import SluiceTestSupport
import Testing

/// `sluice send` to Amplitude and Segment, each checked by the emulator against its documented request shape.
@Suite struct SendProvidersTests {
    @Test(arguments: [ProviderEmulator.Provider.amplitude, .segment])
    func runThenSendDeliversEveryRecordOnceInTheProvidersEnvelope(provider: ProviderEmulator.Provider) throws {
        let fixture = try SendFixture(provider, events: 5000, maxEvents: 900)
        let ids = fixture.recordIDs()
        #expect(ids.count > 4000)
        let result = try fixture.send(["--stats", "stats.json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fixture.emulator.imported.map(\.insertID).sorted() == ids.sorted())
        #expect(Set(ids).count == ids.count)
        #expect(fixture.waiting().isEmpty)
        #expect(fixture.stats()["sent"] as? Int == ids.count)
        #expect(fixture.emulator.statuses.allSatisfy { $0 == 200 })
    }

    @Test func amplitudesRefusedEventsGoToSendRejectsAndTheRestIsSentAgain() throws {
        let refused = (0..<2).map { i in
            "{\"type\":\"track\",\"event\":\"Bad\",\"userId\":\"user-refused-\(i)\",\"messageId\":\"m-refused-\(i)\","
                + "\"timestamp\":\"2026-11-20T08:30:00Z\",\"properties\":{\"emulator_refuse\":true}}"
        }
        let fixture = try SendFixture(.amplitude, events: 400, extraInput: refused)
        let ids = fixture.recordIDs()
        let result = try fixture.send(["--stats", "stats.json"])
        #expect(result.status == 0, "\(result.stderr)")
        // The 400 imported nothing; the rest went again, and only the two refused are missing.
        #expect(fixture.emulator.statuses.first == 400)
        #expect(fixture.emulator.imported.count == ids.count - 2)
        #expect(Set(fixture.emulator.imported.map(\.insertID)).count == ids.count - 2)
        let rejects = gunzipFiles(fixture.directory, under: "out/send-rejects/amplitude/").flatMap(\.lines)
        #expect(rejects.count == 2)
        #expect(rejects.allSatisfy { String(decoding: $0, as: UTF8.self).contains("\"reason\":\"event_properties: invalid\"") })
        #expect(fixture.stats()["refused"] as? Int == 2)
        #expect(fixture.stats()["sent"] as? Int == ids.count - 2)
    }

    /// Amplitude's 429 names devices over their daily quota and throttled events: the
    /// over-quota events go to the send-rejects, the throttled ones are sent after a
    /// wait, the rest at once; every other file is acknowledged in the same run (exit 0).
    @Test func amplitudesDailyQuotaRefusesThatDevicesEventsAndTheOtherFilesAreSentInTheSameRun() throws {
        let fixture = try SendFixture(.amplitude, events: 1500, maxEvents: 400)
        let records = fixture.records()
        let files = fixture.waiting()
        #expect(files.count >= 3)
        func device(_ line: String) -> String {
            ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any])?["device_id"] as? String ?? ""
        }
        let devices = records.map(device)
        // One device over its quota, another throttled twice.
        let counts = Dictionary(devices.map { ($0, 1) }, uniquingKeysWith: +).filter { !$0.key.isEmpty }
        let overQuota = counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }!.key
        let throttled = counts.filter { $0.key != overQuota }.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }!.key
        fixture.emulator.overDailyQuota(devices: [overQuota])
        fixture.emulator.throttle(devices: [throttled], times: 2)
        let result = try fixture.send(["--stats", "stats.json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fixture.emulator.statuses.contains(429))
        let refusedIDs = records.filter { device($0) == overQuota }.map(insertID)
        let rejects = gunzipFiles(fixture.directory, under: "out/send-rejects/amplitude/").flatMap(\.lines)
            .map { String(decoding: $0, as: UTF8.self) }
        #expect(rejects.count == refusedIDs.count)
        #expect(rejects.allSatisfy { $0.contains("exceeded_daily_quota_devices") && $0.contains("\"status\":429") })
        // Everything else arrived once, the throttled device's events included.
        let imported = fixture.emulator.imported.map(\.insertID)
        #expect(imported.sorted() == records.map(insertID).filter { !refusedIDs.contains($0) }.sorted())
        #expect(imported.contains { id in records.contains { insertID($0) == id && device($0) == throttled } })
        #expect(fixture.waiting().isEmpty, "every file acknowledged: \(fixture.waiting())")
        #expect(fixture.stats()["refused"] as? Int == refusedIDs.count)
        #expect(fixture.stats()["sent"] as? Int == records.count - refusedIDs.count)
    }

    /// A provider's answer that quotes the write key is written to the send-rejects with the key redacted.
    @Test func aSecretQuotedInAProvidersRefusalIsRedactedInTheSendRejects() throws {
        let refused = ["{\"type\":\"track\",\"event\":\"Bad\",\"userId\":\"u-1\",\"messageId\":\"m-1\","
            + "\"timestamp\":\"2026-11-20T08:30:00Z\",\"properties\":{\"emulator_refuse\":true}}"]
        let fixture = try SendFixture(.mixpanel, events: 50, extraInput: refused)
        fixture.emulator.quoteSecretInRefusals()
        let result = try fixture.send()
        #expect(result.status == 0, "\(result.stderr)")
        let rejects = gunzipFiles(fixture.directory, under: "out/send-rejects/mixpanel/").flatMap(\.lines)
            .map { String(decoding: $0, as: UTF8.self) }
        #expect(rejects.count == 1)
        #expect(rejects.allSatisfy { !$0.contains(SendFixture.secret) && $0.contains("[redacted]") }, "\(rejects)")
    }

    @Test func amplitudesInvalidAPIKeyIsRefusedCredentialsAndNeverPrinted() throws {
        // Amplitude answers a wrong key with a 400 that quotes it.
        let fixture = try SendFixture(.amplitude, events: 300, emulatorSecret: "the-right-amplitude-key")
        let result = try fixture.send(["--stats", "stats.json"])
        #expect(result.status == 77, "\(result.stderr)")
        #expect(result.stderr.contains("Invalid API key: [redacted]"))
        #expect(!result.stderr.contains(SendFixture.secret))
        let stats = (try? String(contentsOfFile: fixture.directory.file("stats.json"), encoding: .utf8)) ?? ""
        #expect(!stats.contains(SendFixture.secret))
        #expect(fixture.emulator.imported.isEmpty)
        #expect(!fixture.ledger().contains { $0.hasPrefix("ack") })
    }

    @Test func segmentsWrongWriteKeyExits77() throws {
        let fixture = try SendFixture(.segment, events: 300, emulatorSecret: "the-right-write-key")
        let result = try fixture.send()
        #expect(result.status == 77, "\(result.stderr)")
        #expect(fixture.emulator.imported.isEmpty)
        #expect(fixture.waiting().count == 1)
    }
}

/// GA4 and Adjust: one request per line.
@Suite struct SendOneRequestPerLineTests {
    static let ga4Keys = "    stream: web\n"
    static let ga4Send = "{credentials_env: MIXPANEL_SECRET, measurement_id: G-TEST123}"

    @Test func ga4GetsEachLineAsOneMeasurementProtocolRequest() throws {
        let fixture = try SendFixture(.ga4, events: 300, send: Self.ga4Send, destinationKeys: Self.ga4Keys)
        let lines = fixture.records()
        #expect(!lines.isEmpty)
        let result = try fixture.send(["--stats", "stats.json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fixture.emulator.requests == lines.count)
        #expect(fixture.emulator.imported.count == lines.count)
        #expect(fixture.stats()["sent"] as? Int == lines.count)
        #expect(!result.stderr.contains(SendFixture.secret))
    }

    @Test func ga4ValidateReportsTheValidationMessagesAndMarksNothingSent() throws {
        let fixture = try SendFixture(.ga4, events: 100, send: Self.ga4Send, destinationKeys: Self.ga4Keys)
        // A file of the destination's layout with one request GA4 would drop without a word.
        let bad = "{\"client_id\":\"c1\",\"events\":[{\"name\":\"9lives\",\"params\":{}}]}\n"
            + "{\"client_id\":\"c1\",\"events\":[{\"name\":\"fine\",\"params\":{}}]}\n"
        try FileManager.default.createDirectory(atPath: fixture.directory.file("out/ga4/2026-11-19"), withIntermediateDirectories: true)
        fixture.directory.write("out/ga4/2026-11-19/ga4-08-0000.ndjson.gz", TestGzip.compress(Array(bad.utf8)))
        let debug = fixture.emulator.url.replacingOccurrences(of: "/mp/collect", with: "/debug/mp/collect")
        let result = try SluiceBinary.run(["send", "--pipeline", "p.yaml", "--validate", "--endpoint", "ga4=\(debug)",
                                           "--stats", "stats.json", "out"],
                                          in: fixture.directory.path, environment: ["MIXPANEL_SECRET": SendFixture.secret])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fixture.emulator.imported.isEmpty)
        #expect(fixture.waiting().count == gunzipFiles(fixture.directory, under: "out/ga4/").count)
        #expect(!fixture.ledger().contains { $0.hasPrefix("ack") })
        let rejects = gunzipFiles(fixture.directory, under: "out/send-rejects/ga4/").flatMap(\.lines)
            .map { String(decoding: $0, as: UTF8.self) }
        #expect(rejects.count == 1)
        #expect(rejects.first?.contains("\"index\":0") == true)
        #expect(rejects.first?.contains("events: Event name must start with a letter (NAME_INVALID)") == true)
        #expect(fixture.stats()["refused"] as? Int == 1)
        #expect(fixture.emulator.requests == fixture.records().count)
    }

    /// [mp-send] "Events can be backdated up to 72 hours": an older request would be dropped
    /// without an error, so it goes to the send-rejects (status 0: never sent) instead.
    @Test func aGA4RequestOlderThan72HoursGoesToTheSendRejectsWithoutARequest() throws {
        let fixture = try SendFixture(.ga4, events: 40, send: Self.ga4Send, destinationKeys: Self.ga4Keys)
        let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
        let lines = "{\"client_id\":\"c1\",\"timestamp_micros\":\(now - 73 * 3_600_000_000),\"events\":[{\"name\":\"late\",\"params\":{}}]}\n"
            + "{\"client_id\":\"c1\",\"timestamp_micros\":\(now - 71 * 3_600_000_000),\"events\":[{\"name\":\"in_time\",\"params\":{}}]}\n"
        try FileManager.default.createDirectory(atPath: fixture.directory.file("out/ga4/2026-11-19"), withIntermediateDirectories: true)
        fixture.directory.write("out/ga4/2026-11-19/ga4-08-0000.ndjson.gz", TestGzip.compress(Array(lines.utf8)))
        let total = fixture.records().count
        let result = try fixture.send(["--stats", "stats.json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fixture.emulator.requests == total - 1)
        #expect(!fixture.emulator.imported.contains { $0.line.contains("\"late\"") })
        let rejects = gunzipFiles(fixture.directory, under: "out/send-rejects/ga4/").flatMap(\.lines)
            .map { String(decoding: $0, as: UTF8.self) }
        #expect(rejects.count == 1)
        #expect(rejects.first?.contains("\"index\":0,\"status\":0") == true, "\(rejects)")
        #expect(rejects.first?.contains("more than 72 hours before the request") == true)
        #expect(fixture.stats()["refused"] as? Int == 1)
        #expect(fixture.stats()["sent"] as? Int == total - 1)
    }

    /// `--validate` never ingests: an `--endpoint` ending in `/mp/collect` is posted to its
    /// `/debug/mp/collect`, any other path is refused before a request, and the summary says "validated".
    @Test func ga4ValidateGivenTheCollectionEndpointPostsToItsDebugPathOnly() throws {
        let fixture = try SendFixture(.ga4, events: 60, send: Self.ga4Send, destinationKeys: Self.ga4Keys)
        let lines = fixture.records()
        let environment = ["MIXPANEL_SECRET": SendFixture.secret]
        let result = try SluiceBinary.run(["send", "--pipeline", "p.yaml", "--validate", "--endpoint", "ga4=\(fixture.emulator.url)", "out"],
                                          in: fixture.directory.path, environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fixture.emulator.requests == lines.count)
        #expect(fixture.emulator.imported.isEmpty, "a validation must never reach /mp/collect")
        #expect(result.stderr.contains("\(lines.count) records validated"), "\(result.stderr)")
        #expect(!result.stderr.contains("records sent"))
        let other = fixture.emulator.url.replacingOccurrences(of: "/mp/collect", with: "/collect-elsewhere")
        let refused = try SluiceBinary.run(["send", "--pipeline", "p.yaml", "--validate", "--endpoint", "ga4=\(other)", "out"],
                                           in: fixture.directory.path, environment: environment)
        #expect(refused.status == 64, "\(refused.stderr)")
        #expect(refused.stderr.contains("/debug/mp/collect"))
        #expect(fixture.emulator.requests == lines.count)
    }

    @Test func adjustGetsEachEventAsFormParametersWithTheS2SToken() throws {
        let keys = "    app_token: 4w565xzmb54d\n    tokens: {purchase_completed: f0ob4r, signed_out: abc123, screen_viewed: scr001}\n"
        let fixture = try SendFixture(.adjust, events: 3000, destinationKeys: keys)
        let lines = fixture.records()
        #expect(!lines.isEmpty)
        let result = try fixture.send(["--stats", "stats.json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fixture.emulator.imported.count == lines.count)
        #expect(fixture.emulator.imported.allSatisfy { $0.line.contains("app_token=4w565xzmb54d") && $0.line.contains("s2s=1") })
        #expect(fixture.emulator.authorizations.allSatisfy { $0 == "Bearer " + SendFixture.secret })
    }
}
