import Testing
@testable import Sluice
@testable import SluiceJSON

/// `context` fields as Mixpanel's default properties ([default]: UTM parameters,
/// `$current_url`, `$referrer`, `$screen_width`, `$screen_height`, `$carrier`, `$wifi`,
/// `$bluetooth_enabled`), from Segment's common spec example.
@Suite struct MixpanelContextTests {
    private let context = #""campaign":{"name":"TPS Innovation Newsletter","source":"Newsletter","medium":"email","term":"tps reports","content":"image link"},"locale":"en-US","network":{"bluetooth":false,"carrier":"T-Mobile US","cellular":true,"wifi":false},"page":{"path":"/academy/","referrer":"","search":"","title":"Analytics Academy","url":"https://segment.com/academy/"},"screen":{"width":320,"height":568,"density":2},"library":{"name":"analytics.js","version":"2.11.1"},"app":{"name":"InitechGlobal","version":"545","build":"3.0.1.545","namespace":"com.production.segment"}"#

    private func properties(_ properties: String = "{}", context: String) throws -> ([String], DestinationHarness) {
        var mixpanel = try DestinationHarness("{type: mixpanel}")
        let line = try mixpanel.encode(EcommerceExamples.track("Video Played", properties, context: context)).get()
        let document = try JSONDocument.parse(Array(line.utf8))
        return (document.members(of: try #require(document.member("properties"))).map {
            document.string($0.key)! + "=" + String(decoding: document.rawBytes($0.value), as: UTF8.self)
        }, mixpanel)
    }

    @Test func theDocumentedContextFieldsBecomeDefaultProperties() throws {
        let (sent, _) = try properties(context: context)
        #expect(Array(sent.drop { !$0.hasPrefix("$app_version_string") }) == [
            #"$app_version_string="545""#, #"$app_build_number="3.0.1.545""#,
            #"utm_source="Newsletter""#, #"utm_medium="email""#, #"utm_campaign="TPS Innovation Newsletter""#, #"utm_term="tps reports""#,
            #"utm_content="image link""#, #"$current_url="https://segment.com/academy/""#, "$screen_width=320", "$screen_height=568",
            #"$carrier="T-Mobile US""#, "$wifi=false", "$bluetooth_enabled=false",
        ])
        // Nothing invented: an empty referrer is no referrer; no property for the locale, the
        // app's name, the library, or the screen's density (a scale factor, not `$screen_dpi`).
        #expect(!sent.contains { $0.hasPrefix("$referrer") || $0.hasPrefix("$screen_dpi") || $0.hasPrefix("$lib") || $0.hasPrefix("mp_lib") })
    }

    @Test func anEventPropertyOfTheSameNameWinsAndIsCounted() throws {
        let (sent, mixpanel) = try properties(#"{"utm_source":"mine","$current_url":"https://mine/"}"#, context: context)
        #expect(sent.filter { $0.hasPrefix("utm_source=") } == [#"utm_source="mine""#])
        #expect(sent.filter { $0.hasPrefix("$current_url=") } == [#"$current_url="https://mine/""#])
        #expect(mixpanel.change("context_property_overridden") == 2)
    }

    @Test func aValueOfTheWrongKindIsLeftOutAndCounted() throws {
        let (sent, mixpanel) = try properties(context: #""screen":{"width":"wide"},"network":{"wifi":"yes","carrier":"T-Mobile US"}"#)
        #expect(sent.contains(#"$carrier="T-Mobile US""#))
        #expect(!sent.contains { $0.hasPrefix("$screen_width") || $0.hasPrefix("$wifi") })
        #expect(mixpanel.change("context_value_invalid") == 1)
    }
}
