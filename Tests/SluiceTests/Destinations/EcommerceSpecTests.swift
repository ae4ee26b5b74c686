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

    /// Near misses are no spec event: names are matched exactly, case and all.
    @Test(arguments: ["order completed", "Order Completed ", "Order Complete", "OrderCompleted", "Profile Fields", "Product Viewe",
                      "", "P", "Order Completedd"])
    func aNameThatIsNotExactlyASpecNameIsNone(_ name: String) {
        #expect(EcommerceNames().event(named: Array(name.utf8)) == nil)
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
