import Testing
@testable import Sluice

@Suite struct AmplitudeDestinationTests {
    @Test func aTrackBecomesAnHTTPV2EventWithSessionStartAsSessionID() throws {
        var amplitude = try DestinationHarness("{type: amplitude}")
        let json = trackJSON().replacingAll(#""ip":"203.0.113.7""#, with: #""ip":"203.0.113.7","session":{"id":"s","start_ms":1795161600000,"number":1,"seq":3,"engagement_ms":5}"#)
        let line = try amplitude.encode(json).get()
        let insertID = String(decoding: InsertID.make(messageId: Array("m-1".utf8), name: Array("movie_tapped".utf8), fallback: try JSONDocument.parse(Array("{}".utf8))), as: UTF8.self)
        #expect(line == #"{"event_type":"movie_tapped","user_id":"user-12345","device_id":"dev-000001-abcdef12","time":1795161607269,"session_id":1795161600000,"insert_id":"\#(insertID)","event_properties":{"movie_id":5},"platform":"iOS","os_name":"iOS","os_version":"17.1","device_model":"iPhone15,2","device_manufacturer":"Apple","app_version":"3.2.1","ip":"203.0.113.7"}"#)
    }

    @Test func withoutASessionTheSessionIDIsMinusOne() throws {
        var amplitude = try DestinationHarness("{type: amplitude}")
        #expect(try amplitude.encode(trackJSON()).get().contains(#""session_id":-1,"#))
    }

    @Test(arguments: [("abcd", false), ("abcde", true)])
    func idsShorterThanTheMinimumAreLeftOut(_ id: String, _ kept: Bool) throws {
        var amplitude = try DestinationHarness("{type: amplitude}")
        let line = try amplitude.encode(trackJSON(userId: id)).get()
        #expect(line.contains(#""user_id":"\#(id)""#) == kept)
    }

    @Test func anEventLeftWithNeitherIDIsRefusedAndTheMinimumIsConfigurable() throws {
        var amplitude = try DestinationHarness("{type: amplitude}")
        guard case let .failure(rejection) = try amplitude.encode(trackJSON(userId: "null", anonymousId: "abc")) else {
            Issue.record("accepted")
            return
        }
        #expect(rejection.reason == .missingUserOrDeviceID)
        var lenient = try DestinationHarness("{type: amplitude, min_id_length: 1}")
        #expect(try lenient.encode(trackJSON(userId: nil, anonymousId: "abc")).get().contains(#""device_id":"abc""#))
    }

    @Test func identifyBecomesDollarIdentifyWithSetTraits() throws {
        var amplitude = try DestinationHarness("{type: amplitude}")
        let line = try amplitude.encode(#"{"type":"identify","messageId":"i1","userId":"user-12345","timestamp":"2026-11-20T08:00:00Z","traits":{"plan":"pro"}}"#).get()
        #expect(line.hasPrefix(#"{"event_type":"$identify","user_id":"user-12345","#))
        #expect(line.contains(#""user_properties":{"$set":{"plan":"pro"}}"#))
    }

    @Test func stringsOver1024CharactersAreCut() throws {
        var amplitude = try DestinationHarness("{type: amplitude}")
        let exact = String(repeating: "ü", count: 1024)
        let line = try amplitude.encode(trackJSON(properties: #"{"a":"\#(exact)","b":"\#(exact)x"}"#)).get()
        #expect(line.contains(#""a":"\#(exact)","b":"\#(exact)"}"#))
        #expect(amplitude.change("string_cut") == 1)
    }
}
