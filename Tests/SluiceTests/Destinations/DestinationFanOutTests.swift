import Testing
@testable import Sluice
@testable import SluiceJSON
import SluiceTestSupport

/// The runner's fan-out with real provider destinations: `rename:` before the
/// name rules, what a destination does not take, refusals in the rejects, and
/// the line accounting around them.
@Suite struct DestinationFanOutTests {
    struct Outcome {
        var summary: RunSummary
        /// Each destination's records, and the rejects, as text lines.
        var records: [String: [String]]
        var rejects: [String]

        func destination(_ name: String) -> RunSummary.DestinationCounts {
            summary.destinations.first { $0.name == name }!
        }
    }

    private func run(_ destinations: String, _ lines: [String]) throws -> Outcome {
        let directory = TemporaryDirectory()
        let path = directory.write("in.ndjson", lines.map { $0 + "\n" }.joined())
        let configuration = try PipelineConfiguration.load(yaml: "version: 1\ndestinations:\n" + destinations, file: "p.yaml")
        var options = RunOptions()
        options.outDirectory = directory.file("out")
        let summary = try PipelineRunner(configuration: configuration, options: options).run(inputs: [path])
        #expect(summary.isBalanced)
        var records: [String: [String]] = [:]
        var rejects: [String] = []
        for file in directory.files() where file.hasPrefix("out/") {
            let text = String(decoding: TestGzip.decompressFile(directory.file(file)) ?? [], as: UTF8.self)
            let lines = text.split(separator: "\n").map(String.init)
            let name = String(file.split(separator: "/")[1])
            if name == "rejects" { rejects += lines } else { records[name, default: []] += lines }
        }
        return Outcome(summary: summary, records: records, rejects: rejects)
    }

    private func track(_ event: String, id: String = "m-1", user: String = "user-12345", properties: String = "{}") -> String {
        #"{"type":"track","event":"\#(event)","messageId":"\#(id)","timestamp":"2026-11-20T08:00:00Z","anonymousId":"dev-000001","userId":"\#(user)","properties":\#(properties)}"#
    }

    @Test func renameComesBeforeAdjustsTokenTable() throws {
        let outcome = try run("""
          adjust:
            type: adjust
            events: [purchase_completed, movie_tapped]
            rename: {purchase_completed: purchase, movie_tapped: unmapped}
            app_token: 4w565xzmb54d
            tokens: {purchase: f0ob4r, movie_tapped: abc123}
        """, [track("purchase_completed"), track("movie_tapped")])
        // Routed by its own name, looked up in `tokens:` by the new one.
        #expect(outcome.records["adjust"]?.count == 1)
        #expect(outcome.records["adjust"]?.first?.contains(#""event_token":"f0ob4r""#) == true)
        #expect(outcome.destination("adjust").notTaken == ["unsupported_event": 1])
        #expect(outcome.summary.emitted == 1 && outcome.summary.dropped == [.unrouted: 1])
    }

    @Test func renameComesBeforeGA4sNameRules() throws {
        let outcome = try run("""
          ga4: {type: ga4, stream: web, names: reject, rename: {"Avatar Changed": avatar_changed}}
        """, [track("Avatar Changed"), track("Profile Fields")])
        #expect(outcome.records["ga4"]?.first?.contains(#""name":"avatar_changed""#) == true)
        #expect(outcome.destination("ga4").refused == ["invalid_event_name": 1])
        #expect(outcome.summary.rejected == [RejectReason("invalid_event_name"): 1])
    }

