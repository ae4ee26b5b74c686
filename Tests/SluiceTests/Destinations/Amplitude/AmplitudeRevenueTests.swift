import Testing
@testable import Sluice
@testable import SluiceJSON

/// An order's money as Amplitude's revenue fields ([v2] `price`, `quantity`, `revenue`,
/// `productId`, `revenueType`, `currency`), from Segment's spec examples; `revenue:
/// per_product` (the default) and `order_total`, the two ways [segment-amplitude] describes.
@Suite struct AmplitudeRevenueTests {
    /// Each record's fields but `insert_id`, `event_properties` and the ids, as `key=value`.
    private func records(_ lines: String) throws -> [[String]] {
        try lines.split(separator: "\n").map { line in
            let document = try JSONDocument.parse(Array(line.utf8))
            return document.members(of: 0).compactMap { member in
                let key = document.string(member.key)!
                guard !["insert_id", "event_properties", "user_id", "device_id", "time", "session_id"].contains(key) else { return nil }
                return key + "=" + String(decoding: document.rawBytes(member.value), as: UTF8.self)
            }
        }
    }

    private func encode(_ event: String, _ properties: String, settings: String = "") throws -> (String, DestinationHarness) {
        var amplitude = try DestinationHarness("{type: amplitude\(settings.isEmpty ? "" : ", " + settings)}")
        return (try amplitude.encode(EcommerceExamples.track(event, properties)).get(), amplitude)
    }

