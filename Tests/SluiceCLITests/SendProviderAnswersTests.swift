import Foundation
import ProviderEmulator
import SluiceTestSupport
import Testing

/// Each answer a provider documents, as its documentation gives it (the emulator
/// plays it back for one request), and what `sluice send` makes of it.
@Suite struct SendProviderAnswersTests {
    private func rejects(_ fixture: SendFixture) -> [String] {
        gunzipFiles(fixture.directory, under: "out/send-rejects/\(fixture.dest)/").flatMap(\.lines)
            .map { String(decoding: $0, as: UTF8.self) }
    }

    /// Mixpanel's 400 is a partial success: `failed_records` names records by `index` (with
    /// `insert_id` or `$insert_id`, as its docs and answers spell it); the rest was imported.
    @Test(arguments: ["insert_id", "$insert_id"])
    func mixpanelsPartialSuccessRefusesTheNamedRecordsByIndexAndCountsTheRestSent(idKey: String) throws {
        let fixture = try SendFixture(.mixpanel, events: 200)
        let records = fixture.records()
        fixture.emulator.script([.answer(400, body: """
            {"code":400,"error":"some data points in the request failed validation","failed_records":[\
            {"index":1,"\(idKey)":"\(insertID(records[1]))","field":"properties.time","message":"'properties.time' is invalid: must be specified as seconds since epoch"},\
            {"index":3,"\(idKey)":"\(insertID(records[3]))","field":"properties.distinct_id","message":"'properties.distinct_id' is invalid"}],\
            "num_records_imported":\(records.count - 2),"status":"Bad Request"}
            """)])
        let result = try fixture.send(["--stats", "stats.json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fixture.emulator.requests == 1, "a partial success is not retried")
        let refused = rejects(fixture)
        #expect(refused.count == 2)
        #expect(refused.contains { $0.contains("\"index\":1,") && $0.contains("properties.time: 'properties.time' is invalid") })
        #expect(refused.contains { $0.contains("\"index\":3,") && $0.contains("properties.distinct_id") })
        #expect(fixture.stats()["sent"] as? Int == records.count - 2)
        #expect(fixture.stats()["refused"] as? Int == 2)
    }

    /// Amplitude's 400 with `events_with_missing_fields` and `silenced_events`: those go to the
    /// send-rejects with the field or "silenced", and the rest (not ingested) is sent again.
    @Test func amplitudesMissingFieldsAndSilencedEventsAreRefusedAndTheRestSentAgain() throws {
        let fixture = try SendFixture(.amplitude, events: 200)
        let records = fixture.records()
        fixture.emulator.script([.answer(400, body: """
            {"code":400,"error":"Request missing required field","missing_field":"event_type",\
            "events_with_missing_fields":{"event_type":[0]},"silenced_events":[2],"silenced_devices":["d-x"]}
            """)])
        let result = try fixture.send(["--stats", "stats.json"])
        #expect(result.status == 0, "\(result.stderr)")
        let refused = rejects(fixture)
        #expect(refused.count == 2)
        #expect(refused.contains { $0.contains("\"index\":0,") && $0.contains("event_type: missing") })
        #expect(refused.contains { $0.contains("\"index\":2,") && $0.contains("silenced device or user") })
        let kept = records.enumerated().filter { $0.offset != 0 && $0.offset != 2 }.map { insertID($0.element) }
        #expect(fixture.emulator.imported.map(\.insertID).sorted() == kept.sorted())
        #expect(fixture.stats()["sent"] as? Int == records.count - 2)
    }

    /// Segment answers 400 for a JSON error or a batch over its limits, naming no message:
    /// the batch goes to the send-rejects whole, with Segment's text, and is not retried.
    @Test func segmentsBatchLevel400RefusesTheBatchWholeWithItsMessage() throws {
        let fixture = try SendFixture(.segment, events: 100)
        let records = fixture.records()
        fixture.emulator.script([.answer(400, body: #"{"error":"batch exceeds the 500KB limit"}"#)])
        let result = try fixture.send(["--stats", "stats.json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fixture.emulator.requests == 1)
        let refused = rejects(fixture)
        #expect(refused.count == records.count)
        #expect(refused.allSatisfy { $0.contains("400: {\\\"error\\\":\\\"batch exceeds the 500KB limit\\\"}") }, "\(refused.first ?? "")")
        #expect(fixture.stats()["refused"] as? Int == records.count)
    }

    /// A 413 (Segment's and Amplitude's "payload too large") splits the batch until it fits.
    @Test func segments413SplitsTheBatchAndEveryMessageArrivesOnce() throws {
        let fixture = try SendFixture(.segment, events: 100)
        let records = fixture.records()
        fixture.emulator.script([.answer(413, body: #"{"error":"Payload Too Large"}"#)])
        let result = try fixture.send(["--stats", "stats.json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fixture.emulator.requests == 3)
        #expect(fixture.emulator.imported.map(\.insertID).sorted() == records.map(insertID).sorted())
    }

    /// GA4's collection endpoint "always returns a 2xx status code if the HTTP request was
    /// received", even for an event it drops: a 2xx is taken as sent, and nothing is refused.
    @Test func ga4sAlways2xxAnswerIsTakenAsSentWithNothingRefused() throws {
        let fixture = try SendFixture(.ga4, events: 40, send: SendOneRequestPerLineTests.ga4Send,
                                      destinationKeys: SendOneRequestPerLineTests.ga4Keys)
        let lines = fixture.records()
        fixture.emulator.script([.answer(204, body: "")])
        let result = try fixture.send(["--stats", "stats.json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fixture.stats()["sent"] as? Int == lines.count)
        #expect(fixture.stats()["refused"] as? Int == 0)
        #expect(rejects(fixture).isEmpty)
    }

    /// Adjust refuses one event per request: 400 with its `error`, 404 "Device not found",
    /// 451 for a device that opted out; each goes to the send-rejects with Adjust's words.
    @Test func adjustsPerEventErrorsRefuseThatEventWithAdjustsWords() throws {
        let keys = "    app_token: 4w565xzmb54d\n    tokens: {purchase_completed: f0ob4r, signed_out: abc123, screen_viewed: scr001}\n"
        let fixture = try SendFixture(.adjust, events: 600, destinationKeys: keys)
        let lines = fixture.records()
        #expect(lines.count > 3)
        fixture.emulator.script([
            .answer(400, body: #"{"error":"Event request failed (Invalid event token)"}"#),
            .answer(404, body: #"{"error":"Device not found"}"#),
            .answer(451, body: #"{"error":"Device opted out"}"#),
        ])
        let result = try SluiceBinary.run(["send", "--pipeline", "p.yaml", "--endpoint", "adjust=\(fixture.emulator.url)",
                                           "--stats", "stats.json", "out"],
                                          in: fixture.directory.path, environment: ["MIXPANEL_SECRET": SendFixture.secret])
        #expect(result.status == 0, "\(result.stderr)")
        let refused = rejects(fixture)
        #expect(refused.count == 3)
        for (status, words) in [(400, "Event request failed (Invalid event token)"), (404, "Device not found"), (451, "Device opted out")] {
            #expect(refused.contains { $0.contains("\"status\":\(status),") && $0.contains(words) }, "\(refused)")
        }
        #expect(fixture.stats()["sent"] as? Int == lines.count - 3)
        #expect(fixture.emulator.imported.count == lines.count - 3)
    }
}
