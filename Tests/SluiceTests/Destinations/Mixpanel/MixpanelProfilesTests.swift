import Testing
@testable import Sluice
@testable import SluiceJSON

/// Mixpanel's profiles, groups and identities, each rule from Mixpanel's
/// documented examples (docs.mixpanel.com/reference/profile-set,
/// /reference/group-set-property, /reference/identity-create-alias, the
/// `$merge` example of identifying-users-original).
@Suite struct MixpanelProfilesTests {
    static let token = "0123456789abcdef0123456789abcdef"
    static let mixpanel = "{type: mixpanel, token: \(token)}"

    static func identify(traits: String, userId: String? = "user-1234", anonymousId: String = "dev-000001",
                         context: String = #"{"ip":"203.0.113.7"}"#) -> String {
        let user = userId.map { #""userId":"\#($0)","# } ?? ""
        return #"{"type":"identify","anonymousId":"\#(anonymousId)",\#(user)"messageId":"m-1","timestamp":"2026-11-20T08:00:00Z","context":\#(context),"traits":\#(traits)}"#
    }

    static func group(traits: String, groupId: String = "g-1") -> String {
        #"{"type":"group","anonymousId":"dev-000001","userId":"user-1234","groupId":"\#(groupId)","messageId":"m-2","timestamp":"2026-11-20T08:00:01Z","traits":\#(traits)}"#
    }

    static func alias(previousId: String?, userId: String = "user-1234") -> String {
        let previous = previousId.map { #""previousId":"\#($0)","# } ?? ""
        return #"{"type":"alias",\#(previous)"anonymousId":"dev-000001","userId":"\#(userId)","messageId":"m-3","timestamp":"2026-11-20T08:00:02Z"}"#
    }

    // MARK: identify

    @Test func anIdentifySetsTheUsersProfileWithSegmentsSpecialTraitsAsMixpanelsReservedProperties() throws {
        var mixpanel = try ProfileHarness(Self.mixpanel)
        let made = try mixpanel.profile(Self.identify(traits: #"{"email":"jane@example.com","firstName":"Jane","plan":"pro"}"#))
        #expect(made.outcome == .records(0))
        #expect(made.records.isEmpty)
        #expect(made.sides["profiles"] == [
            #"{"$token":"\#(Self.token)","$distinct_id":"user-1234","$ip":"203.0.113.7","$set":{"$email":"jane@example.com","$first_name":"Jane","plan":"pro"}}"#,
        ])
        #expect(made.sides["groups"] == [])
    }

    @Test func traitsNamedInSetOnceGoToASetOnceUpdateThatNeverOverwrites() throws {
        var mixpanel = try ProfileHarness("{type: mixpanel, token: \(Self.token), set_once: [createdAt, first_source]}")
        let made = try mixpanel.profile(Self.identify(traits: #"{"plan":"pro","createdAt":"2026-01-02","first_source":"ad"}"#, context: "{}"))
        #expect(made.sides["profiles"] == [
            #"{"$token":"\#(Self.token)","$distinct_id":"user-1234","$set":{"plan":"pro"}}"#,
            #"{"$token":"\#(Self.token)","$distinct_id":"user-1234","$set_once":{"$created":"2026-01-02","first_source":"ad"}}"#,
        ])
    }

    @Test func anAnonymousIdentifyUpdatesTheDevicesProfile() throws {
        var mixpanel = try ProfileHarness(Self.mixpanel)
        let made = try mixpanel.profile(Self.identify(traits: #"{"plan":"free"}"#, userId: nil, context: "{}"))
        #expect(made.sides["profiles"] == [#"{"$token":"\#(Self.token)","$distinct_id":"dev-000001","$set":{"plan":"free"}}"#])
    }

    @Test func withoutTheProjectTokenNoProfileGroupOrAliasIsSent() throws {
        var mixpanel = try ProfileHarness("{type: mixpanel, identity: original, group_keys: [company_id]}")
        #expect(try mixpanel.profile(Self.identify(traits: #"{"plan":"pro"}"#)).outcome == .notTaken("no_project_token"))
        #expect(try mixpanel.profile(Self.group(traits: #"{"company_id":"acme"}"#)).outcome == .notTaken("no_project_token"))
        #expect(try mixpanel.profile(Self.alias(previousId: "dev-000001")).outcome == .notTaken("no_project_token"))
    }

    @Test func anIdentifyWithoutTraitsHasNothingToSendInSimplifiedIDMerge() throws {
        var mixpanel = try ProfileHarness(Self.mixpanel)
        #expect(try mixpanel.profile(Self.identify(traits: "{}")).outcome == .notTaken("no_traits"))
    }

    @Test func aProfileOfAPlaceholderDistinctIDIsRefused() throws {
        var mixpanel = try ProfileHarness(Self.mixpanel)
        let made = try mixpanel.profile(Self.identify(traits: #"{"plan":"pro"}"#, userId: "undefined"))
        guard case let .refused(rejection) = made.outcome else { Issue.record("not refused: \(made.outcome)"); return }
        #expect(rejection.reason == .invalidDistinctID)
        #expect(made.sides["profiles"] == [])
    }

    @Test func originalIDMergeJoinsTheDeviceToTheUserWithAMergeEvent() throws {
        var mixpanel = try ProfileHarness("{type: mixpanel, token: \(Self.token), identity: original}")
        let made = try mixpanel.profile(Self.identify(traits: #"{"plan":"pro"}"#, context: "{}"))
        #expect(made.outcome == .records(1))
        let record = try JSONDocument.parse(Array(try #require(made.records.first).utf8))
        #expect(record.string(at: JSONPath("event")) == "$merge")
        let properties = try #require(record.member("properties"))
        #expect(record.elements(of: try #require(record.member("$distinct_ids", of: properties))).compactMap { record.string($0) }
            == ["user-1234", "dev-000001"])
        #expect(record.string(try #require(record.member("token", of: properties))) == Self.token)
        #expect(record.string(at: JSONPath("properties.time")) == nil && record.member("time", of: properties) != nil)
        #expect(record.string(try #require(record.member("$insert_id", of: properties)))?.count == 36)
        #expect(made.sides["profiles"]?.count == 1)
    }

    @Test func simplifiedIDMergeMergesNothingOnIdentify() throws {
        var mixpanel = try ProfileHarness(Self.mixpanel)
        #expect(try mixpanel.profile(Self.identify(traits: #"{"plan":"pro"}"#)).records.isEmpty)
    }

    // MARK: alias

    @Test func simplifiedIDMergeNeedsNoAlias() throws {
        var mixpanel = try ProfileHarness(Self.mixpanel)
        #expect(try mixpanel.profile(Self.alias(previousId: "dev-000001")).outcome == .notTaken("alias_not_needed"))
    }

    @Test func originalIDMergeTurnsAnAliasIntoCreateAliasFromThePreviousIDToTheUserID() throws {
        var mixpanel = try ProfileHarness("{type: mixpanel, token: \(Self.token), identity: original}")
        let made = try mixpanel.profile(Self.alias(previousId: "old-user-99"))
        #expect(made.outcome == .records(1))
        let record = try JSONDocument.parse(Array(try #require(made.records.first).utf8))
        #expect(record.string(at: JSONPath("event")) == "$create_alias")
        #expect(record.string(at: JSONPath("properties.distinct_id")) == "old-user-99")
        #expect(record.string(at: JSONPath("properties.alias")) == "user-1234")
        #expect(record.string(at: JSONPath("properties.token")) == Self.token)
    }

    @Test func anAliasWithoutAPreviousIDAliasesTheAnonymousID() throws {
        var mixpanel = try ProfileHarness("{type: mixpanel, token: \(Self.token), identity: original}")
        let record = try JSONDocument.parse(Array(try #require(try mixpanel.profile(Self.alias(previousId: nil)).records.first).utf8))
        #expect(record.string(at: JSONPath("properties.distinct_id")) == "dev-000001")
    }

    @Test func anAliasOfAnIDToItselfIsRefused() throws {
        var mixpanel = try ProfileHarness("{type: mixpanel, token: \(Self.token), identity: original}")
        let made = try mixpanel.profile(Self.alias(previousId: "user-1234"))
        guard case let .refused(rejection) = made.outcome else { Issue.record("not refused: \(made.outcome)"); return }
        #expect(rejection.reason == .invalidAlias)
        #expect(made.records.isEmpty)
    }

    // MARK: group

    @Test func aGroupBecomesAGroupProfileAndTheGroupKeyOnTheUsersProfile() throws {
        var mixpanel = try ProfileHarness("{type: mixpanel, token: \(Self.token), group_keys: [company_id]}")
        let made = try mixpanel.profile(Self.group(traits: #"{"company_id":"acme","name":"Acme Inc","employees":42}"#))
        #expect(made.outcome == .records(0))
        #expect(made.sides["groups"] == [
            #"{"$token":"\#(Self.token)","$group_key":"company_id","$group_id":"acme","$set":{"company_id":"acme","$name":"Acme Inc","employees":42}}"#,
        ])
        #expect(made.sides["profiles"] == [#"{"$token":"\#(Self.token)","$distinct_id":"user-1234","$union":{"company_id":["acme"]}}"#])
    }

    @Test func theGroupIdGroupKeyReadsTheMessagesGroupId() throws {
        var mixpanel = try ProfileHarness("{type: mixpanel, token: \(Self.token), group_keys: [groupId]}")
        let made = try mixpanel.profile(Self.group(traits: #"{"plan":"enterprise"}"#, groupId: "g-42"))
        #expect(made.sides["groups"] == [#"{"$token":"\#(Self.token)","$group_key":"groupId","$group_id":"g-42","$set":{"plan":"enterprise"}}"#])
    }

    @Test func aGroupWithoutAConfiguredGroupKeyIsNotTaken() throws {
        var unconfigured = try ProfileHarness(Self.mixpanel)
        #expect(try unconfigured.profile(Self.group(traits: #"{"company_id":"acme"}"#)).outcome == .notTaken("no_group_key"))
        var other = try ProfileHarness("{type: mixpanel, token: \(Self.token), group_keys: [team_id]}")
        #expect(try other.profile(Self.group(traits: #"{"company_id":"acme"}"#)).outcome == .notTaken("no_group_key"))
    }

    @Test func theDevicesLaterEventsCarryItsGroupsAsAListAndTheEventsOwnPropertyWins() throws {
        var mixpanel = try ProfileHarness("{type: mixpanel, token: \(Self.token), group_keys: [company_id]}")
        _ = try mixpanel.profile(Self.group(traits: #"{"company_id":"acme"}"#))
        _ = try mixpanel.profile(Self.group(traits: #"{"company_id":"globex"}"#))
        let later = try mixpanel.encode(trackJSON(anonymousId: "dev-000001")).get()
        #expect(later.contains(#""company_id":["acme","globex"],"movie_id":5"#))
        #expect(mixpanel.change("groups_added_to_events") == 1)
        let own = try mixpanel.encode(trackJSON(properties: #"{"company_id":"initech"}"#, anonymousId: "dev-000001")).get()
        #expect(own.contains(#""company_id":"initech""#) && !own.contains("acme"))
        #expect(mixpanel.change("group_property_overridden") == 1)
        let otherDevice = try mixpanel.encode(trackJSON(anonymousId: "dev-000002")).get()
        #expect(!otherDevice.contains("company_id"))
    }

    @Test func withoutDeviceMemoryLaterEventsCarryNoGroup() throws {
        var mixpanel = try ProfileHarness("{type: mixpanel, token: \(Self.token), group_keys: [company_id], device_memory: 0}")
        _ = try mixpanel.profile(Self.group(traits: #"{"company_id":"acme"}"#))
        #expect(!(try mixpanel.encode(trackJSON(anonymousId: "dev-000001")).get()).contains("company_id"))
    }

    // MARK: limits

    @Test func profilePropertyNamesAndStringsAreCutAt255BytesAndReservedNamesLeftOut() throws {
        var mixpanel = try ProfileHarness(Self.mixpanel)
        let long = String(repeating: "é", count: 200)  // 400 bytes
        let made = try mixpanel.profile(Self.identify(traits: #"{"\#(long)":"\#(long)","$last_seen":"2026","plan":"pro"}"#, context: "{}"))
        let record = try JSONDocument.parse(Array(try #require(made.sides["profiles"]?.first).utf8))
        let set = try #require(record.member("$set"))
        let members = record.members(of: set)
        #expect(members.count == 2)
        #expect(record.string(members[0].key)?.utf8.count == 254 && record.string(members[0].value)?.utf8.count == 254)
        #expect(mixpanel.change("profile_property_name_cut") == 1 && mixpanel.change("profile_string_cut") == 1)
        #expect(mixpanel.change("profile_reserved_property_dropped") == 1)
    }

    @Test(arguments: [(2000, 2000, 0), (2001, 2000, 1)])
    func aProfileUpdateHoldsAtMost2000Properties(_ given: Int, _ sent: Int, _ dropped: Int) throws {
        var mixpanel = try ProfileHarness(Self.mixpanel)
        let traits = "{" + (0..<given).map { #""t\#($0)":\#($0)"# }.joined(separator: ",") + "}"
        let made = try mixpanel.profile(Self.identify(traits: traits, context: "{}"))
        let record = try JSONDocument.parse(Array(try #require(made.sides["profiles"]?.first).utf8))
        #expect(record.members(of: try #require(record.member("$set"))).count == sent)
        #expect(mixpanel.change("profile_property_dropped_over_limit") == dropped)
    }

    // MARK: settings

    @Test(arguments: [
        ("{type: mixpanel, token: \"a b\"}", "destinations.d.token must be the project token"),
        ("{type: mixpanel, identity: legacy}", "destinations.d.identity must be simplified or original"),
        ("{type: mixpanel, group_keys: [\"\"]}", "destinations.d.group_keys holds an empty name"),
        ("{type: mixpanel, device_memory: lots}", "destinations.d.device_memory must be a size"),
    ])
    func aWrongIdentitySettingIsAnErrorInThePipelineFile(_ yaml: String, _ message: String) {
        #expect(throws: ConfigurationError.self) { try ProfileHarness(yaml) }
        do {
            _ = try ProfileHarness(yaml)
        } catch let error as ConfigurationError {
            #expect(error.diagnostics.contains { $0.message.contains(message) }, "\(error.diagnostics)")
        } catch {
            Issue.record("\(error)")
        }
    }
}
