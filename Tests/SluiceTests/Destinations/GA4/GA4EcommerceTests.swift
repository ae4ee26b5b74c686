import Testing
@testable import Sluice
@testable import SluiceJSON

/// Segment's Ecommerce spec events as GA4's recommended events, written from the
/// two providers' own examples: Segment's (`EcommerceExamples`) in, the shape of
/// GA4's (developers.google.com/analytics/devguides/collection/ga4/reference/events,
/// `purchase`: currency, value, transaction_id, coupon, shipping, tax, items) out.
@Suite struct GA4EcommerceTests {
    /// The first event of a GA4 line: its name, its params in order, and its items' params.
    private struct Sent {
        var name: String
        var params: [(String, String)]
        var items: [[(String, String)]]

        func param(_ key: String) -> String? { params.first { $0.0 == key }?.1 }
    }

    private func sent(_ line: String) throws -> Sent {
        let document = try JSONDocument.parse(Array(line.utf8))
        let event = document.elements(of: try #require(document.member("events")))[0]
        let params = try #require(document.member("params", of: event))
        func pairs(_ object: Int) -> [(String, String)] {
            document.members(of: object).map { (document.string($0.key)!, String(decoding: document.rawBytes($0.value), as: UTF8.self)) }
        }
        let items = document.member("items", of: params).map { document.elements(of: $0).map(pairs) } ?? []
        return Sent(name: document.string(document.member("name", of: event)!)!, params: pairs(params).filter { $0.0 != "items" },
                    items: items)
    }

    private func encode(_ event: String, _ properties: String, settings: String = "", context: String = "") throws -> (Sent, DestinationHarness) {
        var ga4 = try DestinationHarness("{type: ga4\(settings.isEmpty ? "" : ", " + settings)}")
        let line = try ga4.encode(EcommerceExamples.track(event, properties, context: context)).get()
        return (try sent(line), ga4)
    }

    // MARK: Golden: the spec's examples → GA4's recommended events

    @Test func orderCompletedBecomesAPurchaseWithTransactionValueCurrencyTaxShippingAndItems() throws {
        var ga4 = try DestinationHarness("{type: ga4}")
        #expect(try ga4.encode(EcommerceExamples.track("Order Completed", EcommerceExamples.orderCompletedProperties)).get() ==
            #"{"app_instance_id":"0123456789abcdef0123456789abcdef","user_id":"user-0001","timestamp_micros":1795161600000000,"events":[{"name":"purchase","params":{"engagement_time_msec":1,"transaction_id":"50314b8e9bcf000000000000","currency":"USD","value":25.00,"coupon":"hasbros","shipping":3,"tax":2,"checkout_id":"fksdjfsdjfisjf9sdfjsd9f","affiliation":"Google Store","subtotal":22.50,"discount":2.5,"items":[{"item_id":"507f1f77bcf86cd799439011","sku":"45790-32","item_name":"Monopoly: 3rd Edition","price":19,"quantity":1,"item_category":"Games","url":"https://www.example.com/product/path","image_url":"https:///www.example.com/product/path.jpg"},{"item_id":"505bd76785ebb509fc183733","sku":"46493-32","item_name":"Uno Card Game","price":3,"quantity":2,"item_category":"Games"}]}}]}"#)
        #expect(ga4.change("ecommerce_name_mapped") == 1)
    }

    /// [ga4-events] each spec event that has a recommended event is sent under its name.
    @Test(arguments: [
        ("Products Searched", "search"), ("Product List Viewed", "view_item_list"), ("Product Clicked", "select_item"),
        ("Product Viewed", "view_item"), ("Product Added", "add_to_cart"), ("Product Removed", "remove_from_cart"),
        ("Cart Viewed", "view_cart"), ("Checkout Started", "begin_checkout"), ("Payment Info Entered", "add_payment_info"),
        ("Order Completed", "purchase"), ("Order Refunded", "refund"), ("Product Added to Wishlist", "add_to_wishlist"),
        ("Wishlist Product Added to Cart", "add_to_cart"), ("Promotion Viewed", "view_promotion"),
        ("Promotion Clicked", "select_promotion"), ("Product Shared", "share"), ("Cart Shared", "share"),
    ])
    func eachSpecEventWithARecommendedEventIsSentUnderItsName(_ spec: String, _ ga4: String) throws {
        #expect(try encode(spec, "{}").0.name == ga4)
    }

    /// Spec events GA4 has no recommended event for keep today's name normalization.
    @Test(arguments: [("Order Cancelled", "Order_Cancelled"), ("Coupon Applied", "Coupon_Applied"), ("Product Reviewed", "Product_Reviewed")])
    func aSpecEventWithoutARecommendedEventKeepsItsNormalizedName(_ spec: String, _ sentName: String) throws {
        let (event, ga4) = try encode(spec, #"{"order_id":"o-1"}"#)
        #expect(event.name == sentName)
        #expect(event.param("order_id") == #""o-1""#)
        #expect(ga4.change("ecommerce_name_mapped") == 0)
    }

    @Test func productsSearchedSendsTheQueryAsSearchTerm() throws {
        let (event, _) = try encode("Products Searched", EcommerceExamples.productsSearchedProperties)
        #expect(event.params.map(\.0) == ["engagement_time_msec", "search_term"])
        #expect(event.param("search_term") == #""blue roses""#)
    }

    @Test func aPromotionsNameCreativeAndPositionArePromotionNameCreativeNameAndSlot() throws {
        let (event, _) = try encode("Promotion Clicked", EcommerceExamples.promotionClickedProperties)
        #expect(event.params.filter { $0.0 != "engagement_time_msec" }.map { "\($0.0)=\($0.1)" } ==
            [#"promotion_id="promo_1""#, #"promotion_name="75% store-wide shoe sale""#, #"creative_name="top_banner_2""#,
             #"creative_slot="home_banner_top""#])
        #expect(event.items.isEmpty)
    }

    @Test func aListsIDAndCategoryAreItemListIDAndNameAndItsProductsItsItems() throws {
        let (event, _) = try encode("Product List Viewed", EcommerceExamples.productListViewedProperties)
        #expect(event.param("item_list_id") == #""hot_deals_1""#)
        #expect(event.param("item_list_name") == #""Deals""#)
        #expect(event.items.count == 2)
        #expect(event.items[0].map(\.0) == ["item_id", "sku", "item_name", "price", "index", "item_category", "url", "image_url"])
    }

    /// [segment-ga4] a single-product event's own product properties are its one item,
    /// and are not sent again as the event's params.
    @Test func aSingleProductEventsProductPropertiesAreItsOneItem() throws {
        let (event, _) = try encode("Product Viewed", EcommerceExamples.productViewedProperties)
        #expect(event.params.map { "\($0.0)=\($0.1)" } == ["engagement_time_msec=1", #"currency="USD""#, "value=18.99"])
        #expect(event.items.count == 1)
        #expect(event.items[0].map { "\($0.0)=\($0.1)" } == [
            #"item_id="507f1f77bcf86cd799439011""#, #"sku="G-32""#, #"item_category="Games""#, #"item_name="Monopoly: 3rd Edition""#,
            #"item_brand="Hasbro""#, #"item_variant="200 pieces""#, "price=18.99", "quantity=1", #"coupon="MAYDEALS""#, "index=3",
            #"url="https://www.example.com/product/path""#, #"image_url="https://www.example.com/product/path.jpg""#,
        ])
    }

    @Test func theSKUIsTheItemIDOnlyWithoutAProductID() throws {
        let (event, _) = try encode("Product Added", #"{"sku":"G-32","name":"Monopoly","price":18.99}"#)
        #expect(event.items[0].map(\.0) == ["item_id", "item_name", "price"])
        #expect(event.items[0][0].1 == #""G-32""#)
    }

    @Test func gaFoursOwnItemParamNamesInAProductAreKept() throws {
        let (event, _) = try encode("Cart Viewed", #"{"products":[{"item_id":"a","item_category2":"Board","discount":1.5,"item_list_name":"Cart"}]}"#)
        #expect(event.items[0].map { "\($0.0)=\($0.1)" } == [#"item_id="a""#, #"item_category2="Board""#, "discount=1.5", #"item_list_name="Cart""#])
    }

    /// [ga4-items] "One of item_id or item_name is required".
    @Test func anItemWithNeitherAnIDNorANameIsDroppedAndCounted() throws {
        let (event, ga4) = try encode("Cart Viewed", #"{"products":[{"price":3},{"name":"Uno"}]}"#)
        #expect(event.items.map { $0.map(\.0) } == [["item_name"]])
        #expect(ga4.change("item_without_id_dropped") == 1)
    }

    /// [ga4-items] "The items array can include up to 200 elements".
    @Test func itemsPast200AreDroppedAndCounted() throws {
        let products = "[" + (0..<203).map { #"{"product_id":"p\#($0)"}"# }.joined(separator: ",") + "]"
        let (event, ga4) = try encode("Order Completed", #"{"order_id":"o","products":\#(products)}"#)
        #expect(event.items.count == 200)
        #expect(event.items.last?.first?.1 == #""p199""#)
        #expect(ga4.change("item_dropped_over_limit") == 3)
    }

    /// [mp-send] "Items can have a maximum of 10 custom parameters".
    @Test func customItemParamsPast10AreDroppedAndCounted() throws {
        let custom = (0..<12).map { #""c\#($0)":\#($0)"# }.joined(separator: ",")
        let (event, ga4) = try encode("Product Viewed", #"{"products":[{"product_id":"p",\#(custom)}]}"#)
        #expect(event.items[0].count == 11)
        #expect(ga4.change("item_param_dropped_over_limit") == 2)
    }

    /// [mp-send] "The post body must be smaller than 130kB": items that would pass it are left out.
    @Test func aRequestStaysUnder130kBTheItemsPastItAreDroppedAndCounted() throws {
        let long = String(repeating: "x", count: 99)
        let product = #"{"product_id":"p","name":"\#(long)","brand":"\#(long)","category":"\#(long)","variant":"\#(long)","coupon":"\#(long)","c1":"\#(long)","c2":"\#(long)"}"#
        let products = "[" + Array(repeating: product, count: 199).joined(separator: ",") + "]"
        var ga4 = try DestinationHarness("{type: ga4}")
        let line = try ga4.encode(EcommerceExamples.track("Order Completed", #"{"order_id":"o","products":\#(products)}"#)).get()
        #expect(line.utf8.count < 130_000)
        let kept = try sent(line).items.count
        #expect(kept > 100 && kept < 199)
        #expect(ga4.change("item_dropped_over_size") == 199 - kept)
        #expect(try JSONDocument.parse(Array(line.utf8)).member("events") != nil)
    }

    @Test func productsThatAreNotAListOfObjectsAreCounted() throws {
        let (event, ga4) = try encode("Cart Viewed", #"{"products":[{"product_id":"a"},"b",7]}"#)
        #expect(event.items.count == 1)
        #expect(ga4.change("products_invalid") == 2)
        let (notAList, second) = try encode("Cart Viewed", #"{"products":{"product_id":"a"}}"#)
        #expect(notAList.items.isEmpty && notAList.param("products") == nil)
        #expect(second.change("products_invalid") == 1)
    }

    /// [ga4-events] "Currency ... in 3-letter ISO 4217 format", and "If you set value then
    /// currency is required for revenue metrics to be computed accurately".
    @Test func theCurrencyIsSentUppercaseAndOneThatIsNotThreeLettersIsCounted() throws {
        #expect(try encode("Checkout Started", #"{"value":30,"currency":"eur"}"#).0.param("currency") == #""EUR""#)
        let (invalid, ga4) = try encode("Checkout Started", #"{"value":30,"currency":"euro"}"#)
        #expect(invalid.param("currency") == nil && invalid.param("value") == "30")
        #expect(ga4.change("currency_invalid") == 1)
        #expect(ga4.change("value_without_currency") == 1)
    }

    /// Amounts are numbers: a string that spells one is sent as that number, anything else counted.
    @Test func aNumericStringAmountIsSentAsANumberAndANonNumberIsCounted() throws {
        let (event, ga4) = try encode("Order Completed", #"{"order_id":"o","revenue":"25.50","tax":"two","currency":"USD","products":[{"product_id":"p","price":"19.99","quantity":"x"}]}"#)
        #expect(event.param("value") == "25.50")
        #expect(event.param("tax") == nil)
        #expect(event.items[0].map { "\($0.0)=\($0.1)" } == [#"item_id="p""#, "price=19.99"])
        #expect(ga4.change("ecommerce_value_invalid") == 2)
    }

    /// `revenue_from`: which property is the order's amount, the first one present deciding.
    @Test func revenueFromChoosesWhichPropertyIsTheValue() throws {
        #expect(try encode("Order Completed", EcommerceExamples.orderCompletedProperties).0.param("value") == "25.00")
        let (total, _) = try encode("Order Completed", EcommerceExamples.orderCompletedProperties, settings: "revenue_from: [total, revenue]")
        #expect(total.param("value") == "27.50")
        // The properties read for the value are not sent again as params.
        #expect(total.param("total") == nil && total.param("revenue") == nil && total.param("subtotal") == "22.50")
    }

    @Test func aPurchaseWithoutAnOrderIDIsCountedTransactionIDMissing() throws {
        let (event, ga4) = try encode("Order Completed", #"{"revenue":5,"currency":"USD"}"#)
        #expect(event.name == "purchase" && event.param("transaction_id") == nil)
        #expect(ga4.change("transaction_id_missing") == 1)
    }

    /// `ecommerce_events`: the pipeline's own event names for spec events.
    @Test func ecommerceEventsMapsThePipelinesOwnNames() throws {
        let (event, _) = try encode("purchase_completed", #"{"order_id":"o-7","revenue":9,"currency":"EUR"}"#,
                                    settings: #"ecommerce_events: {purchase_completed: Order Completed}"#)
        #expect(event.name == "purchase")
        #expect(event.param("transaction_id") == #""o-7""#)
    }

    @Test func ecommerceFalseSendsSpecEventsAsAnyOther() throws {
        let (event, ga4) = try encode("Order Completed", EcommerceExamples.orderCompletedProperties, settings: "ecommerce: false")
        #expect(event.name == "Order_Completed")
        #expect(event.items.isEmpty && event.param("order_id") != nil)
        #expect(ga4.change("array_param_dropped") == 1)
    }

    /// A split timed event keeps its `_start`/`_stop` names (GA4 has no timed purchase): counted.
    @Test func aSplitTimedEcommerceEventKeepsItsSuffixedNamesAndIsCounted() throws {
        var ga4 = try DestinationHarness("{type: ga4, timed: split}")
        let timed = EcommerceExamples.track("Checkout Started", #"{"duration_ms":5000}"#)
            .replacingAll(#""type":"track","#, with: #""type":"track","timed":"completed","started_at":"2026-11-20T07:59:55Z","#)
        let line = try ga4.encode(timed).get()
        #expect(line.contains(#""name":"Checkout_Started_start""#) && line.contains(#""name":"Checkout_Started_stop""#))
        #expect(ga4.change("ecommerce_timed_not_mapped") == 1)
    }

    /// `sluice validate`: a planned spec event is sent under GA4's name, its `products` as items.
    @Test func aPlannedSpecEventIsNeitherRenamedNorLosesItsProductsInTheLint() throws {
        let yaml = """
        version: 1
        stages:
          - plan: {events: {Order Completed: {properties: {order_id: string, products: array, tags: array}}}}
        destinations:
          ga4: {type: ga4}
          kept: {type: ga4, ecommerce: false}
        """
        let found = try PipelineConfiguration.load(yaml: yaml, file: "p.yaml").lint().map(\.description)
        #expect(found.filter { $0.contains("'ga4'") }.count == 1)
        #expect(found.contains { $0.contains("'ga4'") && $0.contains("property 'tags' is an array") })
        #expect(found.contains { $0.contains("'kept'") && $0.contains("would be sent as 'Order_Completed'") })
        #expect(found.contains { $0.contains("'kept'") && $0.contains("property 'products' is an array") })
    }

    @Test func anEcommerceEventsNameThatIsNotASpecEventIsAPipelineFileError() throws {
        #expect(throws: (any Error).self) {
            _ = try DestinationHarness(#"{type: ga4, ecommerce_events: {purchase_completed: Order Complete}}"#)
        }
        do {
            _ = try DestinationHarness(#"{type: ga4, ecommerce_events: {purchase_completed: Order Complete}}"#)
        } catch {
            #expect("\(error)".contains("did you mean 'Order Completed'"))
        }
    }
}
