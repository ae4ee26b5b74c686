import Testing
@testable import Sluice
@testable import SluiceJSON

/// Screens and pages without a name, for the providers that name them (`UnnamedNames`).
///
/// Inputs follow Segment's spec (segment-docs connections/spec/screen.md and page.md):
/// the typical payloads `{"type":"screen","name":"Home","properties":{"Feed Type":"private"}}`
/// and `{"type":"page","name":"Home","properties":{"title":"Welcome | Initech","url":"http://www.example.com"}}`
/// with the common fields of the spec's complete examples. There `name` is optional ("Each screen
/// can be tagged with a `name`", "You may add an optional `name`") and `properties.name` is
/// reserved: "Name of the screen" / "Name of the page".
@Suite struct UnnamedScreenTests {
    /// A message as in the spec's complete example; `name` is the raw JSON of the `name` field, nil for none.
    static func message(_ type: String, name: String?, properties: String) -> String {
        var fields = [#""anonymousId":"3a12eab0-bca7-11e4-8dfc-aa07a5b093db""#, #""messageId":"022bb90c-bbac-11e4-8dfc-aa07a5b093db""#,
                      #""timestamp":"2015-02-23T22:28:55.111Z""#, #""type":"\#(type)""#]
        if let name { fields.append(#""name":\#(name)"#) }
        fields.append(#""properties":\#(properties)"#)
        return "{" + fields.joined(separator: ",") + "}"
    }

    static let feed = #"{"Feed Type":"private"}"#
    static let welcome = #"{"title":"Welcome | Initech","url":"http://www.example.com"}"#

    /// (type, `name` as JSON or nil, properties, the name the message goes by, whether it is the default).
    static let cases: [(String, String?, String, String, Bool)] = [
        // The spec's own examples: the name as it is.
        ("screen", #""Home""#, feed, "Home", false),
        ("page", #""Home""#, welcome, "Home", false),
        // No name: absent, empty, only white space, or not a string.
        ("screen", nil, feed, "Unknown", true),
        ("screen", #""""#, feed, "Unknown", true),
        ("screen", #""   ""#, feed, "Unknown", true),
        ("screen", #""\t\n""#, feed, "Unknown", true),
        ("screen", "null", feed, "Unknown", true),
        ("screen", "7", feed, "Unknown", true),
        ("page", nil, welcome, "Unknown", true),
        ("page", #""""#, welcome, "Unknown", true),
        // `properties.name`, the reserved "Name of the screen" / "Name of the page", comes before the default.
        ("screen", nil, #"{"name":"Home","Feed Type":"private"}"#, "Home", false),
        ("screen", #"" ""#, #"{"name":"Home"}"#, "Home", false),
        ("page", #""""#, #"{"name":"Home","title":"Welcome | Initech"}"#, "Home", false),
        ("screen", nil, #"{"name":"  "}"#, "Unknown", true),
        ("screen", nil, #"{"name":5}"#, "Unknown", true),
        // White space around a name is not kept: a template is never left double-spaced.
        ("screen", #"" Home ""#, feed, "Home", false),
        ("screen", nil, #"{"name":"\tHome "}"#, "Home", false),
    ]

    /// The provider event name of a Mixpanel or Amplitude record.
    static func eventName(_ line: String, provider: String) throws -> String? {
        let document = try JSONDocument.parse(Array(line.utf8))
        return document.member(provider == "mixpanel" ? "event" : "event_type").flatMap { document.string($0) }
    }

    // MARK: Mixpanel and Amplitude: `screen_event` / `page_event`

    @Test(arguments: ["mixpanel", "amplitude"], UnnamedScreenTests.cases)
    func aScreenOrPageIsNamedByNameThenPropertiesNameThenUnknownAndTheDefaultIsCounted(
        _ provider: String, _ testCase: (String, String?, String, String, Bool)) throws {
        let (type, name, properties, expected, defaulted) = testCase
        var destination = try DestinationHarness("{type: \(provider)}")
        let event = try Self.eventName(destination.encode(Self.message(type, name: name, properties: properties)).get(), provider: provider)
        #expect(event == "Viewed \(expected) \(type == "page" ? "Page" : "Screen")")
        #expect(event?.contains("  ") == false)
        #expect(destination.change("\(type)_name_defaulted") == (defaulted ? 1 : 0))
    }

    @Test(arguments: ["mixpanel", "amplitude"])
    func theDefaultNameIsSetPerDestinationWithUnnamedScreenAndUnnamedPage(_ provider: String) throws {
        var destination = try DestinationHarness(#"{type: \#(provider), unnamed_screen: " (no name) ", unnamed_page: Untitled}"#)
        let screen = try destination.encode(Self.message("screen", name: nil, properties: Self.feed)).get()
        let page = try destination.encode(Self.message("page", name: #""""#, properties: Self.welcome)).get()
        #expect(try Self.eventName(screen, provider: provider) == "Viewed (no name) Screen")
        #expect(try Self.eventName(page, provider: provider) == "Viewed Untitled Page")
        #expect(destination.change("screen_name_defaulted") == 1 && destination.change("page_name_defaulted") == 1)
    }

    @Test(arguments: ["mixpanel", "amplitude"])
    func aTemplateWithoutNameUsesNoNameAndCountsNoDefault(_ provider: String) throws {
        var destination = try DestinationHarness(#"{type: \#(provider), screen_event: "Screen Viewed"}"#)
        let line = try destination.encode(Self.message("screen", name: nil, properties: Self.feed)).get()
        #expect(try Self.eventName(line, provider: provider) == "Screen Viewed")
        #expect(destination.change("screen_name_defaulted") == 0)
    }

    /// A name goes between the template's words: a blank default would bring back `Viewed  Screen`.
    @Test(arguments: ["mixpanel", "amplitude"], [#""""#, #""   ""#])
    func aBlankDefaultIsAPipelineFileErrorForTemplatedNames(_ provider: String, _ value: String) {
        #expect(throws: ConfigurationError.self) { try DestinationHarness("{type: \(provider), unnamed_screen: \(value)}") }
        #expect(throws: ConfigurationError.self) { try DestinationHarness("{type: \(provider), unnamed_page: \(value)}") }
    }

    // MARK: GA4: `screen_view` / `screen_name`, `page_view` / `page_title`

    /// The value of the `screen_name` or `page_title` param, nil when the event has none.
    static func ga4Param(_ line: String, _ key: String) throws -> String? {
        let document = try JSONDocument.parse(Array(line.utf8))
        let events = try #require(document.member("events"))
        let params = try #require(document.member("params", of: document.elements(of: events)[0]))
        return document.member(key, of: params).flatMap { document.string($0) }
    }

    /// [mp-send] / Firebase: a screen is `screen_view` with `screen_name`; gtag.js sends a page as
    /// `page_view` with `page_title`. The same name as Mixpanel and Amplitude get, never an empty param.
    @Test(arguments: UnnamedScreenTests.cases)
    func ga4ScreenNameAndPageTitleAreTheNameThenPropertiesNameThenUnknown(_ testCase: (String, String?, String, String, Bool)) throws {
        let (type, name, properties, expected, defaulted) = testCase
        var ga4 = try DestinationHarness("{type: ga4, stream: web}")
        let line = try ga4.encode(Self.message(type, name: name, properties: properties)).get()
        #expect(try Self.ga4Param(line, type == "page" ? "page_title" : "screen_name") == expected)
        #expect(ga4.change("\(type)_name_defaulted") == (defaulted ? 1 : 0))
    }

    @Test func ga4LeavesTheParamOutWhenTheDefaultIsEmptyNeverSendingItEmpty() throws {
        var ga4 = try DestinationHarness(#"{type: ga4, stream: web, unnamed_screen: "", unnamed_page: ""}"#)
        let screen = try ga4.encode(Self.message("screen", name: #""  ""#, properties: Self.feed)).get()
        let page = try ga4.encode(Self.message("page", name: nil, properties: Self.welcome)).get()
        #expect(try Self.ga4Param(screen, "screen_name") == nil && !screen.contains(#""screen_name""#))
        #expect(try Self.ga4Param(page, "page_title") == nil && !page.contains(#""page_title""#))
        #expect(ga4.change("screen_name_defaulted") == 1 && ga4.change("page_name_defaulted") == 1)
        // A name the message has is still sent.
        let named = try ga4.encode(Self.message("screen", name: #""Home""#, properties: Self.feed)).get()
        #expect(try Self.ga4Param(named, "screen_name") == "Home")
    }

    @Test func ga4TakesAConfiguredDefaultButNotOneOfOnlySpaces() throws {
        var ga4 = try DestinationHarness(#"{type: ga4, stream: web, unnamed_screen: "(unnamed)"}"#)
        let line = try ga4.encode(Self.message("screen", name: nil, properties: Self.feed)).get()
        #expect(try Self.ga4Param(line, "screen_name") == "(unnamed)")
        #expect(throws: ConfigurationError.self) { try DestinationHarness(#"{type: ga4, unnamed_screen: "  "}"#) }
    }
}
