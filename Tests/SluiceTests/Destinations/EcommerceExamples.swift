/// Segment's own examples from its Ecommerce spec v2 (segment-docs
/// src/connections/spec/ecommerce/v2.md), as messages: the input the provider
/// golden tests are written from.
enum EcommerceExamples {
    /// "Order Completed", the spec's example properties.
    static let orderCompletedProperties = #"{"checkout_id":"fksdjfsdjfisjf9sdfjsd9f","order_id":"50314b8e9bcf000000000000","affiliation":"Google Store","total":27.50,"subtotal":22.50,"revenue":25.00,"shipping":3,"tax":2,"discount":2.5,"coupon":"hasbros","currency":"USD","products":[{"product_id":"507f1f77bcf86cd799439011","sku":"45790-32","name":"Monopoly: 3rd Edition","price":19,"quantity":1,"category":"Games","url":"https://www.example.com/product/path","image_url":"https:///www.example.com/product/path.jpg"},{"product_id":"505bd76785ebb509fc183733","sku":"46493-32","name":"Uno Card Game","price":3,"quantity":2,"category":"Games"}]}"#

    /// "Product Viewed", the spec's example properties.
    static let productViewedProperties = #"{"product_id":"507f1f77bcf86cd799439011","sku":"G-32","category":"Games","name":"Monopoly: 3rd Edition","brand":"Hasbro","variant":"200 pieces","price":18.99,"quantity":1,"coupon":"MAYDEALS","currency":"usd","position":3,"value":18.99,"url":"https://www.example.com/product/path","image_url":"https://www.example.com/product/path.jpg"}"#

    /// "Order Refunded", the spec's example properties.
    static let orderRefundedProperties = #"{"order_id":"50314b8e9bcf000000000000","total":30,"currency":"USD","products":[{"product_id":"507f1f77bcf86cd799439011","sku":"45790-32","name":"Monopoly: 3rd Edition","price":19,"quantity":1,"category":"Games"},{"product_id":"505bd76785ebb509fc183733","sku":"46493-32","name":"Uno Card Game","price":3,"quantity":2,"category":"Games"}]}"#

    /// "Products Searched", "Promotion Clicked" and "Product List Viewed", the spec's examples.
    static let productsSearchedProperties = #"{"query":"blue roses"}"#
    static let promotionClickedProperties = #"{"promotion_id":"promo_1","creative":"top_banner_2","name":"75% store-wide shoe sale","position":"home_banner_top"}"#
    static let productListViewedProperties = #"{"list_id":"hot_deals_1","category":"Deals","products":[{"product_id":"507f1f77bcf86cd799439011","sku":"45790-32","name":"Monopoly: 3rd Edition","price":19,"position":1,"category":"Games","url":"https://www.example.com/product/path","image_url":"https://www.example.com/product/path.jpg"},{"product_id":"505bd76785ebb509fc183733","sku":"46493-32","name":"Uno Card Game","price":3,"position":2,"category":"Games"}]}"#

    /// A track message `event` with `properties` and the app instance id GA4 app streams need.
    static func track(_ event: String, _ properties: String, context: String = "", messageId: String = "order-1") -> String {
        let extra = context.isEmpty ? "" : "," + context
        return #"{"type":"track","event":\#(quoted(event)),"messageId":"\#(messageId)","timestamp":"2026-11-20T08:00:00Z","anonymousId":"device-0001","userId":"user-0001","context":{"device":{"appInstanceId":"0123456789abcdef0123456789abcdef"}\#(extra)},"properties":\#(properties)}"#
    }
}