    @Test func perProductAnOrderIsItsOwnEventThenAProductPurchasedWithRevenueFieldsPerProduct() throws {
        let (lines, _) = try encode("Order Completed", EcommerceExamples.orderCompletedProperties)
        #expect(try records(lines) == [
            [#"event_type="Order Completed""#],
            [#"event_type="Product Purchased""#, "price=19", "quantity=1", "revenue=19", #"productId="507f1f77bcf86cd799439011""#,
             #"currency="USD""#, #"revenueType="Purchase""#],
            [#"event_type="Product Purchased""#, "price=3", "quantity=2", "revenue=6", #"productId="505bd76785ebb509fc183733""#,
             #"currency="USD""#, #"revenueType="Purchase""#],
        ])
        let documents = try lines.split(separator: "\n").map { try JSONDocument.parse(Array($0.utf8)) }
        // The order keeps its properties but its products; each product's are its event's.
        let order = try #require(documents[0].member("event_properties"))
        #expect(documents[0].member("products", of: order) == nil && documents[0].member("order_id", of: order) != nil)
        #expect(documents[2].string(at: JSONPath("event_properties.name")) == "Uno Card Game")
        // Every record its own insert id, the same on every re-send.
        let ids = documents.map { $0.string(at: JSONPath("insert_id"))! }
        #expect(Set(ids).count == 3)
        #expect(try encode("Order Completed", EcommerceExamples.orderCompletedProperties).0 == lines)
    }

    @Test func orderTotalPutsTheOrdersAmountOnItsOwnEvent() throws {
        let (lines, _) = try encode("Order Completed", EcommerceExamples.orderCompletedProperties, settings: "revenue: order_total")
        #expect(try records(lines) == [[#"event_type="Order Completed""#, "revenue=25.00", #"currency="USD""#, #"revenueType="Purchase""#]])
        #expect(lines.contains(#""products":[{"product_id""#))
    }

    /// [v2] "Use negative values for refunds"; its example: `"revenue": -1.99, "revenueType": "Refund"`.
    @Test(arguments: ["per_product", "order_total"])
    func aRefundIsItsOrdersAmountNegativeWithRevenueTypeRefund(_ mode: String) throws {
        let (lines, _) = try encode("Order Refunded", EcommerceExamples.orderRefundedProperties, settings: "revenue: \(mode)")
        #expect(try records(lines) == [[#"event_type="Order Refunded""#, "revenue=-30", #"currency="USD""#, #"revenueType="Refund""#]])
    }

    @Test func theMessagesOwnRevenueTypeWins() throws {
        let (lines, _) = try encode("Order Completed", #"{"revenue":"9.99","currency":"usd","revenueType":"Subscription"}"#,
                                    settings: "revenue: order_total")
        #expect(try records(lines) == [[#"event_type="Order Completed""#, "revenue=9.99", #"currency="USD""#, #"revenueType="Subscription""#]])
    }

    @Test func aProductsPriceAndQuantityMayBeNumericStringsAndSKUIsTheIDWithoutProductID() throws {
        let (lines, _) = try encode("Order Completed", #"{"currency":"EUR","products":[{"sku":"G-32","price":"4.5","quantity":"3"}]}"#)
        #expect(try records(lines)[1] == [#"event_type="Product Purchased""#, "price=4.5", "quantity=3", "revenue=13.5", #"productId="G-32""#,
                                         #"currency="EUR""#, #"revenueType="Purchase""#])
    }

    @Test func aProductWithoutAUsablePriceHasNoRevenueFieldsAndIsCounted() throws {
        let (lines, amplitude) = try encode("Order Completed", #"{"products":[{"product_id":"a"},{"product_id":"b","price":"free"}]}"#)
        #expect(try records(lines).dropFirst() == [[#"event_type="Product Purchased""#], [#"event_type="Product Purchased""#]])
        #expect(amplitude.change("product_price_missing") == 1)
        #expect(amplitude.change("revenue_invalid") == 1)
    }

    @Test func anOrderWithoutAnAmountOrWithAnInvalidOneIsCounted() throws {
        let (_, missing) = try encode("Order Completed", #"{"order_id":"o"}"#, settings: "revenue: order_total")
        #expect(missing.change("revenue_missing") == 1)
        let (line, invalid) = try encode("Order Completed", #"{"revenue":"lots"}"#, settings: "revenue: order_total")
        #expect(try records(line) == [[#"event_type="Order Completed""#]])
        #expect(invalid.change("revenue_invalid") == 1)
    }

    /// A message's records go to one file, one request ([v2] fewer than 2000 events, under 1 MB):
    /// the products of an order past either are left out and counted.
    @Test func anOrdersRecordsFitOneRequestTheProductsPastItAreCounted() throws {
        let many = "[" + (0..<2100).map { #"{"product_id":"p\#($0)","price":1}"# }.joined(separator: ",") + "]"
        let (lines, amplitude) = try encode("Order Completed", #"{"products":\#(many)}"#)
        #expect(lines.split(separator: "\n").count == 2000)
        #expect(amplitude.change("product_event_dropped_over_request") == 101)
        let text = String(repeating: "x", count: 900)
        let large = "[" + (0..<1500).map { #"{"product_id":"p\#($0)","price":1,"note":"\#(text)"}"# }.joined(separator: ",") + "]"
        let (big, second) = try encode("Order Completed", #"{"products":\#(large)}"#)
        #expect(big.utf8.count + 1 <= 1_000_000 - 1024)
        let kept = big.split(separator: "\n").count - 1
        #expect(kept > 500 && kept < 1500)
        #expect(second.change("product_event_dropped_over_request") == 1500 - kept)
    }

    @Test func productEventNamesTheProductsEvents() throws {
        let (lines, _) = try encode("Order Completed", EcommerceExamples.orderCompletedProperties, settings: #"product_event: "Item Bought""#)
        #expect(try records(lines).dropFirst().allSatisfy { $0.first == #"event_type="Item Bought""# })
    }

    /// Only money changes hands in money events: a cart's value is no revenue.
    @Test func anEventThatIsNoOrderHasNoRevenueFields() throws {
        let (lines, _) = try encode("Checkout Started", #"{"value":30,"revenue":25,"currency":"USD","products":[{"product_id":"a","price":1}]}"#)
        #expect(try records(lines) == [[#"event_type="Checkout Started""#]])
    }

    @Test func aRevenueModeOtherThanTheTwoIsAPipelineFileError() throws {
        #expect(throws: (any Error).self) { _ = try DestinationHarness("{type: amplitude, revenue: per_order}") }
    }
}
