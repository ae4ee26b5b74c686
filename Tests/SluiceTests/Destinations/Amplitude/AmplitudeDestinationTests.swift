import Testing
@testable import Sluice

@Suite struct AmplitudeDestinationTests {
    private let session = #""ip":"203.0.113.7","session":{"id":"s","start_ms":1795161600000,"number":1,"seq":3,"engagement_ms":5}"#

    // MARK: Golden: input events → exact lines

    @Test func aTrackBecomesAnHTTPV2EventWithTheSessionStartAsSessionID() throws {
        var amplitude = try DestinationHarness("{type: amplitude}")
        let json = trackJSON().replacingAll(#""ip":"203.0.113.7""#, with: session)
        #expect(try amplitude.encode(json).get() ==
            #"{"event_type":"movie_tapped","user_id":"user-12345","device_id":"dev-000001-abcdef12","time":1795161607269,"session_id":1795161600000,"insert_id":"\#(GoldenIDs.amplitudeMovieTapped)","event_properties":{"movie_id":5},"platform":"iOS","os_name":"iOS","os_version":"17.1","device_model":"iPhone15,2","device_manufacturer":"Apple","app_version":"3.2.1","ip":"203.0.113.7"}"#)
    }

    @Test func identifyBecomesDollarIdentifyWithSetTraits() throws {
        var amplitude = try DestinationHarness("{type: amplitude}")
        let identify = #"{"type":"identify","messageId":"i1","userId":"user-12345","timestamp":"2026-11-20T08:00:00Z","traits":{"plan":"pro","seats":3}}"#
        #expect(try amplitude.encode(identify).get() ==
            #"{"event_type":"$identify","user_id":"user-12345","time":1795161600000,"session_id":-1,"insert_id":"\#(GoldenIDs.amplitudeIdentify)","user_properties":{"$set":{"plan":"pro","seats":3}}}"#)
    }

    @Test func aScreenIsNamedByTheTemplateAndContextTraitsAreUserProperties() throws {
        var amplitude = try DestinationHarness(#"{type: amplitude, screen_event: "Screen {name}"}"#)
        let screen = #"{"type":"screen","name":"home","messageId":"s1","timestamp":"2026-11-20T08:00:00Z","anonymousId":"dev-000001","context":{"traits":{"plan":"pro"}}}"#
        let line = try amplitude.encode(screen).get()
        #expect(line.hasPrefix(#"{"event_type":"Screen home","device_id":"dev-000001","time":1795161600000,"session_id":-1,"insert_id":""#))
        #expect(line.hasSuffix(#","event_properties":{},"user_properties":{"plan":"pro"}}"#))
    }

    // MARK: Rules at their boundaries

    @Test(arguments: [
        (String(repeating: "a", count: 1024), String(repeating: "a", count: 1024), 0),
        (String(repeating: "a", count: 1025), String(repeating: "a", count: 1024), 1),
        // Characters, not bytes: 1024 two-byte characters are 2048 bytes and fit.
        (String(repeating: "ü", count: 1024), String(repeating: "ü", count: 1024), 0),
        (String(repeating: "ü", count: 1025), String(repeating: "ü", count: 1024), 1),
    ])
    func stringsAreCutAt1024CharactersAtAnyDepth(_ value: String, _ expected: String, _ cuts: Int) throws {
        var amplitude = try DestinationHarness("{type: amplitude}")
        let line = try amplitude.encode(trackJSON(properties: #"{"a":\#(quoted(value)),"deep":{"list":[\#(quoted(value)),1]}}"#)).get()
        #expect(line.contains(#""event_properties":{"a":\#(quoted(expected)),"deep":{"list":[\#(quoted(expected)),1]}}"#))
        #expect(amplitude.change("string_cut") == cuts * 2)
    }

    @Test func anEventTypeOver1024CharactersIsCut() throws {
        var amplitude = try DestinationHarness("{type: amplitude}")
        let line = try amplitude.encode(trackJSON(event: String(repeating: "e", count: 1025))).get()
        #expect(line.hasPrefix(#"{"event_type":"\#(String(repeating: "e", count: 1024))","#))
        #expect(amplitude.change("string_cut") == 1)
    }

    /// (min_id_length, id, kept): characters, not bytes, and the rejected list.
    @Test(arguments: [
        (5, "abcd", false), (5, "abcde", true), (5, "üüüü", false), (5, "üüüüü", true),
        (1, "a", true), (2, "a", false), (10, "123456789", false), (10, "1234567890", true),
        (5, "undefined", false), (5, "Unknown", false), (5, "lmy47d", false), (5, "00000000-0000-0000-0000-000000000000", false),
        (1, "-1", false), (1, "0", false), (5, "undefined1", true),
    ])
    func idsShorterThanMinIDLengthOrRejectedAreLeftOut(_ minimum: Int, _ id: String, _ kept: Bool) throws {
        var amplitude = try DestinationHarness("{type: amplitude, min_id_length: \(minimum)}")
        let line = try amplitude.encode(trackJSON(userId: id, anonymousId: "dev-000001-abcdef12")).get()
        #expect(line.contains(#""user_id":\#(quoted(id))"#) == kept)
        #expect(amplitude.change("user_id_left_out") == (kept ? 0 : 1))
    }

    @Test func anEventLeftWithNeitherIDIsRefused() throws {
        var amplitude = try DestinationHarness("{type: amplitude}")
        guard case let .failure(rejection) = try amplitude.encode(trackJSON(userId: "null", anonymousId: "abc")) else {
            Issue.record("accepted")
            return
        }
        #expect(rejection.reason == .missingUserOrDeviceID)
        #expect(amplitude.change("user_id_left_out") == 1 && amplitude.change("device_id_left_out") == 1)
    }

    @Test(arguments: ["0", "1025", "five"])
    func minIDLengthOutOfRangeIsAPipelineFileError(_ value: String) {
        #expect(throws: ConfigurationError.self) { try DestinationHarness("{type: amplitude, min_id_length: \(value)}") }
    }

    @Test func withoutASessionTheSessionIDIsMinusOneAndOnlyTheseTypesAreTaken() throws {
        var amplitude = try DestinationHarness("{type: amplitude}")
        #expect(try amplitude.encode(trackJSON()).get().contains(#""session_id":-1,"#))
        for (type, taken) in [("identify", true), ("group", false), ("alias", false), ("session", false)] {
            let message = try DestinationHarness.event(#"{"type":"\#(type)","userId":"u1","timestamp":"2026-11-20T08:00:00Z"}"#)
            #expect((amplitude.destination.skipReason(for: message) == nil) == taken, "\(type)")
        }
    }
}