    /// `rename:` to a name of Segment's Ecommerce spec makes it that spec event there:
    /// GA4's `purchase`, Amplitude's revenue fields; the other destinations keep the name.
    @Test func renameComesBeforeTheEcommerceMapping() throws {
        let outcome = try run("""
          ga4: {type: ga4, stream: web, rename: {purchase_completed: Order Completed}}
          amplitude: {type: amplitude, revenue: order_total, rename: {purchase_completed: Order Completed}}
          mixpanel: {type: mixpanel}
        """, [track("purchase_completed", properties: #"{"order_id":"o-7","revenue":9,"currency":"EUR"}"#)])
        #expect(outcome.records["ga4"]?.first?.contains(#""name":"purchase","params":{"engagement_time_msec":1,"transaction_id":"o-7""#) == true)
        #expect(outcome.records["amplitude"]?.first?.hasSuffix(#","revenue":9,"currency":"EUR","revenueType":"Purchase"}"#) == true)
        #expect(outcome.records["mixpanel"]?.first?.contains(#""event":"purchase_completed""#) == true)
        #expect(outcome.records["mixpanel"]?.first?.contains(#""amount""#) == false)
    }

    @Test func aRefusalIsARejectRecordEvenWhenAnotherDestinationTookTheEvent() throws {
        let outcome = try run("""
          mixpanel: {type: mixpanel}
          segment: {type: segment}
        """, [track("movie_tapped", user: "undefined")])
        #expect(outcome.summary.emitted == 1)
        #expect(outcome.summary.rejected.isEmpty)
        #expect(outcome.destination("mixpanel").refused == ["invalid_distinct_id": 1])
        #expect(outcome.rejects.count == 1)
        let reject = try JSONDocument.parse(Array(outcome.rejects[0].utf8))
        #expect(reject.string(at: JSONPath("destination")) == "mixpanel")
        #expect(reject.string(at: JSONPath("stage")) == "destination")
        #expect(reject.string(at: JSONPath("reason")) == "invalid_distinct_id")
        #expect(reject.string(at: JSONPath("line")) == track("movie_tapped", user: "undefined"))
    }

    @Test func aLineEveryDestinationRefusedIsRejectedOnceWithARecordPerDestination() throws {
        let outcome = try run("""
          mixpanel: {type: mixpanel}
          amplitude: {type: amplitude}
        """, [#"{"type":"track","event":"e","timestamp":"2026-11-20T08:00:00Z","anonymousId":"null"}"#])
        #expect(outcome.summary.emitted == 0)
        #expect(outcome.summary.rejected == [RejectReason("invalid_distinct_id"): 1])
        #expect(outcome.rejects.count == 2)
        #expect(Set(outcome.rejects.compactMap { try? JSONDocument.parse(Array($0.utf8)).string(at: JSONPath("destination")) })
                == ["mixpanel", "amplitude"])
    }

    @Test func messagesAProviderDoesNotTakeAreCountedPerDestinationUnderTheirReasonAndTheLineIsUnrouted() throws {
        let outcome = try run("""
          mixpanel: {type: mixpanel}
          ga4: {type: ga4}
          amplitude: {type: amplitude}
          segment: {type: segment}
        """, [
            #"{"type":"session","action":"start","anonymousId":"dev-000001","timestamp":"2026-11-20T08:00:00Z"}"#,
            #"{"type":"alias","previousId":"dev-000001","userId":"user-12345","timestamp":"2026-11-20T08:00:00Z"}"#,
            #"{"type":"identify","userId":"user-12345","timestamp":"2026-11-20T08:00:00Z","traits":{"plan":"pro"}}"#,
        ])
        // Mixpanel: no alias is needed in Simplified ID Merge, no profile without the project token;
        // GA4 keeps the identify's traits for later events; Amplitude maps no alias by default.
        #expect(outcome.destination("mixpanel").notTaken == ["unsupported_type": 1, "alias_not_needed": 1, "no_project_token": 1])
        #expect(outcome.destination("ga4").notTaken == ["unsupported_type": 2])
        #expect(outcome.destination("ga4").events == 1 && outcome.destination("ga4").records == 0)
        #expect(outcome.destination("amplitude").notTaken == ["unsupported_type": 1, "user_mapping_off": 1])
        #expect(outcome.destination("segment").notTaken == ["unsupported_type": 1])
        #expect(outcome.records["amplitude"]?.count == 1 && outcome.records["segment"]?.count == 2)
        #expect(outcome.summary.emitted == 2 && outcome.summary.dropped == [.unrouted: 1])
    }

    @Test func changesAreCountedPerKindInTheStats() throws {
        let outcome = try run("""
          ga4: {type: ga4, stream: web}
        """, [track("Avatar Changed", properties: #"{"flag":true,"gone":null}"#)])
        let changes = Dictionary(uniqueKeysWithValues: outcome.destination("ga4").changes.map { ($0.name, $0.value) })
        #expect(changes["name_characters_replaced"] == 1)
        #expect(changes["bool_param_stringified"] == 1)
        #expect(changes["null_param_dropped"] == 1)
        #expect(outcome.summary.json.contains(#""changes":{"#))
    }
}
