import Testing
@testable import Sluice
@testable import SluiceJSON

/// `context` fields Amplitude documents: [v2] `carrier`, `language`; [attribution] the
/// UTM parameters as user properties. Input from Segment's common spec example.
@Suite struct AmplitudeContextTests {
    private let context = #""campaign":{"name":"TPS Innovation Newsletter","source":"Newsletter","medium":"email","term":"tps reports","content":"image link"},"locale":"en-US","network":{"bluetooth":false,"carrier":"T-Mobile US","cellular":true,"wifi":false},"traits":{"plan":"pro"}"#

    @Test func carrierAndLocaleBecomeCarrierAndLanguageAndTheCampaignUTMUserProperties() throws {
        var amplitude = try DestinationHarness("{type: amplitude}")
        let line = try amplitude.encode(EcommerceExamples.track("Video Played", "{}", context: context)).get()
        let document = try JSONDocument.parse(Array(line.utf8))
        #expect(document.string(at: JSONPath("carrier")) == "T-Mobile US")
        #expect(document.string(at: JSONPath("language")) == "en-US")
        let user = try #require(document.member("user_properties"))
        #expect(document.members(of: user).map { document.string($0.key)! } ==
            ["utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "plan"])
        #expect(document.string(at: JSONPath("user_properties.utm_campaign")) == "TPS Innovation Newsletter")
    }

    @Test func aTraitOfAUTMNameWinsAndIsCounted() throws {
        var amplitude = try DestinationHarness("{type: amplitude}")
        let mine = context.replacingAll(#""traits":{"plan":"pro"}"#, with: #""traits":{"utm_source":"mine"}"#)
        let line = try amplitude.encode(EcommerceExamples.track("Video Played", "{}", context: mine)).get()
        let document = try JSONDocument.parse(Array(line.utf8))
        #expect(document.string(at: JSONPath("user_properties.utm_source")) == "mine")
        #expect(document.members(of: document.member("user_properties")!).count == 5)
        #expect(amplitude.change("context_property_overridden") == 1)
    }

    @Test func withoutThemNothingIsAddedAndAWrongKindIsCounted() throws {
        var amplitude = try DestinationHarness("{type: amplitude}")
        let plain = try amplitude.encode(EcommerceExamples.track("Video Played", "{}")).get()
        #expect(!plain.contains("carrier") && !plain.contains("language") && !plain.contains("user_properties"))
        let wrong = try amplitude.encode(EcommerceExamples.track("Video Played", "{}", context: #""locale":5,"network":{"carrier":true}"#)).get()
        #expect(!wrong.contains("carrier") && !wrong.contains("language"))
        #expect(amplitude.change("context_value_invalid") == 1)
    }
}
