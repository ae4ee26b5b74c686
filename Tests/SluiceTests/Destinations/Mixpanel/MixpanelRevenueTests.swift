import Testing
@testable import Sluice
@testable import SluiceJSON

/// An order's amount as the event property Mixpanel's revenue reports sum, [revenue]
/// ("Each event should include: `amount` (numeric), `currency` (ISO code)").
@Suite struct MixpanelRevenueTests {
    private func properties(_ event: String, _ properties: String, settings: String = "") throws -> ([(String, String)], DestinationHarness) {
        var mixpanel = try DestinationHarness("{type: mixpanel\(settings.isEmpty ? "" : ", " + settings)}")
        let line = try mixpanel.encode(EcommerceExamples.track(event, properties)).get()
        let document = try JSONDocument.parse(Array(line.utf8))
        let object = try #require(document.member("properties"))
        return (document.members(of: object).map { (document.string($0.key)!, String(decoding: document.rawBytes($0.value), as: UTF8.self)) },
                mixpanel)
    }

    @Test func anOrdersAmountIsTheAmountPropertyBesideItsOwnProperties() throws {
        let (sent, _) = try properties("Order Completed", EcommerceExamples.orderCompletedProperties)
        #expect(sent.first { $0.0 == "amount" }?.1 == "25.00")
        #expect(sent.first { $0.0 == "currency" }?.1 == #""USD""#)
        #expect(sent.first { $0.0 == "revenue" }?.1 == "25.00")
        #expect(sent.contains { $0.0 == "products" })
        // Nothing deprecated: no People Analytics charge.
        #expect(!sent.contains { $0.0.hasPrefix("$transactions") || $0.0 == "$amount" })
    }

    @Test func aRefundsAmountIsSentAsWrittenAndOtherEventsGetNone() throws {
        #expect(try properties("Order Refunded", EcommerceExamples.orderRefundedProperties).0.first { $0.0 == "amount" }?.1 == "30")
        #expect(try !properties("Checkout Started", #"{"revenue":25,"currency":"USD"}"#).0.contains { $0.0 == "amount" })
    }

    @Test func aNumericStringAmountIsSentAsTheNumberItSpells() throws {
        #expect(try properties("Order Completed", #"{"revenue":"19.90","currency":"EUR"}"#).0.first { $0.0 == "amount" }?.1 == "19.90")
    }

    @Test func revenuePropertyAndRevenueFromAreOptions() throws {
        let (renamed, _) = try properties("Order Completed", EcommerceExamples.orderCompletedProperties,
                                          settings: #"revenue_property: order_amount, revenue_from: [total]"#)
        #expect(renamed.first { $0.0 == "order_amount" }?.1 == "27.50")
        #expect(!renamed.contains { $0.0 == "amount" })
        let (off, _) = try properties("Order Completed", EcommerceExamples.orderCompletedProperties, settings: #"revenue_property: """#)
        #expect(!off.contains { $0.0 == "amount" })
    }

    @Test func theEventsOwnAmountWinsAndIsCounted() throws {
        let (sent, mixpanel) = try properties("Order Completed", #"{"revenue":25,"amount":"mine"}"#)
        #expect(sent.filter { $0.0 == "amount" }.map(\.1) == [#""mine""#])
        #expect(mixpanel.change("revenue_property_present") == 1)
    }

    @Test func anOrderWithoutAnAmountOrWithAnInvalidOneIsCounted() throws {
        #expect(try properties("Order Completed", #"{"order_id":"o"}"#).1.change("revenue_missing") == 1)
        #expect(try properties("Order Completed", #"{"revenue":-5}"#).1.change("revenue_invalid") == 1)
    }

    @Test func aReservedRevenuePropertyIsAPipelineFileError() throws {
        #expect(throws: (any Error).self) { _ = try DestinationHarness("{type: mixpanel, revenue_property: time}") }
    }
}
