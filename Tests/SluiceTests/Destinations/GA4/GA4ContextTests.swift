import Testing
@testable import Sluice
@testable import SluiceJSON

/// `context.page` as GA4's page params ([mp-send], [limits]: `page_location` 1000
/// characters, `page_referrer` 420, `page_title` 300), from Segment's common spec
/// example (`context.page`: path, referrer, search, title, url).
@Suite struct GA4ContextTests {
    private let page = #""page":{"path":"/academy/","referrer":"https://www.google.com/","search":"","title":"Analytics Academy","url":"https://segment.com/academy/"}"#

    private func params(_ line: String) throws -> [String] {
        let document = try JSONDocument.parse(Array(line.utf8))
        let event = document.elements(of: try #require(document.member("events")))[0]
        return document.members(of: try #require(document.member("params", of: event))).map {
            document.string($0.key)! + "=" + String(decoding: document.rawBytes($0.value), as: UTF8.self)
        }
    }

    @Test func contextPageBecomesPageLocationReferrerAndTitle() throws {
        var ga4 = try DestinationHarness("{type: ga4, stream: web}")
        let line = try ga4.encode(EcommerceExamples.track("Video Played", #"{"position":3}"#, context: page)).get()
        #expect(try params(line) == ["engagement_time_msec=1", #"page_location="https://segment.com/academy/""#,
                                     #"page_referrer="https://www.google.com/""#, #"page_title="Analytics Academy""#, "position=3"])
    }

    /// A page's `page_title` is its document's title when `context.page` has one, else its name, as before.
    @Test func aPagesTitleIsContextPageTitleElseItsName() throws {
        var ga4 = try DestinationHarness("{type: ga4, stream: web}")
        let withTitle = #"{"type":"page","name":"Academy","anonymousId":"1234.5678","timestamp":"2026-11-20T08:00:00Z","context":{\#(page)}}"#
        #expect(try params(ga4.encode(withTitle).get()).filter { $0.hasPrefix("page_title") } == [#"page_title="Analytics Academy""#])
        let withoutTitle = withTitle.replacingAll(#""title":"Analytics Academy","#, with: "")
        #expect(try params(ga4.encode(withoutTitle).get()).filter { $0.hasPrefix("page_title") } == [#"page_title="Academy""#])
    }

    @Test(arguments: [("url", "page_location", 1000), ("referrer", "page_referrer", 420), ("title", "page_title", 300)])
    func pageParamsAreCutAtTheirOwnLimits(_ field: String, _ param: String, _ limit: Int) throws {
        var ga4 = try DestinationHarness("{type: ga4, stream: web}")
        let long = String(repeating: "é", count: limit + 5)
        let line = try ga4.encode(EcommerceExamples.track("Tapped", "{}", context: #""page":{"\#(field)":"\#(long)"}"#)).get()
        #expect(try params(line).contains("\(param)=\"" + String(repeating: "é", count: limit) + "\""))
        #expect(ga4.change("param_value_cut") == 1)
    }

    /// Nothing invented: no `context.page`, no page params; one of the wrong kind is left out and counted.
    @Test func aMissingPageSendsNoPageParamsAndAWrongKindIsCounted() throws {
        var ga4 = try DestinationHarness("{type: ga4, stream: web}")
        #expect(try params(ga4.encode(EcommerceExamples.track("Tapped", "{}")).get()) == ["engagement_time_msec=1"])
        let line = try ga4.encode(EcommerceExamples.track("Tapped", "{}", context: #""page":{"url":42,"referrer":""}"#)).get()
        #expect(try params(line) == ["engagement_time_msec=1"])
        #expect(ga4.change("context_value_invalid") == 1)
    }

    /// The page params count toward GA4's 25, ahead of the event's own properties.
    @Test func pageParamsCountTowardTheLimitOf25() throws {
        var ga4 = try DestinationHarness("{type: ga4, stream: web}")
        let properties = "{" + (0..<30).map { #""p\#($0)":\#($0)"# }.joined(separator: ",") + "}"
        let line = try ga4.encode(EcommerceExamples.track("Tapped", properties, context: page)).get()
        let sent = try params(line)
        #expect(sent.count == 25)
        #expect(sent.contains { $0.hasPrefix("page_location=") })
        #expect(ga4.change("param_dropped_over_limit") == 9)
    }
}
