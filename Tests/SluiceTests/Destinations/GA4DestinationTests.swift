import Testing
@testable import Sluice

@Suite struct GA4DestinationTests {
    private func json(_ line: String) throws -> JSONDocument { try JSONDocument.parse(Array(line.utf8)) }

    @Test func aTrackBecomesOneMeasurementProtocolBodyWithSessionParams() throws {
        var ga4 = try DestinationHarness("{type: ga4}")
        let input = trackJSON(anonymousId: "0123456789ABCDEF0123456789abcdef")
            .replacingAll(#""ip":"203.0.113.7""#, with: #""ip":"203.0.113.7","session":{"id":"s","start_ms":1795161600000,"number":1,"seq":3,"engagement_ms":0}"#)
        let line = try ga4.encode(input).get()
        #expect(line == #"{"app_instance_id":"0123456789abcdef0123456789abcdef","user_id":"user-12345","timestamp_micros":1795161607269000,"events":[{"name":"movie_tapped","params":{"session_id":1795161600,"engagement_time_msec":1,"movie_id":5}}]}"#)
    }

    @Test func webStreamsUseTheClientID() throws {
        var ga4 = try DestinationHarness("{type: ga4, stream: web}")
        #expect(try ga4.encode(trackJSON()).get().hasPrefix(#"{"client_id":"dev-000001-abcdef12","#))
    }

    @Test func anAppInstanceIDThatIsNot32HexDigitsIsDerivedStably() throws {
        var ga4 = try DestinationHarness("{type: ga4}")
        let a = try json(try ga4.encode(trackJSON()).get()).string(at: JSONPath("app_instance_id"))!
        let b = try json(try ga4.encode(trackJSON(event: "other")).get()).string(at: JSONPath("app_instance_id"))!
        #expect(a == b)
        #expect(a.count == 32 && a.allSatisfy(\.isHexDigit))
        #expect(ga4.change("app_instance_id_derived") == 2)
    }

    @Test(arguments: [
        ("movie_tapped", "movie_tapped"),
        ("Avatar Changed", "Avatar_Changed"),
        ("2fa_enabled", "app_2fa_enabled"),
        ("firebase_custom", "app_firebase_custom"),
        ("ga_session_marker", "app_ga_session_marker"),
        ("session_start", "app_session_start"),
        ("Ünïcödé Event", "Unicode_Event"),
        ("checkout:step-2", "checkout_step_2"),
        (String(repeating: "a", count: 40), String(repeating: "a", count: 40)),
        (String(repeating: "b", count: 41), String(repeating: "b", count: 40)),
        ("a_very_long_event_name_that_goes_well_beyond_forty_characters", "a_very_long_event_name_that_goes_well_be"),
    ])
    func namesAreNormalizedToGA4Rules(_ name: String, _ expected: String) throws {
        var ga4 = try DestinationHarness("{type: ga4}")
        let line = try ga4.encode(trackJSON(event: name, properties: "{}")).get()
        #expect(line.contains(#""events":[{"name":"\#(expected)""#), "\(line)")
    }

    @Test func rejectModeRefusesInvalidNames() throws {
        var ga4 = try DestinationHarness("{type: ga4, names: reject}")
        guard case let .failure(rejection) = try ga4.encode(trackJSON(event: "Avatar Changed")) else {
            Issue.record("accepted")
            return
        }
        #expect(rejection.reason == .invalidEventName)
        #expect(throws: Never.self) { try ga4.encode(trackJSON(event: "avatar_changed")).get() }
    }

    @Test func paramsKeep25AndValuesAreCutAt100AndNullObjectArrayAreHandled() throws {
        var ga4 = try DestinationHarness("{type: ga4}")
        let many = (0..<30).map { #""p\#($0)":\#($0)"# }.joined(separator: ",")
        let line = try ga4.encode(trackJSON(properties: #"{"long":"\#(String(repeating: "x", count: 101))","ok":"\#(String(repeating: "y", count: 100))","n":null,"arr":[1],"obj":{"a":1,"deep":{"b":2}},"flag":true,"bad key":1,\#(many)}"#)).get()
        #expect(line.contains(#""long":"\#(String(repeating: "x", count: 100))""#))
        #expect(line.contains(#""ok":"\#(String(repeating: "y", count: 100))""#))
        #expect(!line.contains(#""n":"#) && !line.contains(#""arr""#))
        #expect(line.contains(#""obj_a":1"#) && !line.contains("deep"))
        #expect(line.contains(#""flag":"true""#))
        #expect(line.contains(#""bad_key":1"#))
        let paramsObject = line.split(separator: "\"params\":").last!
        let count = paramsObject.filter { $0 == ":" }.count
        #expect(count == 25, "\(paramsObject)")
        #expect(ga4.change("param_dropped_over_limit") > 0)
        #expect(ga4.change("null_param_dropped") == 1)
        #expect(ga4.change("array_param_dropped") == 1)
    }

    @Test func timedSplitSendsStartAndStopAndDurationModeOneEvent() throws {
        let completed = trackJSON(event: "checkout_flow", properties: #"{"duration_ms":5000}"#,
                                  extra: #""timed":"completed","started_at":"2026-11-20T08:00:02.269Z""#)
        var split = try DestinationHarness("{type: ga4, timed: split}")
        let line = try split.encode(completed).get()
        #expect(line.contains(#"{"name":"checkout_flow_start","timestamp_micros":1795161602269000,"params":{"engagement_time_msec":1}}"#), "\(line)")
        #expect(line.contains(#"{"name":"checkout_flow_stop","params":{"engagement_time_msec":1,"duration_ms":5000}}"#))
        var duration = try DestinationHarness("{type: ga4, timed: duration}")
        #expect(try duration.encode(completed).get().contains(#""events":[{"name":"checkout_flow","params":{"engagement_time_msec":1,"duration_ms":5000}}]"#))
    }

    @Test func screensBecomeScreenViewAndUserPropertiesFollowTheLimits() throws {
        var ga4 = try DestinationHarness("{type: ga4}")
        let screen = #"{"type":"screen","name":"home","anonymousId":"dev-1","timestamp":"2026-11-20T08:00:00Z","context":{"traits":{"plan":"pro","a_user_property_name_over_24":"x","long":"\#(String(repeating: "v", count: 40))"}}}"#
        let line = try ga4.encode(screen).get()
        #expect(line.contains(#""name":"screen_view","params":{"engagement_time_msec":1,"screen_name":"home"}"#))
        #expect(line.contains(#""plan":{"value":"pro"}"#))
        #expect(line.contains(#""a_user_property_name_ov":{"value":"x"}"#) || line.contains(#""a_user_property_name_ove":{"value":"x"}"#))
        #expect(line.contains(#""long":{"value":"\#(String(repeating: "v", count: 36))"}"#))
    }
}
