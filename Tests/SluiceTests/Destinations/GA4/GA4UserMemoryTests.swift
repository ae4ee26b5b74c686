import Testing
@testable import Sluice
@testable import SluiceJSON

/// GA4 has no identify call: an identify's traits become user properties of
/// the device's later events (developers.google.com/analytics/devguides/collection/protocol/ga4/user-properties),
/// within GA4's limits (at most 25, names 24 characters, values 36).
@Suite struct GA4UserMemoryTests {
    static func identify(traits: String, anonymousId: String = "dev-000001-abcdef12") -> String {
        #"{"type":"identify","anonymousId":"\#(anonymousId)","userId":"user-12345","messageId":"m-1","timestamp":"2026-11-20T08:00:00Z","traits":\#(traits)}"#
    }

    @Test func anIdentifysTraitsRideOnTheDevicesLaterEventsAsUserProperties() throws {
        var ga4 = try ProfileHarness("{type: ga4}")
        let made = try ga4.profile(Self.identify(traits: #"{"plan":"pro","pushEnabled":true,"address":{"city":"Oslo"}}"#))
        #expect(made.outcome == .remembered && made.records.isEmpty)
        let later = try ga4.encode(trackJSON()).get()
        #expect(later.contains(#""user_properties":{"plan":{"value":"pro"},"pushEnabled":{"value":"true"}},"events""#))
        #expect(ga4.change("user_properties_remembered") == 1 && ga4.change("remembered_user_properties_added") == 1)
        #expect(ga4.change("user_property_dropped") == 1)
        // Another device's events do not get them.
        #expect(!(try ga4.encode(trackJSON(anonymousId: "dev-000002-abcdef12")).get()).contains("user_properties"))
    }

    @Test func theEventsOwnContextTraitsWinAndALaterIdentifySetsItsNamesAgain() throws {
        var ga4 = try ProfileHarness("{type: ga4}")
        _ = try ga4.profile(Self.identify(traits: #"{"plan":"free","tier":"a"}"#))
        _ = try ga4.profile(Self.identify(traits: #"{"plan":"pro"}"#))
        let event = trackJSON().replacingOccurrences(of: #""ip":"203.0.113.7"}"#, with: #""ip":"203.0.113.7","traits":{"tier":"b"}}"#)
        let later = try ga4.encode(event).get()
        #expect(later.contains(#""user_properties":{"tier":{"value":"b"},"plan":{"value":"pro"}},"events""#))
    }

    /// The event's own trait and the remembered ones: 25 at most. 26 traits lose one when remembered, one more on the event.
    @Test(arguments: [(24, 25, 0), (26, 25, 2)])
    func anEventCarriesAtMost25UserProperties(_ remembered: Int, _ sent: Int, _ dropped: Int) throws {
        var ga4 = try ProfileHarness("{type: ga4}")
        let traits = "{" + (0..<remembered).map { #""p\#($0)":\#($0)"# }.joined(separator: ",") + "}"
        _ = try ga4.profile(Self.identify(traits: traits))
        let event = trackJSON().replacingOccurrences(of: #""ip":"203.0.113.7"}"#, with: #""ip":"203.0.113.7","traits":{"own":1}}"#)
        let record = try JSONDocument.parse(Array(try ga4.encode(event).get().utf8))
        #expect(record.members(of: try #require(record.member("user_properties"))).count == sent)
        #expect(ga4.change("user_property_dropped_over_limit") == dropped)
    }

    @Test func withoutDeviceMemoryIdentifyIsNotTaken() throws {
        let ga4 = try ProfileHarness("{type: ga4, device_memory: 0}")
        #expect(ga4.events.destination.profileTypes.isEmpty)
        #expect(ga4.events.destination.skipReason(for: try DestinationHarness.event(Self.identify(traits: "{}"))) == "unsupported_type")
    }

    @Test func anIdentifyWithoutUserPropertiesIsNotTaken() throws {
        var ga4 = try ProfileHarness("{type: ga4}")
        #expect(try ga4.profile(Self.identify(traits: #"{"address":{"city":"Oslo"}}"#)).outcome == .notTaken("no_user_properties"))
    }

    @Test func pastItsBoundTheLeastRecentlyUsedDeviceIsForgotten() throws {
        // Two devices' entries fit in 400 bytes, three do not.
        var ga4 = try ProfileHarness("{type: ga4, device_memory: 400}")
        for device in ["dev-a-0000001", "dev-b-0000001", "dev-c-0000001"] {
            _ = try ga4.profile(Self.identify(traits: #"{"plan":"pro","tier":"gold"}"#, anonymousId: device))
        }
        #expect(ga4.change("user_properties_forgotten") == 1)
        #expect(!(try ga4.encode(trackJSON(anonymousId: "dev-a-0000001")).get()).contains("user_properties"))
        #expect(try ga4.encode(trackJSON(anonymousId: "dev-c-0000001")).get().contains("user_properties"))
    }
}
