import Testing
@testable import Sluice

@Suite struct AdjustAndSegmentDestinationTests {
    private let adjust = "{type: adjust, app_token: 4w565xzmb54d, tokens: {purchase_completed: f0ob4r}}"

    @Test func aMappedEventBecomesS2SParametersWithRevenue() throws {
        var destination = try DestinationHarness(adjust)
        let line = try destination.encode(trackJSON(event: "purchase_completed", properties: #"{"price":4.99,"quantity":2,"currency":"USD","sku":"sku_1","gift":false}"#)).get()
        #expect(line.hasPrefix(#"{"s2s":1,"app_token":"4w565xzmb54d","event_token":"f0ob4r","created_at_unix":1795161607,"environment":"production","web_uuid":""#))
        #expect(line.contains(#""ip_address":"203.0.113.7""#))
        #expect(line.contains(#""callback_params":{"price":"4.99","quantity":"2","currency":"USD","sku":"sku_1","gift":"false"}"#))
        #expect(line.hasSuffix(#""revenue":9.98,"currency":"USD"}"#))
    }

    @Test func eventsWithoutATokenAreNotRoutedAndAdvertisingIDsAreUsed() throws {
        var destination = try DestinationHarness(adjust)
        #expect(destination.destination.skipReason(for: try DestinationHarness.event(trackJSON())) == "unsupported_event")
        let withIDFA = trackJSON(event: "purchase_completed", properties: "{}")
            .replacingAll(#""device":{"#, with: #""device":{"advertisingId":"EA7583CD-A667-48BC-B806-42ECB2B48606","#)
        #expect(try destination.encode(withIDFA).get().contains(#""idfa":"EA7583CD-A667-48BC-B806-42ECB2B48606""#))
    }

    @Test(arguments: [
        ("{type: adjust, app_token: short, tokens: {a: f0ob4r}}", "app_token must be 12"),
        ("{type: adjust, app_token: 4w565xzmb54d, tokens: {a: toolong1}}", "must be 6 letters and digits"),
        ("{type: adjust, tokens: {a: f0ob4r}}", "needs `app_token:`"),
        ("{type: adjust, app_token: 4w565xzmb54d}", "needs `tokens:`"),
    ])
    func badTokensArePipelineFileErrors(_ yaml: String, _ message: String) {
        do {
            _ = try DestinationHarness(yaml)
            Issue.record("accepted \(yaml)")
        } catch let error as ConfigurationError {
            #expect(error.description.contains(message), "\(error)")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func segmentGetsTheCanonicalMessageAndRefusesLongMessageIDs() throws {
        var segment = try DestinationHarness("{type: segment}")
        #expect(try segment.encode(trackJSON()).get() == trackJSON())
        let id100 = String(repeating: "m", count: 100)
        #expect(throws: Never.self) { try segment.encode(trackJSON().replacingAll(#""m-1""#, with: quoted(id100))).get() }
        guard case let .failure(rejection) = try segment.encode(trackJSON().replacingAll(#""m-1""#, with: quoted(id100 + "m"))) else {
            Issue.record("accepted a 101-character messageId")
            return
        }
        #expect(rejection.reason == .messageIDTooLong)
        let session = try DestinationHarness.event(#"{"type":"session","action":"start","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z"}"#)
        #expect(segment.destination.skipReason(for: session) == "unsupported_type")
    }
}
