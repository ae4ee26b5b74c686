import Testing
@testable import Sluice
@testable import SluiceJSON

/// Amplitude's user properties, groups and user mappings, each rule from
/// Amplitude's documented examples (amplitude.com/docs/apis/analytics/identify,
/// /group-identify, /user-mapping) and Segment's mapping of `group` and `alias`.
@Suite struct AmplitudeIdentifyTests {
    static func group(traits: String, groupId: String = "g-1", userId: String = "user-1234") -> String {
        #"{"type":"group","anonymousId":"dev-000001","userId":"\#(userId)","groupId":"\#(groupId)","messageId":"m-2","timestamp":"2026-11-20T08:00:01Z","traits":\#(traits)}"#
    }

    static func alias(previousId: String, userId: String = "user-1234") -> String {
        #"{"type":"alias","previousId":"\#(previousId)","userId":"\#(userId)","messageId":"m-3","timestamp":"2026-11-20T08:00:02Z"}"#
    }

    @Test func traitsNamedInSetOnceAreSetWithSetOnceOnTheIdentifyEvent() throws {
        var amplitude = try DestinationHarness("{type: amplitude, set_once: [first_source]}")
        let identify = #"{"type":"identify","anonymousId":"dev-000001","userId":"user-1234","messageId":"m-1","timestamp":"2026-11-20T08:00:00Z","traits":{"plan":"pro","first_source":"ad"}}"#
        let record = try amplitude.encode(identify).get()
        #expect(record.contains(#""user_properties":{"$set":{"plan":"pro"},"$setOnce":{"first_source":"ad"}}"#))
    }

    @Test func anIdentifyWithoutSetOnceSetsEveryTrait() throws {
        var amplitude = try DestinationHarness("{type: amplitude}")
        let identify = #"{"type":"identify","anonymousId":"dev-000001","messageId":"m-1","timestamp":"2026-11-20T08:00:00Z","traits":{"plan":"pro"}}"#
        #expect(try amplitude.encode(identify).get().contains(#""user_properties":{"$set":{"plan":"pro"}}"#))
    }

    @Test func aGroupPutsTheUserInTheGroupAndIdentifiesTheGroupWithItsTraits() throws {
        var amplitude = try ProfileHarness("{type: amplitude}")
        let made = try amplitude.profile(Self.group(traits: #"{"name":"Acme Inc","employees":42}"#))
        #expect(made.outcome == .records(1))
        let record = try JSONDocument.parse(Array(try #require(made.records.first).utf8))
        #expect(record.string(at: JSONPath("event_type")) == "$identify")
        #expect(record.string(at: JSONPath("user_id")) == "user-1234" && record.string(at: JSONPath("device_id")) == "dev-000001")
        #expect(made.records[0].contains(#""groups":{"[Segment] Group":"g-1"},"user_properties":{"$set":{"[Segment] Group":"g-1"}}"#))
        #expect(made.sides["groups"] == [
            #"{"group_type":"[Segment] Group","group_value":"g-1","group_properties":{"name":"Acme Inc","employees":42}}"#,
        ])
        #expect(made.weights["groups"] == 2)
        #expect(made.sides["user_mappings"] == [])
    }

    @Test func theGroupTypeAndValueTraitsNameTheGroupAsSegmentsSettingsDo() throws {
        var amplitude = try ProfileHarness("{type: amplitude, group_type_trait: group_type, group_value_trait: name}")
        let made = try amplitude.profile(Self.group(traits: #"{"group_type":"Organization","name":"ExampleCorp, LLC","employees":"20"}"#))
        #expect(made.records[0].contains(#""groups":{"Organization":"ExampleCorp, LLC"}"#))
        #expect(made.sides["groups"]?.first?.hasPrefix(#"{"group_type":"Organization","group_value":"ExampleCorp, LLC","#) == true)
        // A group call without those traits falls back to the group id.
        let legacy = try amplitude.profile(Self.group(traits: #"{"employees":"20"}"#))
        #expect(legacy.records[0].contains(#""groups":{"[Segment] Group":"g-1"}"#))
    }

    @Test func aGroupWithoutIDsAmplitudeKeepsIsRefused() throws {
        var amplitude = try ProfileHarness("{type: amplitude}")
        let made = try amplitude.profile(#"{"type":"group","userId":"u1","groupId":"g-1","timestamp":"2026-11-20T08:00:01Z","traits":{}}"#)
        guard case let .refused(rejection) = made.outcome else { Issue.record("not refused: \(made.outcome)"); return }
        #expect(rejection.reason == .missingUserOrDeviceID)
    }

    @Test func aGroupWithoutTraitsMakesNoGroupIdentification() throws {
        var amplitude = try ProfileHarness("{type: amplitude}")
        let made = try amplitude.profile(Self.group(traits: "{}"))
        #expect(made.outcome == .records(1) && made.sides["groups"] == [])
    }

    @Test func anAliasIsNotMappedUnlessUserMappingIsOn() throws {
        var amplitude = try ProfileHarness("{type: amplitude}")
        #expect(try amplitude.profile(Self.alias(previousId: "old-user-99")).outcome == .notTaken("user_mapping_off"))
    }

    @Test func withUserMappingAnAliasMapsThePreviousIDToTheGlobalUserID() throws {
        var amplitude = try ProfileHarness("{type: amplitude, user_mapping: true}")
        let made = try amplitude.profile(Self.alias(previousId: "old-user-99"))
        #expect(made.outcome == .records(0))
        #expect(made.sides["user_mappings"] == [#"{"user_id":"old-user-99","global_user_id":"user-1234"}"#])
    }

    @Test(arguments: ["u1", "null", "user-1234"])
    func aMappingOfAnIDAmplitudeDoesNotKeepOrToItselfIsRefused(_ previous: String) throws {
        var amplitude = try ProfileHarness("{type: amplitude, user_mapping: true}")
        let made = try amplitude.profile(Self.alias(previousId: previous))
        guard case let .refused(rejection) = made.outcome else { Issue.record("not refused: \(made.outcome)"); return }
        #expect(rejection.reason == .invalidAlias)
        #expect(made.sides["user_mappings"] == [])
    }

    @Test func aGroupIdentificationHoldsAtMost1024GroupProperties() throws {
        var amplitude = try ProfileHarness("{type: amplitude}")
        let traits = "{" + (0..<1030).map { #""p\#($0)":\#($0)"# }.joined(separator: ",") + "}"
        let made = try amplitude.profile(Self.group(traits: traits))
        let record = try JSONDocument.parse(Array(try #require(made.sides["groups"]?.first).utf8))
        #expect(record.members(of: try #require(record.member("group_properties"))).count == 1024)
        #expect(made.weights["groups"] == 1024)
        #expect(amplitude.change("group_property_dropped_over_limit") == 6)
    }

    @Test func groupTypeTraitWithoutGroupValueTraitIsAnError() {
        #expect(throws: ConfigurationError.self) { try ProfileHarness("{type: amplitude, group_type_trait: kind}") }
    }
}
