import Testing
@testable import Sluice
@testable import SluiceJSON

/// Adjust's `revenue` from an order ([s2s] "revenue ... in full currency units", with
/// `currency`): the order's amount (`revenue_from`), and nothing for a refund.
@Suite struct AdjustOrderRevenueTests {
    private let adjust = "type: adjust, app_token: 4w565xzmb54d, tokens: {Order Completed: f0ob4r, Order Refunded: abc123}"

    private func revenue(_ event: String, _ properties: String, settings: String = "") throws -> (String?, DestinationHarness) {
        var destination = try DestinationHarness("{\(adjust)\(settings.isEmpty ? "" : ", " + settings)}")
        let line = try destination.encode(EcommerceExamples.track(event, properties)).get()
        let document = try JSONDocument.parse(Array(line.utf8))
        return (document.member("revenue").map { String(decoding: document.rawBytes($0), as: UTF8.self) }, destination)
    }

    @Test func anOrdersRevenueIsItsRevenueElseValueElseTotal() throws {
        #expect(try revenue("Order Completed", EcommerceExamples.orderCompletedProperties).0 == "25")
        #expect(try revenue("Order Completed", #"{"total":27.5,"currency":"USD"}"#).0 == "27.5")
        #expect(try revenue("Order Completed", EcommerceExamples.orderCompletedProperties, settings: "revenue_from: [total]").0 == "27.5")
    }

    @Test func aRefundSendsNoRevenueAndIsCounted() throws {
        let (sent, adjust) = try revenue("Order Refunded", EcommerceExamples.orderRefundedProperties)
        #expect(sent == nil)
        #expect(adjust.change("refund_revenue_left_out") == 1)
    }
}
