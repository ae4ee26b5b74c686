import Testing
@testable import Sluice
@testable import SluiceJSON

@Suite struct MixpanelDestinationTests {
    // MARK: Golden: input events → exact lines

    @Test func aTrackBecomesAnImportRecord() throws {
        var mixpanel = try DestinationHarness("{type: mixpanel}")
        #expect(try mixpanel.encode(trackJSON()).get() ==
            #"{"event":"movie_tapped","properties":{"time":1795161607269,"distinct_id":"user-12345","$insert_id":"\#(GoldenIDs.mixpanelMovieTapped)","$device_id":"dev-000001-abcdef12","$user_id":"user-12345","$os":"iOS","$os_version":"17.1","$model":"iPhone15,2","$manufacturer":"Apple","$app_version_string":"3.2.1","$app_build_number":"3210","ip":"203.0.113.7","movie_id":5}}"#)
        // The same message always gets the same id.
        #expect(try mixpanel.encode(trackJSON()).get().contains(GoldenIDs.mixpanelMovieTapped))
    }

    @Test func aScreenWithASessionBecomesAViewedScreenEventWithSessionProperties() throws {
        var mixpanel = try DestinationHarness("{type: mixpanel}")
        let screen = #"{"type":"screen","name":"home","messageId":"s-1","timestamp":"2026-11-20T08:00:00Z","anonymousId":"dev-1","context":{"session":{"id":"dev-1-3","start_ms":1795161000000,"number":3,"seq":2,"engagement_ms":40}},"properties":{"referrer":"push"}}"#
        #expect(try mixpanel.encode(screen).get() ==
            #"{"event":"Viewed home Screen","properties":{"time":1795161600000,"distinct_id":"dev-1","$insert_id":"\#(GoldenIDs.mixpanelViewedHome)","$device_id":"dev-1","session_id":"dev-1-3","session_number":3,"session_seq":2,"referrer":"push"}}"#)
    }

    @Test func aCompletedTimedEventCarriesItsDurationInSeconds() throws {
        var mixpanel = try DestinationHarness("{type: mixpanel}")
        let completed = #"{"type":"track","event":"checkout_flow","timed":"completed","started_at":"2026-11-20T07:59:47.655Z","messageId":"t-1","timestamp":"2026-11-20T08:00:00Z","anonymousId":"dev-1","properties":{"duration_ms":12345}}"#
        #expect(try mixpanel.encode(completed).get() ==
            #"{"event":"checkout_flow","properties":{"time":1795161600000,"distinct_id":"dev-1","$insert_id":"\#(GoldenIDs.mixpanelCheckout)","$device_id":"dev-1","$duration":12.345,"duration_ms":12345}}"#)
    }

