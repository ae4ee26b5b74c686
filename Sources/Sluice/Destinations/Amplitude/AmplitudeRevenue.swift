import SluiceJSON

/// Amplitude's revenue fields for the spec's money events (`EcommerceEvent.money`:
/// Order Completed, Order Refunded, and the names `ecommerce_events` maps to them).
///
/// Sources:
/// - [v2]: amplitude.com/docs/apis/analytics/http-v2 ("Keys for the event argument":
///   `price` "The price of the item purchased ... You can use negative values for
///   refunds", `quantity` "The quantity of the item purchased. Defaults to 1",
///   `revenue` "Revenue = (price x quantity) ... Use negative values for refunds",
///   `productId` "An identifier for the item purchased", `revenueType` (the example
///   sends `"revenue": -1.99, "revenueType": "Refund"`), `currency` "3-character
///   uppercase ISO 4217 code")
/// - [track-revenue]: amplitude.com/docs/sdks/analytics ("Track revenue"): `$revenue`
///   "is required if you wish the revenue event to appear in a Revenue LTV chart";
///   revenue is `$price * $quantity`, quantity 1 when absent
/// - [segment-amplitude]: segment.com/docs/connections/destinations/catalog/amplitude
///   ("Order Completed", "Track Revenue Per Product": "Amplitude has two different ways
///   to track revenue associated with a multi-product purchase": one revenue event per
///   product, a "Product Purchased" event each, or the order's total on the order's event)
///
/// `revenue: per_product` (the default: every revenue field [v2] documents is one
/// item's, "the item purchased", and the SDKs log one `Revenue` per product) sends an
/// order with a `products` list as its own event, without revenue fields and without
/// `products` in its `event_properties`, then one `product_event` ("Product Purchased")
/// per product: its properties as `event_properties`, `price`, `quantity`, `revenue`
/// (price × quantity), `productId` (`product_id`, else `sku`) and the order's
/// `currency`. `revenue: order_total` (Segment's Amplitude destination's default) puts
/// the order's amount (`revenue_from`) on the order's own event. A refund is always
/// its order's amount, negative, `revenueType: Refund`; a purchase's `revenueType` is
/// `Purchase` (the message's own `revenueType` property wins either way).
///
/// Counted: `revenue_invalid` (the amount, a price or a quantity is not a usable
/// number), `revenue_missing` (a money event with no amount), `product_price_missing`,
/// `product_event_dropped_over_request` (an order's records fit one request: 2000
/// events, 998,976 bytes; the products past that are left out).
extension AmplitudeDestination {
    enum RevenueMode: String { case perProduct = "per_product", orderTotal = "order_total" }

    static let revenueKeys = ["revenue", "product_event"]
    static let defaultProductEvent = "Product Purchased"

    static func readRevenueOptions(_ options: [String: ConfigValue], destination: String,
                                   _ reader: inout ConfigReader) -> (RevenueMode, String) {
        var mode = RevenueMode.perProduct
        if let node = options["revenue"] {
            if let text = node.scalar?.text, let value = RevenueMode(rawValue: text) {
                mode = value
            } else {
                reader.error(node, "destinations.\(destination).revenue must be one of: per_product, order_total")
            }
        }
        var productEvent = defaultProductEvent
        if let node = options["product_event"], let text = reader.string(node, what: "destinations.\(destination).product_event") {
            if UnnamedNames.trimmed(Array(text.utf8)).isEmpty {
                reader.error(node, "destinations.\(destination).product_event must be an event name")
            } else {
                productEvent = text
            }
        }
        return (mode, productEvent)
    }

    /// The order's `products` list, when its products become events of their own
    /// (`revenue: per_product`, a purchase, a list with something in it).
    func productList(_ document: JSONDocument, _ properties: Int?) -> Int? {
        guard revenue == .perProduct, revenueEvent?.money == .revenue, let properties,
              let products = document.member("products", of: properties), document.kind(products) == .array,
              document.after(products) > products + 1 else { return nil }
        return products
    }

    /// The message's `event_properties`; an order whose products become events keeps the rest.
    mutating func appendEventProperties<Out: ByteSink>(_ document: JSONDocument, _ properties: Int?, _ out: inout Out) {
        guard revenueEvent != nil, let properties, let products = productList(document, properties) else {
            appendObject(document, properties, &out)
            return
        }
        var object = JSONObjectEncoder()
        document.forEachMember(of: properties) { key, value in
            guard value != products else { return }
            object.key(document, node: key, &out)
            counts.add("string_cut", TextLimit.appendValue(document, value, maxScalars: AmplitudeDestination.maxStringCharacters, to: &out))
        }
        object.close(&out)
    }

