import Testing
@testable import Sluice
@testable import SluiceJSON

@Suite struct GA4DestinationTests {
    private let session = #""ip":"203.0.113.7","session":{"id":"s","start_ms":1795161600000,"number":1,"seq":3,"engagement_ms":0}"#

    /// A track event of a device with the Firebase SDK's app instance id (`context.device.appInstanceId`).
    private func event(_ name: String, properties: String = "{}", extra: String = "") -> String {
        let device = #""device":{"appInstanceId":"0123456789abcdef0123456789abcdef"}"#
        let rest = extra.contains(#""context":{"#) ? extra.replacingAll(#""context":{"#, with: #""context":{\#(device),"#)
                                                 : extra + #","context":{\#(device)}"#
        return #"{"type":"track","event":\#(quoted(name)),"timestamp":"2026-11-20T08:00:00Z","anonymousId":"0123456789abcdef0123456789abcdef","properties":\#(properties)\#(rest)}"#
    }

    private func params(_ line: String, event index: Int = 0) throws -> [(key: String, value: String)] {
        let document = try JSONDocument.parse(Array(line.utf8))
        let events = document.find(JSONPath("events"))!
        let params = document.member("params", of: document.elements(of: events)[index])!
        return document.members(of: params).map { (document.string($0.key)!, String(decoding: document.rawBytes($0.value), as: UTF8.self)) }
    }

    // MARK: Golden: input events → exact lines

    @Test func aTrackBecomesOneMeasurementProtocolBodyWithSessionParams() throws {
        var ga4 = try DestinationHarness("{type: ga4}")
        let input = trackJSON(anonymousId: "0123456789ABCDEF0123456789abcdef").replacingAll(#""ip":"203.0.113.7""#, with: session)
        #expect(try ga4.encode(input).get() ==
            #"{"app_instance_id":"5c7d2e1f9a8b4c3d2e1f0a9b8c7d6e5f","user_id":"user-12345","timestamp_micros":1795161607269000,"events":[{"name":"movie_tapped","params":{"session_id":1795161600,"engagement_time_msec":1,"movie_id":5}}]}"#)
    }

    /// [mp-send] session_id groups events into sessions: a split timed event's start
    /// goes in the session it happened in (`started_session`), its stop in the event's.
    @Test func aSplitTimedEventsStartCarriesTheStartsSessionAndItsStopTheStops() throws {
        let sessions = #","context":{"session":{"id":"s2","start_ms":1795161598000,"number":2,"seq":1}},"started_session":{"id":"s1","start_ms":1795161500000,"number":1,"seq":4}"#
        let completed = event("checkout_flow", properties: #"{"duration_ms":5000}"#,
                              extra: #","timed":"completed","started_at":"2026-11-20T07:59:55Z""# + sessions)
        var split = try DestinationHarness("{type: ga4, timed: split}")
        let line = try split.encode(completed).get()
        #expect(try params(line, event: 0).first { $0.0 == "session_id" }?.1 == "1795161500")
        #expect(try params(line, event: 1).first { $0.0 == "session_id" }?.1 == "1795161598")
    }

    /// No event is filed in a session that began after it: such a `context.session` is not believed.
    @Test func aSessionThatBeganAfterTheEventIsLeftOutAndCounted() throws {
        let late = #","context":{"session":{"id":"s2","start_ms":1795161600001,"number":2,"seq":1}}"#
        var ga4 = try DestinationHarness("{type: ga4}")
        let line = try ga4.encode(event("tap", extra: late)).get()
        #expect(!line.contains("session_id"))
        #expect(ga4.change("session_after_event") == 1)
        // The split start of a pair whose stop's session began after the start: no session either.
        let completed = event("checkout_flow", properties: #"{"duration_ms":5000}"#,
                              extra: #","timed":"completed","started_at":"2026-11-20T07:59:55Z","context":{"session":{"id":"s2","start_ms":1795161598000}}"#)
        var split = try DestinationHarness("{type: ga4, timed: split}")
        let pair = try split.encode(completed).get()
        #expect(try params(pair, event: 0).first { $0.0 == "session_id" } == nil)
        #expect(try params(pair, event: 1).first { $0.0 == "session_id" }?.1 == "1795161598")
    }

    @Test func aScreenBecomesScreenViewWithUserPropertiesFromContextTraits() throws {
        var ga4 = try DestinationHarness("{type: ga4, stream: web}")
        let screen = #"{"type":"screen","name":"home","anonymousId":"1234.5678","timestamp":"2026-11-20T08:00:00Z","context":{"traits":{"plan":"pro","seats":3,"beta":true}},"properties":{"referrer":"push"}}"#
        #expect(try ga4.encode(screen).get() ==
            #"{"client_id":"1234.5678","timestamp_micros":1795161600000000,"user_properties":{"plan":{"value":"pro"},"seats":{"value":3},"beta":{"value":"true"}},"events":[{"name":"screen_view","params":{"engagement_time_msec":1,"screen_name":"home","referrer":"push"}}]}"#)
    }

    @Test func aCompletedTimedEventIsSplitIntoStartAndStopOrSentWithItsDuration() throws {
        let completed = event("checkout_flow", properties: #"{"duration_ms":5000,"step":3}"#,
                              extra: #","timed":"completed","started_at":"2026-11-20T07:59:55Z""#)
        var split = try DestinationHarness("{type: ga4, timed: split}")
        #expect(try split.encode(completed).get() ==
            #"{"app_instance_id":"0123456789abcdef0123456789abcdef","timestamp_micros":1795161600000000,"events":[{"name":"checkout_flow_start","timestamp_micros":1795161595000000,"params":{"engagement_time_msec":1,"step":3}},{"name":"checkout_flow_stop","params":{"engagement_time_msec":1,"duration_ms":5000,"step":3}}]}"#)
        var duration = try DestinationHarness("{type: ga4, timed: duration}")
        #expect(try duration.encode(completed).get().hasSuffix(
            #""events":[{"name":"checkout_flow","params":{"engagement_time_msec":1,"duration_ms":5000,"step":3}}]}"#))
        let abandoned = event("checkout_flow", extra: #","timed":"abandoned","abandon_reason":"expired""#)
        #expect(try split.encode(abandoned).get().contains(#""events":[{"name":"checkout_flow_start","params""#))
    }

    // MARK: Event names

    @Test(arguments: [
        ("movie_tapped", "movie_tapped"),
        ("Avatar Changed", "Avatar_Changed"),
        ("2fa_enabled", "app_2fa_enabled"),
        ("firebase_custom", "app_firebase_custom"),
        ("ga_session_marker", "app_ga_session_marker"),
        ("google_thing", "app_google_thing"),
        ("_private", "app__private"),
        ("session_start", "app_session_start"),
        ("first_open", "app_first_open"),
        ("click", "click"),
        ("Ünïcödé Event", "Unicode_Event"),
        ("checkout:step-2", "checkout_step_2"),
        ("日本語", "app_"),
        (String(repeating: "a", count: 40), String(repeating: "a", count: 40)),
        (String(repeating: "b", count: 41), String(repeating: "b", count: 40)),
        ("a_very_long_event_name_that_goes_well_beyond_forty_characters", "a_very_long_event_name_that_goes_well_be"),
    ])
    func namesAreNormalizedToGA4Rules(_ name: String, _ expected: String) throws {
        var ga4 = try DestinationHarness("{type: ga4}")
        #expect(try ga4.encode(event(name)).get().contains(#""events":[{"name":"\#(expected)","#))
    }

    @Test func webStreamsReserveMoreNames() throws {
        var web = try DestinationHarness("{type: ga4, stream: web}")
        #expect(try web.encode(event("click")).get().contains(#""name":"app_click""#))
        #expect(try web.encode(event("scroll")).get().contains(#""name":"app_scroll""#))
        #expect(web.change("name_prefixed") == 2)
    }

    @Test(arguments: [(40, true), (41, false)])
    func rejectModeRefusesInvalidNamesAtTheBoundary(_ length: Int, _ accepted: Bool) throws {
        var ga4 = try DestinationHarness("{type: ga4, names: reject}")
        switch try ga4.encode(event(String(repeating: "n", count: length))) {
        case .success: #expect(accepted)
        case .failure(let rejection): #expect(!accepted && rejection.reason == .invalidEventName)
        }
        guard case let .failure(rejection) = try ga4.encode(event("Avatar Changed")) else {
            Issue.record("accepted")
            return
        }
        #expect(rejection.detail.contains("Avatar_Changed"))
    }

    /// Split names keep room for `_start`: 34 characters of base at most, and
    /// a base that would make a reserved name with a suffix is prefixed.
    @Test(arguments: [
        (String(repeating: "t", count: 34), String(repeating: "t", count: 34)),
        (String(repeating: "t", count: 35), String(repeating: "t", count: 34)),
        ("session", "app_session"),
    ])
    func timedNamesKeepRoomForTheSuffix(_ name: String, _ base: String) throws {
        var ga4 = try DestinationHarness("{type: ga4}")
        let stop = event(name, extra: #","timed":"orphan_stop""#)
        #expect(try ga4.encode(stop).get().contains(#""name":"\#(base)_stop""#))
        let start = event(name, extra: #","timed":"start""#)
        #expect(try ga4.encode(start).get().contains(#""name":"\#(base)_start""#))
    }

    // MARK: Params and user properties

    /// With a session, `session_id` and `engagement_time_msec` are two of the 25.
    @Test(arguments: [(22, 24, 0), (23, 25, 0), (24, 25, 1)])
    func atMost25ParamsAreSent(_ own: Int, _ sent: Int, _ dropped: Int) throws {
        var ga4 = try DestinationHarness("{type: ga4}")
        let properties = "{" + (0..<own).map { #""p\#($0)":\#($0)"# }.joined(separator: ",") + "}"
        let line = try ga4.encode(trackJSON(properties: properties).replacingAll(#""ip":"203.0.113.7""#, with: session)).get()
        #expect(try params(line).count == sent)
        #expect(ga4.change("param_dropped_over_limit") == dropped)
    }

    @Test(arguments: [(40, 40), (41, 40)])
    func paramNamesAreCutAt40Characters(_ length: Int, _ sent: Int) throws {
        var ga4 = try DestinationHarness("{type: ga4}")
        let line = try ga4.encode(event("e", properties: #"{"\#(String(repeating: "k", count: length))":1}"#)).get()
        #expect(try params(line).last?.key == String(repeating: "k", count: sent))
        #expect(ga4.change("param_name_changed") == (length > sent ? 1 : 0))
    }

    @Test(arguments: [("note", 100, 100), ("note", 101, 100), ("page_title", 300, 300), ("page_title", 301, 300),
                      ("page_location", 1001, 1000)])
    func paramValuesAreCutAt100CharactersOrTheirOwnLimit(_ key: String, _ length: Int, _ sent: Int) throws {
        var ga4 = try DestinationHarness("{type: ga4}")
        let line = try ga4.encode(event("e", properties: #"{"\#(key)":"\#(String(repeating: "é", count: length))"}"#)).get()
        #expect(try params(line).last?.value == quoted(String(repeating: "é", count: sent)))
        #expect(ga4.change("param_value_cut") == (length > sent ? 1 : 0))
    }

    @Test func nullObjectArrayAndBooleanValuesAreHandledAndCounted() throws {
        var ga4 = try DestinationHarness("{type: ga4}")
        let line = try ga4.encode(event("e", properties: #"{"n":null,"arr":[1],"obj":{"a":1,"deep":{"b":2}},"flag":true,"bad key":1,"obj_a":2}"#)).get()
        #expect(try params(line).map(\.key) == ["engagement_time_msec", "obj_a", "flag", "bad_key"])
        #expect(try params(line).first { $0.key == "flag" }?.value == #""true""#)
        #expect(ga4.change("null_param_dropped") == 1 && ga4.change("array_param_dropped") == 1)
        #expect(ga4.change("object_param_flattened") == 1 && ga4.change("nested_param_dropped") == 1)
        #expect(ga4.change("bool_param_stringified") == 1 && ga4.change("duplicate_param_dropped") == 1)
        #expect(ga4.change("session_id_missing") == 1)
    }

    @Test func aScreenNamePropertyDoesNotDuplicateTheScreenName() throws {
        var ga4 = try DestinationHarness("{type: ga4}")
        let screen = #"{"type":"screen","name":"home","anonymousId":"dev-1","timestamp":"2026-11-20T08:00:00Z","context":{"device":{"appInstanceId":"5c7d2e1f9a8b4c3d2e1f0a9b8c7d6e5f"}},"properties":{"screen_name":"other"}}"#
        #expect(try params(ga4.encode(screen).get()).filter { $0.key == "screen_name" }.map(\.value) == [#""home""#])
        #expect(ga4.change("duplicate_param_dropped") == 1)
    }

    private func userProperties(_ traits: String) throws -> (names: [String], values: [String], ga4: DestinationHarness) {
        var ga4 = try DestinationHarness("{type: ga4}")
        let line = try ga4.encode(event("e", extra: #","context":{"traits":\#(traits)}"#)).get()
        let document = try JSONDocument.parse(Array(line.utf8))
        let object = document.member("user_properties")!
        let members = document.members(of: object)
        return (members.map { document.string($0.key)! },
                members.map { String(decoding: document.rawBytes(document.member("value", of: $0.value)!), as: UTF8.self) }, ga4)
    }

    @Test(arguments: [(24, 24), (25, 24)])
    func userPropertyNamesAreCutAt24Characters(_ length: Int, _ sent: Int) throws {
        let result = try userProperties(#"{"\#(String(repeating: "u", count: length))":"x"}"#)
        #expect(result.names == [String(repeating: "u", count: sent)])
        #expect(result.ga4.change("user_property_name_changed") == (length > sent ? 1 : 0))
    }

    @Test(arguments: [(36, 36), (37, 36)])
    func userPropertyValuesAreCutAt36Characters(_ length: Int, _ sent: Int) throws {
        let result = try userProperties(#"{"plan":"\#(String(repeating: "v", count: length))"}"#)
        #expect(result.values == [quoted(String(repeating: "v", count: sent))])
        #expect(result.ga4.change("user_property_value_cut") == (length > sent ? 1 : 0))
    }

    @Test(arguments: [(25, 25), (26, 25)])
    func atMost25UserPropertiesAreSent(_ count: Int, _ sent: Int) throws {
        let result = try userProperties("{" + (0..<count).map { #""u\#($0)":\#($0)"# }.joined(separator: ",") + "}")
        #expect(result.names.count == sent)
        #expect(result.ga4.change("user_property_dropped_over_limit") == count - sent)
    }

    @Test func reservedUserPropertyNamesArePrefixedAndObjectValuesDropped() throws {
        let result = try userProperties(#"{"user_id":"u","first_open_time":1,"firebase_x":"y","address":{"city":"Oslo"},"gone":null}"#)
        #expect(result.names == ["app_user_id", "app_first_open_time", "app_firebase_x"])
        #expect(result.ga4.change("user_property_dropped") == 2)
    }

    /// [mp-ref] app_instance_id "needs to be retrieved through the Firebase SDK" and is
    /// "expected to be a 32 digit hexadecimal number": read from the event, never made up.
    @Test func anAppStreamTakesTheAppInstanceIDFromTheEventLowercased() throws {
        var ga4 = try DestinationHarness("{type: ga4}")
        let id = { (line: String) in try JSONDocument.parse(Array(line.utf8)).string(at: JSONPath("app_instance_id"))! }
        #expect(try id(ga4.encode(trackJSON()).get()) == "5c7d2e1f9a8b4c3d2e1f0a9b8c7d6e5f")
        let upper = trackJSON().replacingAll("5c7d2e1f9a8b4c3d2e1f0a9b8c7d6e5f", with: "5C7D2E1F-9A8B-4C3D-2E1F-0A9B8C7D6E5F")
        #expect(try id(ga4.encode(upper).get()) == "5c7d2e1f9a8b4c3d2e1f0a9b8c7d6e5f")
    }

    @Test(arguments: [
        (#","appInstanceId":"5c7d2e1f9a8b4c3d2e1f0a9b8c7d6e5f""#, ""),
        (#","appInstanceId":"""#, "missing_app_instance_id"),
        (#","appInstanceId":"   ""#, "missing_app_instance_id"),
        (#","appInstanceId":null"#, "missing_app_instance_id"),
        (#","appInstanceId":"dev-000001-abcdef12""#, "invalid_app_instance_id"),
        (#","appInstanceId":"5c7d2e1f9a8b4c3d2e1f0a9b8c7d6e5""#, "invalid_app_instance_id"),
        (#","appInstanceId":"5c7d2e1f9a8b4c3d2e1f0a9b8c7d6e5g""#, "invalid_app_instance_id"),
        (#","appInstanceId":"5c7d2e1f-9a8b-4c3d-2e1f-0a9b8c7d""#, "invalid_app_instance_id"),
    ])
    func anAppStreamEventWithoutAUsableAppInstanceIDIsNotTaken(_ member: String, _ reason: String) throws {
        var ga4 = try DestinationHarness("{type: ga4}")
        let line = trackJSON().replacingAll(#","appInstanceId":"5c7d2e1f9a8b4c3d2e1f0a9b8c7d6e5f""#, with: member)
        switch try ga4.encode(line) {
        case .success: #expect(reason.isEmpty)
        case .failure(let rejection): #expect(rejection.reason.rawValue == reason)
        }
    }

    @Test func theAppInstanceIDFieldIsConfigurable() throws {
        var ga4 = try DestinationHarness("{type: ga4, app_instance_id_field: context.app.instance}")
        let line = trackJSON().replacingAll(#""build":"3210""#, with: #""build":"3210","instance":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA""#)
        #expect(try ga4.encode(line).get().contains(#""app_instance_id":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa""#))
        #expect(throws: Rejection.self) { try ga4.encode(trackJSON()).get() }
    }

    /// Web streams: client_id from `anonymousId`, as Segment's GA4 destination fills it.
    @Test func aWebStreamTakesTheClientIDFromTheAnonymousID() throws {
        var ga4 = try DestinationHarness("{type: ga4, stream: web}")
        #expect(try ga4.encode(trackJSON()).get().contains(#""client_id":"dev-000001-abcdef12""#))
    }

    @Test(arguments: [(256, true), (257, false)])
    func userIDsOver256CharactersAreLeftOut(_ length: Int, _ kept: Bool) throws {
        var ga4 = try DestinationHarness("{type: ga4}")
        let line = try ga4.encode(trackJSON(userId: String(repeating: "u", count: length))).get()
        #expect(line.contains(#""user_id":"#) == kept)
    }

    /// `--validate` only ever posts to `/debug/mp/collect`: derived from `/mp/collect`, refused otherwise.
    @Test func validationTakesTheDebugPathOfAnEndpointOrRefusesIt() throws {
        var settings = SendSettings(credentials: .environment("X"), region: "global")
        settings.options["measurement_id"] = "G-1"
        let validating = try GA4MeasurementProtocol.make(settings: settings, secret: "s", validate: true).get()
        #expect(try validating.checkedURL(endpoint: nil).get().hasPrefix("https://www.google-analytics.com/debug/mp/collect?"))
        #expect(try validating.checkedURL(endpoint: "http://h:1/mp/collect").get().hasPrefix("http://h:1/debug/mp/collect?api_secret=s"))
        #expect(try validating.checkedURL(endpoint: "http://h:1/debug/mp/collect/").get().hasPrefix("http://h:1/debug/mp/collect?"))
        #expect(try validating.checkedURL(endpoint: "http://h:1/mp/collect?x=1").get() == "http://h:1/debug/mp/collect?x=1&api_secret=s&measurement_id=G-1")
        #expect(throws: SendFailure.self) { try validating.checkedURL(endpoint: "http://h:1/collect").get() }
        let sending = try GA4MeasurementProtocol.make(settings: settings, secret: "s", validate: false).get()
        #expect(try sending.checkedURL(endpoint: "http://h:1/anything").get().hasPrefix("http://h:1/anything?"))
    }
}
