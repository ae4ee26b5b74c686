import Testing
@testable import Sluice
@testable import SluiceJSON

/// The spec's event names, found by their bytes, and the pipeline's own added to them.
@Suite struct EcommerceSpecTests {
    @Test func everySpecEventIsFoundByItsOwnName() {
        let names = EcommerceNames()
        for event in EcommerceEvent.allCases {
            #expect(names.event(named: Array(event.specName.utf8)) == event)
        }
    }

    /// Near misses are no spec event: other words, letters, or space around the name.
    @Test(arguments: ["Order Completed ", " order completed", "Order Complete", "Profile Fields", "Product Viewe",
                      "", "P", "Order Completedd", "Order-Completed", "Order.Completed"])
    func aNameThatIsNotASpecNameWrittenAnotherWayIsNone(_ name: String) {
        #expect(EcommerceNames().event(named: Array(name.utf8)) == nil)
    }

    /// The spec's names as apps and routers also write them: any case, `_` or spaces or nothing between the words.
    @Test(arguments: [("order completed", EcommerceEvent.orderCompleted), ("OrderCompleted", .orderCompleted),
                      ("ORDER_COMPLETED", .orderCompleted), ("order_completed", .orderCompleted), ("orderCompleted", .orderCompleted),
                      ("product added to wishlist", .productAddedToWishlist), ("Products_Searched", .productsSearched),
                      ("cart viewed", .cartViewed)])
    func aSpecNameWrittenInAnotherCaseOrWithOtherSeparatorsIsFound(_ name: String, _ event: EcommerceEvent) {
        #expect(EcommerceNames().event(named: Array(name.utf8)) == event)
    }

    @Test func thePipelinesOwnNamesMatchExactly() {
        let names = EcommerceNames(adding: [(Array("purchase_completed".utf8), .orderCompleted)])
        #expect(names.event(named: Array("purchase_completed".utf8)) == .orderCompleted)
        #expect(names.event(named: Array("Purchase Completed".utf8)) == nil)
    }

    @Test func thePipelinesOwnNamesAreAddedToTheSpecsAndTheLastWins() {
        let names = EcommerceNames(adding: [(Array("purchase_completed".utf8), .orderCompleted), (Array("basket".utf8), .cartViewed),
                                            (Array("basket".utf8), .productAdded)])
        #expect(names.event(named: Array("purchase_completed".utf8)) == .orderCompleted)
        #expect(names.event(named: Array("basket".utf8)) == .productAdded)
        #expect(names.event(named: Array("Order Completed".utf8)) == .orderCompleted)
    }

    @Test func onlyOrdersAndRefundsAreMoney() {
        #expect(EcommerceEvent.allCases.filter { $0.money != nil } == [.orderCompleted, .orderRefunded])
        #expect(EcommerceEvent.orderRefunded.money == .refund)
    }
}
