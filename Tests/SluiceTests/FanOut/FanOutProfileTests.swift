import Testing
@testable import Sluice
@testable import SluiceJSON

/// Identify, group and alias messages through the fan-out: their records go to
/// the destination's side outputs, each counted in one place, and the line has
/// one fate like any event's.
@Suite struct FanOutProfileTests {
    typealias Harness = FanOutTests.Harness
    static let token = "0123456789abcdef0123456789abcdef"

    static let identify = #"{"type":"identify","anonymousId":"dev-000001","userId":"user-1234","messageId":"m-1","timestamp":"2026-11-20T08:00:00Z","traits":{"plan":"pro"}}"#
    static let group = #"{"type":"group","anonymousId":"dev-000001","userId":"user-1234","groupId":"g-1","messageId":"m-2","timestamp":"2026-11-20T08:00:01Z","traits":{"company_id":"acme"}}"#
    static let alias = #"{"type":"alias","previousId":"old-user-99","userId":"user-1234","messageId":"m-3","timestamp":"2026-11-20T08:00:02Z"}"#

    /// The fan-out asks for a destination's profile types only when it turns the type away as an event.
    @Test func aDestinationsProfileTypesAreTypesItDoesNotTakeAsEvents() throws {
        let configuration = try PipelineConfiguration.load(yaml: """
        version: 1
        destinations:
          mixpanel: {type: mixpanel, token: \(Self.token)}
          amplitude: {type: amplitude, user_mapping: true}
          ga4: {type: ga4}
          segment: {type: segment}
          archive: {type: ndjson}

        """, file: "p.yaml")
        for settings in configuration.destinations {
            let destination = settings.destination
            #expect(destination.profileTypes.intersection(destination.supportedTypes).isEmpty, "\(settings.name)")
        }
        #expect(configuration.destinations.map { $0.destination.profileTypes.rawValue != 0 } == [true, true, true, false, false])
    }

    @Test func profileRecordsGoToTheSideOutputsAndAreCountedThereNotAsTheDestinationsRecords() throws {
        let harness = try Harness("  mixpanel: {type: mixpanel, token: \(Self.token), group_keys: [company_id]}\n")
        #expect(try harness.deliver(Self.identify) == .emitted)
        #expect(try harness.deliver(Self.group, line: 2) == .emitted)
        #expect(try harness.records("mixpanel").isEmpty)
        #expect(try harness.records("mixpanel.profiles").count == 2)
        #expect(try harness.records("mixpanel.groups").count == 1)
        let counts = harness.counts("mixpanel")
        #expect(counts.events == 2 && counts.records == 0)
        #expect(counts.outputs.map(\.name) == ["profiles", "groups"])
        #expect(counts.outputs.map(\.records) == [2, 1])
        #expect(counts.outputs[0].uncompressedBytes == (try harness.records("mixpanel.profiles")).map { $0.utf8.count + 1 }.reduce(0, +))
    }

    @Test func aMessageNoDestinationTakesIsDroppedAndCountedUnderItsReason() throws {
        let harness = try Harness("  mixpanel: {type: mixpanel}\n  amplitude: {type: amplitude}\n")
        #expect(try harness.deliver(Self.alias) == .dropped(.unrouted))
        #expect(harness.counts("mixpanel").notTaken == ["alias_not_needed": 1])
        #expect(harness.counts("amplitude").notTaken == ["user_mapping_off": 1])
        #expect(try harness.deliver(Self.identify, line: 2) == .emitted)  // Amplitude's $identify
        #expect(harness.counts("mixpanel").notTaken == ["alias_not_needed": 1, "no_project_token": 1])
    }

    @Test func aRefusalIsARejectRecordNamingTheDestinationAndNothingReachesItsSideOutputs() throws {
        let harness = try Harness("  amplitude: {type: amplitude, user_mapping: true}\n")
        let selfAlias = #"{"type":"alias","previousId":"user-1234","userId":"user-1234","timestamp":"2026-11-20T08:00:02Z"}"#
        #expect(try harness.deliver(selfAlias) == .rejected(.invalidAlias))
        #expect(try harness.records("amplitude.user_mappings").isEmpty)
        #expect(try harness.records("rejects").first?.contains(#""destination":"amplitude","reason":"invalid_alias""#) == true)
        #expect(harness.counts("amplitude").refused == ["invalid_alias": 1])
    }

    @Test func anIdentifyGA4RemembersIsTakenWithoutARecord() throws {
        let harness = try Harness("  ga4: {type: ga4}\n")
        #expect(try harness.deliver(Self.identify) == .emitted)
        #expect(harness.counts("ga4").events == 1 && harness.counts("ga4").records == 0)
        #expect(try harness.records("ga4").isEmpty)
    }

    @Test func aConsentMarkOrTheRoutingRulesKeepProfilesAwayAsTheyDoEvents() throws {
        let harness = try Harness("  mixpanel: {type: mixpanel, token: \(Self.token), events: [\"*\", \"!identify\"]}\n")
        #expect(try harness.deliver(Self.identify) == .dropped(.unrouted))
        #expect(try harness.records("mixpanel.profiles").isEmpty)
        let optedOut = Self.identify.replacingOccurrences(of: #""traits""#, with: #""integrations":{"Mixpanel":false},"traits""#)
        let routed = try Harness("  mixpanel: {type: mixpanel, token: \(Self.token)}\n")
        #expect(try routed.deliver(optedOut) == .dropped(.unrouted))
        #expect(try routed.records("mixpanel.profiles").isEmpty)
    }
}