    /// The context properties are written out one by one in the encoder: each must be the
    /// `contextProperties` entry its bit in the overridden mask stands for.
    @Test(arguments: MixpanelDestination.contextProperties.map { "\($0.0)" })
    func anEventPropertyOfAContextPropertysNameWinsOverTheContext(name: String) throws {
        var mixpanel = try DestinationHarness("{type: mixpanel}")
        let record = try mixpanel.encode(trackJSON(properties: #"{"\#(name)":"mine"}"#)).get()
        let document = try JSONDocument.parse(Array(record.utf8))
        let properties = try #require(document.member("properties"))
        #expect(document.members(of: properties).filter { document.string($0.key) == name }.count == 1)
        #expect(document.string(try #require(document.member(name, of: properties))) == "mine")
        #expect(mixpanel.change("context_property_overridden") == 1)
        // The other six context properties are still there.
        for (other, _) in MixpanelDestination.contextProperties where "\(other)" != name {
            #expect(document.member("\(other)", of: properties) != nil, "\(other)")
        }
    }

    // MARK: Rules at their boundaries

    /// Four properties Sluice sets (time, distinct_id, $insert_id, $device_id) plus the event's.
    @Test(arguments: [(250, 254, 0), (251, 254, 1), (252, 254, 2)])
    func fewerThan255PropertiesAreSent(_ own: Int, _ sent: Int, _ dropped: Int) throws {
        var mixpanel = try DestinationHarness("{type: mixpanel}")
        let properties = "{" + (0..<own).map { #""p\#($0)":\#($0)"# }.joined(separator: ",") + "}"
        let event = #"{"type":"track","event":"e","timestamp":"2026-11-20T08:00:00Z","anonymousId":"dev-1","properties":\#(properties)}"#
        let document = try JSONDocument.parse(Array(try mixpanel.encode(event).get().utf8))
        #expect(document.members(of: document.member("properties")!).count == sent)
        #expect(mixpanel.change("property_dropped_over_limit") == dropped)
    }

    @Test(arguments: [
        (String(repeating: "a", count: 255), String(repeating: "a", count: 255), 0),
        (String(repeating: "a", count: 256), String(repeating: "a", count: 255), 1),
        // 256 bytes ending in a 2-byte é: cut before it, never inside.
        (String(repeating: "a", count: 254) + "é", String(repeating: "a", count: 254), 1),
        (String(repeating: "a", count: 253) + "é", String(repeating: "a", count: 253) + "é", 0),
        (String(repeating: "😀", count: 64), String(repeating: "😀", count: 63), 1),
    ])
    func stringsAreCutAt255Bytes(_ value: String, _ expected: String, _ cuts: Int) throws {
        var mixpanel = try DestinationHarness("{type: mixpanel}")
        let line = try mixpanel.encode(trackJSON(properties: #"{"s":\#(quoted(value)),"nested":{"list":[\#(quoted(value))]}}"#)).get()
        #expect(line.contains(#""s":\#(quoted(expected)),"nested":{"list":[\#(quoted(expected))]}}"#))
        #expect(mixpanel.change("string_cut") == cuts * 2)
    }

    @Test(arguments: [(255, 255, 0), (256, 255, 1)])
    func propertyNamesAreCutAt255Bytes(_ length: Int, _ sent: Int, _ cuts: Int) throws {
        var mixpanel = try DestinationHarness("{type: mixpanel}")
        let line = try mixpanel.encode(trackJSON(properties: #"{"\#(String(repeating: "k", count: length))":1}"#)).get()
        #expect(line.contains(#","\#(String(repeating: "k", count: sent))":1}"#))
        #expect(mixpanel.change("property_name_cut") == cuts)
    }

    /// `$insert_id`: at most 36 bytes of [A-Za-z0-9-] whatever the messageId looks like.
    @Test(arguments: ["m-1", String(repeating: "x", count: 36), String(repeating: "x", count: 37),
                      "ajs-next:1700000000000:4f2a", "ünïcödé id", String(repeating: "9", count: 200)])
    func insertIDsAre36CharactersOfHexAndDashes(_ messageId: String) throws {
        var mixpanel = try DestinationHarness("{type: mixpanel}")
        let event = #"{"type":"track","event":"e","messageId":\#(quoted(messageId)),"timestamp":"2026-11-20T08:00:00Z","anonymousId":"dev-1"}"#
        let document = try JSONDocument.parse(Array(try mixpanel.encode(event).get().utf8))
        let id = document.string(at: JSONPath("properties.$insert_id"))!
        #expect(id.utf8.count == 36)
        #expect(id.unicodeScalars.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) || $0 == "-" })
        #expect(try mixpanel.encode(event).get().contains(id))
    }

    @Test func withoutAMessageIDTheInsertIDComesFromTheMessageItself() throws {
        var mixpanel = try DestinationHarness("{type: mixpanel}")
        let a = #"{"type":"track","event":"e","timestamp":"2026-11-20T08:00:00Z","anonymousId":"dev-1"}"#
        let b = #"{"type":"track","event":"e","timestamp":"2026-11-20T08:00:01Z","anonymousId":"dev-1"}"#
        let id = { (line: String) in try JSONDocument.parse(Array(line.utf8)).string(at: JSONPath("properties.$insert_id"))! }
        #expect(try id(mixpanel.encode(a).get()) == id(mixpanel.encode(a).get()))
        #expect(try id(mixpanel.encode(a).get()) != id(mixpanel.encode(b).get()))
    }

    @Test(arguments: [
        ("null", true), ("NULL", true), ("undefined", true), ("anon", true), ("Anonymous", true), ("0", true), ("-1", true),
        ("n/a", true), ("<nil>", true), ("{}", true), ("false", true), ("00000000-0000-0000-0000-000000000000", true),
        ("undefinedx", false), ("00000000-0000-0000-0000-000000000001", false), ("10", false), ("nobody", false),
    ])
    func placeholderDistinctIDsAreRefused(_ id: String, _ refused: Bool) throws {
        var mixpanel = try DestinationHarness("{type: mixpanel}")
        switch try mixpanel.encode(trackJSON(userId: id)) {
        case .success: #expect(!refused, "\(id) accepted")
        case .failure(let rejection):
            #expect(refused, "\(id) refused")
            #expect(rejection.reason == .invalidDistinctID)
        }
    }

    @Test func theAnonymousIDIsTheDistinctIDBeforeSignInAndAPlaceholderDeviceIDIsLeftOut() throws {
        var mixpanel = try DestinationHarness("{type: mixpanel}")
        #expect(try mixpanel.encode(trackJSON(userId: nil)).get().contains(#""distinct_id":"dev-000001-abcdef12""#))
        let line = try mixpanel.encode(trackJSON(userId: "user-12345", anonymousId: "undefined")).get()
        #expect(!line.contains("$device_id"))
        #expect(mixpanel.change("placeholder_device_id_left_out") == 1)
    }

    @Test(arguments: [("1971-01-01T00:00:00Z", true), ("1970-12-31T23:59:59.999Z", false)])
    func eventsBefore1971AreRefused(_ time: String, _ accepted: Bool) throws {
        var mixpanel = try DestinationHarness("{type: mixpanel}")
        let event = #"{"type":"track","event":"e","timestamp":"\#(time)","anonymousId":"dev-1"}"#
        switch try mixpanel.encode(event) {
        case .success: #expect(accepted)
        case .failure(let rejection): #expect(!accepted && rejection.reason == .timeOutOfRange)
        }
    }

    @Test func reservedPropertiesAreLeftOutAndAnEventPropertyWinsOverTheContext() throws {
        var mixpanel = try DestinationHarness("{type: mixpanel}")
        let line = try mixpanel.encode(trackJSON(properties: #"{"$ignore":true,"bucket":"b","time":5,"ip":"0","$os":"custom"}"#)).get()
        #expect(!line.contains("$ignore") && !line.contains("bucket") && !line.contains(#""time":5"#))
        #expect(line.components(separatedBy: #""ip":"#).count == 2 && line.contains(#""ip":"0""#))
        #expect(line.components(separatedBy: #""$os":"#).count == 2 && line.contains(#""$os":"custom""#))
        #expect(mixpanel.change("reserved_property_dropped") == 3)
        #expect(mixpanel.change("context_property_overridden") == 2)
    }

    @Test func screensAreNamedByTheTemplateAndOnlyEventsAreTaken() throws {
        var mixpanel = try DestinationHarness(#"{type: mixpanel, screen_event: "Screen: {name}", page_event: "Visited {name}"}"#)
        let screen = #"{"type":"screen","name":"home","messageId":"s1","anonymousId":"dev-1","timestamp":"2026-11-20T08:00:00Z"}"#
        #expect(try mixpanel.encode(screen).get().hasPrefix(#"{"event":"Screen: home","#))
        let page = #"{"type":"page","name":"pricing","messageId":"p1","anonymousId":"dev-1","timestamp":"2026-11-20T08:00:00Z"}"#
        #expect(try mixpanel.encode(page).get().hasPrefix(#"{"event":"Visited pricing","#))
        for type in ["identify", "group", "alias", "session"] {
            let message = try DestinationHarness.event(#"{"type":"\#(type)","userId":"u1","timestamp":"2026-11-20T08:00:00Z"}"#)
            #expect(mixpanel.destination.skipReason(for: message) == "unsupported_type")
        }
    }

    @Test(arguments: [(12345, "12.345"), (5000, "5.000"), (7, "0.007"), (0, "0.000"), (-500, "-0.500")])
    func durationsAreSecondsWithThreeDecimals(_ milliseconds: Int64, _ expected: String) {
        var out: [UInt8] = []
        MixpanelDestination.appendSeconds(milliseconds, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == expected)
    }
}

/// Ids in the golden records: insert ids are `StableHash` of messageId, a zero
/// byte and the provider's event name, UUID-shaped (the same message and name
/// give Mixpanel and Amplitude the same id); Adjust's web_uuid is a v4-shaped
/// hash of the anonymousId. Written out so that a change to the hash, which
/// would break deduplication of re-sent files, fails a test.
enum GoldenIDs {
    static let mixpanelMovieTapped = "3685a0aa-c4f3-a170-6ccf-9e8603bfad05"
    static let mixpanelViewedHome = "5ff0ca26-3d59-f17e-03fc-3847bdfc37fa"
    static let mixpanelCheckout = "5c61a40b-aaf0-75cf-b333-9c6203750bec"
    static let amplitudeMovieTapped = "3685a0aa-c4f3-a170-6ccf-9e8603bfad05"
    static let amplitudeIdentify = "349ba646-5b0b-9fca-7660-97a6afdd9e3c"
    static let adjustWebUUID = "1d7973a0-1b43-4541-a603-3c421b25f418"
}
