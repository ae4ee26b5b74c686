import Foundation
import Testing
@testable import Sluice
@testable import SluiceJSON

/// What a router maps and each provider's documented rules, second pass: reserved
/// event names, the times each provider takes, GA4's single-product items, spec
/// event names however they are written, and the `context` fields routers map.
/// Each table cites the page its rule comes from.
@Suite struct ProviderFidelityTests {
    static let adjust = "{type: adjust, app_token: 4w565xzmb54d, tokens: {movie_tapped: def456, signed_out: abc123}}"

    static func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }

    /// An ISO 8601 time `seconds` from now.
    static func fromNow(_ seconds: Double) -> String {
        EventTime(milliseconds: Int64((Date().timeIntervalSince1970 + seconds) * 1000)).iso8601
    }

    static func message(_ type: String, _ fields: String, time: String = "2026-11-20T08:00:00Z") -> String {
        #"{"type":"\#(type)","messageId":"m-1","timestamp":"\#(time)","anonymousId":"dev-000001-abcdef12","userId":"user-12345",\#(fields)}"#
    }

    // MARK: 1. Reserved event names

    /// docs.mixpanel.com (JavaScript SDK: "avoid names containing `$` or `mp`"; Original ID
    /// Merge's `$identify`, `$create_alias`, `$merge`); amplitude.com/docs/apis/analytics/http-v2
    /// (`event_type`: `[Amplitude] …` reserved, `$identify` / `$groupidentify` predefined).
    @Test(arguments: [
        ("mixpanel", "$merge", "app_$merge"), ("mixpanel", "$identify", "app_$identify"),
        ("mixpanel", "$create_alias", "app_$create_alias"), ("mixpanel", "mp_page_view", "app_mp_page_view"),
        ("mixpanel", "merge", "merge"), ("mixpanel", "mpx_tapped", "mpx_tapped"), ("mixpanel", "Map Opened", "Map Opened"),
        ("amplitude", "[Amplitude] Start Session", "app_[Amplitude] Start Session"),
        ("amplitude", "[Amplitude] Revenue", "app_[Amplitude] Revenue"),
        ("amplitude", "[amplitude] merged user", "app_[amplitude] merged user"),
        ("amplitude", "$identify", "app_$identify"), ("amplitude", "$groupidentify", "app_$groupidentify"),
        ("amplitude", "$exposure", "$exposure"), ("amplitude", "[Segment] Group", "[Segment] Group"),
        ("amplitude", "identify", "identify"),
    ])
    func aTrackNamedLikeTheProvidersOwnEventsIsRenamedWithAppInFront(_ provider: String, _ event: String, _ sent: String) throws {
        var destination = try DestinationHarness("{type: \(provider)}")
        let record = Self.json(try destination.encode(trackJSON(event: event)).get())
        let name = provider == "mixpanel" ? record["event"] as? String : record["event_type"] as? String
        #expect(name == sent)
        #expect(destination.change("reserved_name_renamed") == (event == sent ? 0 : 1))
    }

    @Test(arguments: [("mixpanel", "$merge"), ("amplitude", "[Amplitude] Revenue"), ("amplitude", "$identify")])
    func withNamesRejectAReservedNameIsRefused(_ provider: String, _ event: String) throws {
        var destination = try DestinationHarness("{type: \(provider), names: reject}")
        switch try destination.encode(trackJSON(event: event)) {
        case .success(let line): Issue.record("sent: \(line)")
        case .failure(let rejection):
            #expect(rejection.reason == .reservedEventName)
            #expect(rejection.detail.contains("app_\(event)"))
        }
        #expect(try destination.encode(trackJSON(event: "movie_tapped")).get().contains("movie_tapped"))
    }

    @Test func aScreenTemplateThatMakesAReservedNameIsRenamedToo() throws {
        var mixpanel = try DestinationHarness("{type: mixpanel, screen_event: \"{name}\"}")
        let record = Self.json(try mixpanel.encode(Self.message("screen", #""name":"$merge""#)).get())
        #expect(record["event"] as? String == "app_$merge")
    }

    @Test func anIdentifyStillBecomesAmplitudesOwnIdentify() throws {
        var amplitude = try DestinationHarness("{type: amplitude}")
        let record = Self.json(try amplitude.encode(Self.message("identify", #""traits":{"plan":"pro"}"#)).get())
        #expect(record["event_type"] as? String == "$identify")
        #expect(amplitude.change("reserved_name_renamed") == 0)
    }

    @Test func aBadNamesSettingIsAnErrorInThePipelineFile() throws {
        #expect(throws: (any Error).self) { try DestinationHarness("{type: mixpanel, names: drop}") }
    }

    // MARK: 2. Each provider's time range

    /// Mixpanel: docs.mixpanel.com/troubleshooting/errors/400-bad-request ("rejects events dated
    /// before 1971-01-01 or more than one hour in the future"); Amplitude [http-v2] `time`
    /// "milliseconds since epoch"; GA4 `timestamp_micros` "A Unix timestamp"; Adjust
    /// `created_at_unix`: none before 1970, and not more than a day ahead of the clock.
    @Test(arguments: [
        ("mixpanel", "1970-12-31T23:59:59Z", false), ("mixpanel", "1971-01-01T00:00:00Z", true),
        ("amplitude", "1969-12-31T23:59:59Z", false), ("amplitude", "1970-01-01T00:00:00Z", true),
        ("ga4", "1969-12-31T23:59:59Z", false), ("ga4", "1970-01-01T00:00:00Z", true),
        ("adjust", "1969-12-31T23:59:59Z", false), ("adjust", "1970-01-01T00:00:01Z", true),
        ("amplitude", "1900-01-01T00:00:00Z", false),
    ])
    func anEventBeforeTheProvidersEarliestTimeIsRefused(_ provider: String, _ time: String, _ taken: Bool) throws {
        var destination = try DestinationHarness(provider == "adjust" ? Self.adjust : "{type: \(provider)}")
        let event = trackJSON().replacingOccurrences(of: "2026-11-20T08:00:07.269Z", with: time)
        switch try destination.encode(event) {
        case .success(let line):
            #expect(taken, "sent: \(line)")
        case .failure(let rejection):
            #expect(!taken)
            #expect(rejection.reason == .timeOutOfRange)
            #expect(rejection.detail.contains("is before 197"))
        }
    }

    static let hour: Double = 3600
    static let ahead: [(String, Double, Bool)] = [
        ("mixpanel", hour / 2, true), ("mixpanel", 2 * hour, false),
        ("amplitude", 20 * hour, true), ("amplitude", 48 * hour, false),
        ("ga4", 20 * hour, true), ("ga4", 48 * hour, false),
        ("adjust", 20 * hour, true), ("adjust", 9600 * hour, false),
    ]

    @Test(arguments: ahead)
    func anEventTooFarAheadOfTheClockIsRefused(_ provider: String, _ ahead: Double, _ taken: Bool) throws {
        var destination = try DestinationHarness(provider == "adjust" ? Self.adjust : "{type: \(provider)}")
        let event = trackJSON().replacingOccurrences(of: "2026-11-20T08:00:07.269Z", with: Self.fromNow(ahead))
        switch try destination.encode(event) {
        case .success(let line): #expect(taken, "sent: \(line)")
        case .failure(let rejection):
            #expect(!taken)
            #expect(rejection.reason == .timeOutOfRange)
            #expect(rejection.detail.contains("after Sluice's clock"))
        }
    }

    // MARK: 3. GA4 single-product items

    /// developers.google.com/analytics/devguides/collection/ga4/ecommerce: item params
    /// (`item_category2`…`5`, `discount`, `affiliation`, `location_id`, `item_variant`,
    /// `item_brand`, `coupon`) belong to the item.
    @Test func aSingleProductEventsItemParamsGoIntoItsItem() throws {
        var ga4 = try DestinationHarness("{type: ga4}")
        let properties = #"{"product_id":"p-1","name":"Shoe","price":20,"currency":"EUR","item_category2":"Men","item_category3":"Running","item_category4":"Road","item_category5":"Sale","discount":2.5,"affiliation":"Store 7","location_id":"ChIJ1","item_variant":"red","item_brand":"Acme","coupon":"SPRING","color":"red"}"#
        let request = Self.json(try ga4.encode(trackJSON(event: "Product Added", properties: properties)).get())
        let event = (request["events"] as? [[String: Any]])?.first ?? [:]
        #expect(event["name"] as? String == "add_to_cart")
        let params = event["params"] as? [String: Any] ?? [:]
        let item = (params["items"] as? [[String: Any]])?.first ?? [:]
        for key in ["item_category2", "item_category3", "item_category4", "item_category5", "discount", "affiliation", "location_id",
                    "item_variant", "item_brand", "coupon"] {
            #expect(item[key] != nil, "\(key) not in the item: \(item)")
            #expect(params[key] == nil, "\(key) left on the event: \(params)")
        }
        #expect(item["item_id"] as? String == "p-1")
        #expect(params["color"] as? String == "red")
    }

    // MARK: 4. Spec event names however they are written

    /// segment-docs connections/spec/ecommerce/v2 names, as apps and routers also send them.
    @Test(arguments: [
        ("Product Clicked", "select_item"), ("product clicked", "select_item"), ("product_clicked", "select_item"),
        ("PRODUCT_CLICKED", "select_item"), ("productClicked", "select_item"), ("order completed", "purchase"),
        ("Order_Completed", "purchase"), ("checkout started", "begin_checkout"),
        ("product added to wishlist", "add_to_wishlist"), ("Order Completedx", "Order_Completedx"),
        ("order", "order"),
    ])
    func specEventNamesMatchInAnyCaseWithOrWithoutSeparators(_ event: String, _ ga4Name: String) throws {
        var ga4 = try DestinationHarness("{type: ga4}")
        let request = Self.json(try ga4.encode(trackJSON(event: event, properties: #"{"product_id":"p-1","order_id":"o-1","revenue":5,"currency":"USD"}"#)).get())
        #expect((request["events"] as? [[String: Any]])?.first?["name"] as? String == ga4Name)
    }

    @Test func aProviderWithoutNameMappingKeepsTheOriginalNameOfASpecEvent() throws {
        var mixpanel = try DestinationHarness("{type: mixpanel}")
        let record = Self.json(try mixpanel.encode(trackJSON(event: "order completed", properties: #"{"order_id":"o-1","revenue":25,"currency":"USD"}"#)).get())
        #expect(record["event"] as? String == "order completed")
        #expect((record["properties"] as? [String: Any])?["amount"] != nil, "the order's amount is Mixpanel's revenue: \(record)")
    }

    // MARK: Dropped today, now mapped

    /// [http-v2] "Keys for the event argument": `location_lat`, `location_lng`, `city`, `country`, `region`.
    @Test func amplitudeGetsTheContextsLocation() throws {
        var amplitude = try DestinationHarness("{type: amplitude}")
        let line = try amplitude.encode(Self.message("track", #""event":"e","context":{"location":{"latitude":52.52,"longitude":13.405,"city":"Berlin","country":"Germany","region":"BE","speed":0}}"#)).get()
        let record = Self.json(line)
        #expect(record["location_lat"] as? Double == 52.52)
        #expect(record["location_lng"] as? Double == 13.405)
        #expect(record["city"] as? String == "Berlin")
        #expect(record["country"] as? String == "Germany")
        #expect(record["region"] as? String == "BE")
    }

    @Test func aLocationOfTheWrongKindIsLeftOutAndCounted() throws {
        var amplitude = try DestinationHarness("{type: amplitude}")
        let record = Self.json(try amplitude.encode(Self.message("track", #""event":"e","context":{"location":{"latitude":"52.5","city":"Berlin"}}"#)).get())
        #expect(record["location_lat"] == nil)
        #expect(record["city"] as? String == "Berlin")
        #expect(amplitude.change("context_value_invalid") == 1)
    }

    @Test func anIdentifyWithoutTraitsSetsTheContextsTraits() throws {
        var amplitude = try DestinationHarness("{type: amplitude}")
        let record = Self.json(try amplitude.encode(Self.message("identify", #""traits":{},"context":{"traits":{"plan":"pro"}}"#)).get())
        #expect((record["user_properties"] as? [String: Any])?["$set"] as? [String: String] == ["plan": "pro"])

        var mixpanel = try ProfileHarness("{type: mixpanel, token: 0123456789abcdef0123456789abcdef}")
        let made = try mixpanel.profile(Self.message("identify", #""context":{"traits":{"plan":"pro"}}"#))
        #expect(made.sides["profiles"]?.first?.contains(#""$set":{"plan":"pro"}"#) == true, "\(made.sides)")
    }

    @Test func anIdentifysOwnTraitsWinOverTheContexts() throws {
        var amplitude = try DestinationHarness("{type: amplitude}")
        let record = Self.json(try amplitude.encode(Self.message("identify", #""traits":{"plan":"team"},"context":{"traits":{"plan":"pro"}}"#)).get())
        #expect((record["user_properties"] as? [String: Any])?["$set"] as? [String: String] == ["plan": "team"])
    }

    /// Amplitude's browser SDK sets the first-touch referrer once (`initial_referrer`, `initial_referring_domain`).
    @Test(arguments: [#"{"initial_referrer":"https://news.example/a","initial_referring_domain":"news.example"}"#,
                      #"{"initialReferrer":"https://news.example/a","initialReferringDomain":"news.example"}"#])
    func theFirstTouchReferrerIsSetOnceOnAnAmplitudeIdentify(_ page: String) throws {
        var amplitude = try DestinationHarness("{type: amplitude}")
        let record = Self.json(try amplitude.encode(Self.message("identify", #""traits":{"plan":"pro"},"context":{"page":\#(page)}"#)).get())
        let properties = record["user_properties"] as? [String: Any] ?? [:]
        #expect(properties["$set"] as? [String: String] == ["plan": "pro"])
        #expect(properties["$setOnce"] as? [String: String] == ["initial_referrer": "https://news.example/a",
                                                                "initial_referring_domain": "news.example"])
    }

    @Test func anAmplitudeGroupCarriesTheAppVersionLanguageAndCampaign() throws {
        var amplitude = try ProfileHarness("{type: amplitude}")
        let made = try amplitude.profile(Self.message("group", #""groupId":"g-1","context":{"app":{"version":"3.2.1"},"locale":"de-DE","campaign":{"source":"newsletter","name":"spring"}}"#))
        let record = Self.json(made.records.first ?? "")
        #expect(record["app_version"] as? String == "3.2.1")
        #expect(record["language"] as? String == "de-DE")
        let set = (record["user_properties"] as? [String: Any])?["$set"] as? [String: String]
        #expect(set == ["[Segment] Group": "g-1", "utm_source": "newsletter", "utm_campaign": "spring"])
    }

    /// [default] docs.mixpanel.com/docs/data-structure/property-reference/default-properties.
    @Test func mixpanelGetsTheInitialReferrerAndEveryCampaignKey() throws {
        var mixpanel = try DestinationHarness("{type: mixpanel}")
        let context = #"{"page":{"initial_referrer":"https://news.example/a","initial_referring_domain":"news.example"},"campaign":{"source":"ads","keyword":"shoes","utm_id":"c-9","gclid":"Cj0K","fbclid":"IwAR","msclkid":"m-1","count":3}}"#
        let record = Self.json(try mixpanel.encode(Self.message("track", #""event":"e","context":\#(context),"properties":{"utm_id":"own"}"#)).get())
        let properties = record["properties"] as? [String: Any] ?? [:]
        #expect(properties["$initial_referrer"] as? String == "https://news.example/a")
        #expect(properties["$initial_referring_domain"] as? String == "news.example")
        #expect(properties["utm_source"] as? String == "ads")
        #expect(properties["utm_keyword"] as? String == "shoes")
        #expect(properties["gclid"] as? String == "Cj0K")
        #expect(properties["fbclid"] as? String == "IwAR")
        #expect(properties["msclkid"] as? String == "m-1")
        #expect(properties["utm_id"] as? String == "own", "the event's own property wins")
        #expect(properties["utm_count"] == nil && properties["count"] == nil)
        #expect(mixpanel.change("context_property_overridden") == 1)
        #expect(mixpanel.change("context_value_invalid") == 1)
    }

    @Test func aMixpanelPageKeepsItsCategory() throws {
        var mixpanel = try DestinationHarness("{type: mixpanel}")
        let record = Self.json(try mixpanel.encode(Self.message("page", #""name":"Pricing","category":"Docs""#)).get())
        #expect(record["event"] as? String == "Viewed Pricing Page")
        #expect((record["properties"] as? [String: Any])?["category"] as? String == "Docs")
        let own = Self.json(try mixpanel.encode(Self.message("page", #""name":"Pricing","category":"Docs","properties":{"category":"Own"}"#)).get())
        #expect((own["properties"] as? [String: Any])?["category"] as? String == "Own")
    }

    /// developers.google.com/analytics/devguides/collection/ga4/reference/events#join_group.
    @Test func aGA4GroupIsTheRecommendedJoinGroupEvent() throws {
        var ga4 = try DestinationHarness("{type: ga4}")
        let context = #""context":{"device":{"appInstanceId":"5c7d2e1f9a8b4c3d2e1f0a9b8c7d6e5f"}}"#
        let request = Self.json(try ga4.encode(Self.message("group", #""groupId":"team-42",\#(context)"#)).get())
        let event = (request["events"] as? [[String: Any]])?.first ?? [:]
        #expect(event["name"] as? String == "join_group")
        #expect((event["params"] as? [String: Any])?["group_id"] as? String == "team-42")
        switch try ga4.encode(Self.message("group", context)) {
        case .success(let line): Issue.record("a group without a groupId was sent: \(line)")
        case .failure(let rejection): #expect(rejection.reason == .missingGroupID)
        }
    }

    @Test(arguments: [("mixpanel", "Viewed Home Screen"), ("amplitude", "Viewed Home Screen"), ("ga4", "Home")])
    func aScreenNamedOnlyInEventKeepsThatName(_ provider: String, _ sent: String) throws {
        var destination = try DestinationHarness("{type: \(provider)}")
        let line = try destination.encode(Self.message("screen", #""event":"Home","context":{"device":{"appInstanceId":"5c7d2e1f9a8b4c3d2e1f0a9b8c7d6e5f"}}"#)).get()
        #expect(line.contains(#""\#(sent)""#), "\(line)")
        #expect(destination.change("screen_name_defaulted") == 0)
    }
}