    /// One record per object in the order's product list (see the type); returns how many.
    mutating func appendProductRecords(_ event: Event, _ fields: EventFields, user: Int?, device: Int?,
                                       context: inout EncodingContext, into out: inout ByteBuffer) -> Int {
        guard revenueEvent != nil, let products = productList(fields.document, fields.properties) else { return 0 }
        let document = fields.document
        var index = products + 1
        var written = 0
        var full = false
        while index < document.after(products) {
            let product = index
            index = document.after(index)
            guard document.kind(product) == .object else {
                counts.add("products_invalid")
                continue
            }
            // A message's records go to one file, one request ([v2] under 2000 events and 1 MB,
            // the order's own record included): the products past that are left out, counted.
            guard !full, 1 + written + 1 <= AmplitudeDestination.maxRequestEvents else {
                full = true
                counts.add("product_event_dropped_over_request")
                continue
            }
            let start = out.count
            appendRecord(event, fields, user: user, device: device, product: (product, written), context: &context, into: &out)
            if out.count - recordStart > AmplitudeDestination.maxRequestBytes {
                out.removeSubrange(start...)
                full = true
                counts.add("product_event_dropped_over_request")
                continue
            }
            written += 1
        }
        return written
    }

    /// The insert id's name for an order's product `index`: its own id, the same on every re-send.
    mutating func productInsertName(_ index: Int) -> [UInt8] {
        insertName.removeAll(keepingCapacity: true)
        insertName.append(contentsOf: productEvent)
        insertName.append(0)
        appendInteger(Int64(index), to: &insertName)
        return insertName
    }

    /// The revenue fields of a record: a product's, or the order's own (see the type).
    mutating func appendRevenueFields(_ fields: EventFields, product: Int?, _ record: inout JSONObjectEncoder, _ out: inout ByteBuffer) {
        guard let money = revenueEvent?.money, let properties = fields.properties else {
            if revenueEvent?.money != nil { counts.add("revenue_missing") }
            return
        }
        let document = fields.document
        if let product {
            // [v2] currency and revenueType go with a price: none without one.
            guard appendProductRevenue(document, product, &record, &out) else { return }
        } else {
            guard money == .refund || productList(document, properties) == nil else { return }
            guard let (node, amount) = ecommerce.amount(document, properties) else {
                counts.add("revenue_missing")
                return
            }
            guard case .value = amount else {
                counts.add("revenue_invalid")
                return
            }
            record.key("revenue", &out)
            MoneyAmount.appendNumber(document, node, negated: money == .refund, to: &out)
        }
        appendCurrency(document, properties, &record, &out)
        // [v2] revenueType, as its example sends a refund; the message's own wins.
        if let node = document.member("revenueType", of: properties), document.kind(node) == .string, document.rawLength(node) > 2 {
            record.key("revenueType", &out)
            if TextLimit.appendString(document, node, maxScalars: AmplitudeDestination.maxStringCharacters, to: &out) { counts.add("string_cut") }
        } else {
            record.string("revenueType", money == .refund ? "Refund" : "Purchase", &out)
        }
    }

    /// A product's `price`, `quantity`, `revenue` and `productId`; false when it has no usable price.
    private mutating func appendProductRevenue(_ document: JSONDocument, _ product: Int, _ record: inout JSONObjectEncoder,
                                               _ out: inout ByteBuffer) -> Bool {
        guard let priceNode = document.member("price", of: product) else {
            counts.add("product_price_missing")
            return false
        }
        guard case .value(let price) = MoneyAmount.amount(document, priceNode) else {
            counts.add(MoneyAmount.amount(document, priceNode) == .absent ? "product_price_missing" : "revenue_invalid")
            return false
        }
        var quantity = 1.0
        record.key("price", &out)
        MoneyAmount.appendNumber(document, priceNode, to: &out)
        if let node = document.member("quantity", of: product) {
            switch MoneyAmount.amount(document, node) {
            case .value(let value) where value == value.rounded():
                quantity = value
                record.key("quantity", &out)
                appendInteger(Int64(value), to: &out)
            case .absent:
                break
            default:
                counts.add("revenue_invalid")
            }
        }
        record.key("revenue", &out)
        out.append(contentsOf: MoneyAmount.formatAmount(price * quantity).utf8)
        if let node = document.member("product_id", of: product) ?? document.member("sku", of: product) {
            switch document.kind(node) {
            case .string where document.rawLength(node) > 2:
                record.key("productId", &out)
                if TextLimit.appendString(document, node, maxScalars: AmplitudeDestination.maxStringCharacters, to: &out) {
                    counts.add("string_cut")
                }
            case .number:
                record.key("productId", &out)
                out.append(UInt8(ascii: "\""))
                document.appendRaw(node, to: &out)
                out.append(UInt8(ascii: "\""))
            default:
                break
            }
        }
        return true
    }

    /// The order's `currency`, uppercase; one that is not three letters is left out, counted.
    private mutating func appendCurrency(_ document: JSONDocument, _ properties: Int, _ record: inout JSONObjectEncoder,
                                         _ out: inout ByteBuffer) {
        guard let node = document.member("currency", of: properties), !(document.kind(node) == .string && document.rawLength(node) == 2),
              document.kind(node) != .null else { return }
        guard MoneyAmount.isCurrency(document, node) else {
            counts.add("currency_invalid")
            return
        }
        record.key("currency", &out)
        MoneyAmount.appendCurrency(document, node, to: &out)
    }
}
