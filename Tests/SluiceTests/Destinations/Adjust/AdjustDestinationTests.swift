import Testing
@testable import Sluice
@testable import SluiceJSON

@Suite struct AdjustDestinationTests {
    private let adjust = "{type: adjust, app_token: 4w565xzmb54d, tokens: {purchase_completed: f0ob4r}, partner_params: [sku]}"

    private func purchase(_ properties: String, context: String = #"{"os":{"name":"iOS"},"ip":"203.0.113.7"}"#) -> String {
        #"{"type":"track","event":"purchase_completed","messageId":"m-1","timestamp":"2026-11-20T08:00:07.269Z","anonymousId":"dev-000001","context":\#(context),"properties":\#(properties)}"#
    }

    // MARK: Golden: input events → exact lines

    @Test func aMappedEventBecomesS2SParametersWithRevenue() throws {
        var destination = try DestinationHarness(adjust)
        let line = try destination.encode(purchase(#"{"price":4.99,"quantity":2,"currency":"USD","sku":"sku_1","gift":false,"tags":["a"]}"#,
            context: #"{"os":{"name":"iOS"},"device":{"advertisingId":"ea7583cd-a667-48bc-b806-42ecb2b48606","id":"8d3e1f2a-0b4c-4d5e-9f60-718293a4b5c6"},"ip":"203.0.113.7"}"#)).get()
        #expect(line == #"{"s2s":1,"app_token":"4w565xzmb54d","event_token":"f0ob4r","created_at_unix":1795161607,"environment":"production","idfa":"ea7583cd-a667-48bc-b806-42ecb2b48606","idfv":"8D3E1F2A-0B4C-4D5E-9F60-718293A4B5C6","ip_address":"203.0.113.7","callback_params":{"price":"4.99","quantity":"2","currency":"USD","sku":"sku_1","gift":"false","tags":"[\"a\"]"},"partner_params":{"sku":"sku_1"},"revenue":9.98,"currency":"USD"}"#)
        #expect(destination.change("nested_param_stringified") == 1)
    }

    @Test func anAndroidDeviceSendsGpsAdidAndAndroidIDAndAWebDeviceAStableWebUUID() throws {
        var destination = try DestinationHarness(adjust)
        let android = try destination.encode(purchase("{}", context: #"{"os":{"name":"Android"},"device":{"advertisingId":"38400000-8cf0-11bd-b23e-10b96e40000d","id":"9774D56D-682E-549C"}}"#)).get()
        #expect(android.contains(#""gps_adid":"38400000-8cf0-11bd-b23e-10b96e40000d","android_id":"9774d56d682e549c","callback_params":{}}"#))
        let web = try destination.encode(purchase("{}", context: "{}")).get()
        #expect(web == #"{"s2s":1,"app_token":"4w565xzmb54d","event_token":"f0ob4r","created_at_unix":1795161607,"environment":"production","web_uuid":"\#(GoldenIDs.adjustWebUUID)","callback_params":{}}"#)
        #expect(try destination.encode(purchase("{}", context: "{}")).get() == web)
        #expect(destination.change("web_uuid_derived") == 2)
    }

    // MARK: Rules

    @Test func eventsWithoutATokenAreNotRoutedAndOnlyTrackIsTaken() throws {
        let destination = try DestinationHarness(adjust)
        #expect(destination.destination.skipReason(for: try DestinationHarness.event(trackJSON())) == "unsupported_event")
        #expect(destination.destination.skipReason(for: try DestinationHarness.event(trackJSON(event: "purchase_completed"))) == nil)
        let screen = try DestinationHarness.event(#"{"type":"screen","name":"purchase_completed","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z"}"#)
        #expect(destination.destination.skipReason(for: screen) == "unsupported_type")
    }

    @Test func aZeroAdvertisingIDIsLeftOut() throws {
        var destination = try DestinationHarness(adjust)
        let line = try destination.encode(purchase("{}", context: #"{"os":{"name":"iOS"},"device":{"advertisingId":"00000000-0000-0000-0000-000000000000"}}"#)).get()
        #expect(!line.contains("idfa") && line.contains("web_uuid"))
        #expect(destination.change("zero_advertising_id_left_out") == 1)
    }

    @Test(arguments: [
        (#"{"revenue":0.001,"currency":"EUR"}"#, "0.001", nil),
        (#"{"revenue":0.0009,"currency":"EUR"}"#, nil, "revenue_below_minimum"),
        (#"{"revenue":5}"#, nil, "revenue_without_currency"),
        (#"{"revenue":5,"currency":"usd"}"#, "5", nil),
        (#"{"revenue":5,"currency":"US"}"#, nil, "revenue_without_currency"),
        (#"{"price":2.5,"currency":"GBP"}"#, "2.5", nil),
    ] as [(String, String?, String?)])
    func revenueNeedsACurrencyAndAtLeastOneThousandth(_ properties: String, _ revenue: String?, _ change: String?) throws {
        var destination = try DestinationHarness(adjust)
        let document = try JSONDocument.parse(Array(try destination.encode(purchase(properties)).get().utf8))
        #expect(document.member("revenue").map { String(decoding: document.rawBytes($0), as: UTF8.self) } == revenue)
        #expect((document.member("currency") != nil) == (revenue != nil))
        if let change { #expect(destination.change(change) == 1) }
    }

    @Test func nullPropertiesAreLeftOutOfTheParamsAndCounted() throws {
        var destination = try DestinationHarness(adjust)
        let line = try destination.encode(purchase(#"{"a":null,"b":1}"#)).get()
        #expect(line.contains(#""callback_params":{"b":"1"}"#))
        #expect(destination.change("null_param_dropped") == 1)
    }

    /// Token shapes are checked when the pipeline file loads: app token 12, event tokens 6, letters and digits.
    @Test(arguments: [
        ("4w565xzmb54d", "f0ob4r", nil),
        ("4w565xzmb54", "f0ob4r", "app_token must be 12"),
        ("4w565xzmb54dx", "f0ob4r", "app_token must be 12"),
        ("4w565xzmb-4d", "f0ob4r", "app_token must be 12"),
        ("4w565xzmb54d", "f0ob4", "must be 6 letters and digits"),
        ("4w565xzmb54d", "f0ob4rr", "must be 6 letters and digits"),
        ("4w565xzmb54d", "f0ob_r", "must be 6 letters and digits"),
        ("4w565xzmb54d", "f0obé", "must be 6 letters and digits"),
        ("4w565xzmb54d", "123456", nil),
    ] as [(String, String, String?)])
    func tokenShapesArePipelineFileErrors(_ appToken: String, _ token: String, _ message: String?) {
        do {
            _ = try DestinationHarness(#"{type: adjust, app_token: "\#(appToken)", tokens: {a: "\#(token)"}}"#)
            #expect(message == nil, "accepted \(appToken) / \(token)")
        } catch let error as ConfigurationError {
            #expect(message.map { error.description.contains($0) } == true, "\(error)")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func missingTokensAndEveryBadTokenAreReportedAtOnce() {
        #expect(throws: ConfigurationError.self) { try DestinationHarness("{type: adjust, tokens: {a: f0ob4r}}") }
        #expect(throws: ConfigurationError.self) { try DestinationHarness("{type: adjust, app_token: 4w565xzmb54d}") }
        do {
            _ = try DestinationHarness("{type: adjust, app_token: short, tokens: {a: toolong1, b: bad}}")
        } catch let error as ConfigurationError {
            #expect(error.description.contains("app_token must be 12"))
            #expect(error.description.contains("tokens.a must be 6") && error.description.contains("tokens.b must be 6"))
        } catch {
            Issue.record("\(error)")
        }
    }
}
