import Testing
@testable import Sluice

@Suite struct MixpanelDestinationTests {
    @Test func aTrackBecomesAnImportRecordWithTimeInMillisecondsAndAStableInsertID() throws {
        var mixpanel = try DestinationHarness("{type: mixpanel}")
        let line = try mixpanel.encode(trackJSON()).get()
        let insertID = String(decoding: InsertID.make(messageId: Array("m-1".utf8), name: Array("movie_tapped".utf8), fallback: try JSONDocument.parse(Array("{}".utf8))), as: UTF8.self)
        #expect(line == #"{"event":"movie_tapped","properties":{"time":1795161607269,"distinct_id":"user-12345","$insert_id":"\#(insertID)","$device_id":"dev-000001-abcdef12","$user_id":"user-12345","$os":"iOS","$os_version":"17.1","$model":"iPhone15,2","$manufacturer":"Apple","$app_version_string":"3.2.1","$app_build_number":"3210","ip":"203.0.113.7","movie_id":5}}"#)
        // The same message always gets the same id; 36 characters of [0-9a-f-].
        #expect(try mixpanel.encode(trackJSON()).get() == line)
        #expect(insertID.count == 36)
        #expect(insertID.allSatisfy { $0.isHexDigit || $0 == "-" })
    }

    @Test(arguments: ["null", "undefined", "anon", "0", "-1", "NULL", "None", "00000000-0000-0000-0000-000000000000"])
    func placeholderDistinctIDsAreRefused(_ id: String) throws {
        var mixpanel = try DestinationHarness("{type: mixpanel}")
        guard case let .failure(rejection) = try mixpanel.encode(trackJSON(userId: id)) else {
            Issue.record("\(id) accepted")
            return
        }
        #expect(rejection.reason == .invalidDistinctID)
    }

    @Test func theAnonymousIDIsTheDistinctIDBeforeSignIn() throws {
        var mixpanel = try DestinationHarness("{type: mixpanel}")
        #expect(try mixpanel.encode(trackJSON(userId: nil)).get().contains(#""distinct_id":"dev-000001-abcdef12""#))
    }

    @Test func stringsAreCutAt255BytesOnACharacterBoundary() throws {
        var mixpanel = try DestinationHarness("{type: mixpanel}")
        let exact = String(repeating: "a", count: 255)
        let over = String(repeating: "a", count: 254) + "é"  // 256 bytes: é may not be split
        let line = try mixpanel.encode(trackJSON(properties: #"{"a":"\#(exact)","b":"\#(over)"}"#)).get()
        #expect(line.contains(#""a":"\#(exact)""#))
        #expect(line.contains(#""b":"\#(String(repeating: "a", count: 254))"}"#))
        #expect(mixpanel.change("string_cut") == 1)
    }

    @Test func fewerThan255PropertiesAreSent() throws {
        var mixpanel = try DestinationHarness("{type: mixpanel}")
        let properties = "{" + (0..<300).map { #""p\#($0)":\#($0)"# }.joined(separator: ",") + "}"
        let line = try mixpanel.encode(trackJSON(properties: properties)).get()
        let document = try JSONDocument.parse(Array(line.utf8))
        #expect(document.members(of: document.member("properties")!).count == 254)
        #expect(mixpanel.change("property_dropped_over_limit") > 0)
    }

    @Test func aCompletedTimedEventCarriesDurationInSeconds() throws {
        var mixpanel = try DestinationHarness("{type: mixpanel}")
        let line = try mixpanel.encode(trackJSON(event: "checkout_flow", properties: #"{"duration_ms":12345}"#,
                                                 extra: #""timed":"completed","started_at":"2026-11-20T07:59:54.924Z""#)).get()
        #expect(line.contains(#""$duration":12.345"#))
    }

    @Test func screensAreNamedByTheTemplateAndIdentifyIsNotTaken() throws {
        var mixpanel = try DestinationHarness(#"{type: mixpanel, screen_event: "Screen: {name}"}"#)
        let screen = #"{"type":"screen","name":"home","messageId":"s1","anonymousId":"dev-1","timestamp":"2026-11-20T08:00:00Z"}"#
        #expect(try mixpanel.encode(screen).get().hasPrefix(#"{"event":"Screen: home","#))
        let identify = try DestinationHarness.event(#"{"type":"identify","userId":"u1","timestamp":"2026-11-20T08:00:00Z"}"#)
        #expect(mixpanel.destination.skipReason(for: identify) == "unsupported_type")
    }

    @Test func sessionDataBecomesProperties() throws {
        var mixpanel = try DestinationHarness("{type: mixpanel}")
        let line = try mixpanel.encode(trackJSON().replacingAll(#""ip":"203.0.113.7""#, with: #""ip":"203.0.113.7","session":{"id":"s-9","start_ms":1795161600000,"number":2,"seq":7,"engagement_ms":40}"#)).get()
        #expect(line.contains(#""session_id":"s-9","session_number":2,"session_seq":7"#))
    }
}
