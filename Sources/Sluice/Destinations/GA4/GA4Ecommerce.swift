import SluiceJSON

/// GA4's recommended ecommerce events for Segment's Ecommerce spec events, and
/// the params each one takes from the event's properties.
///
/// Sources:
/// - [ga4-events]: developers.google.com/analytics/devguides/collection/ga4/reference/events
///   (the recommended events and their params; "currency ... If you set value then
///   currency is required for revenue metrics to be computed accurately")
/// - [ga4-ecommerce]: developers.google.com/analytics/devguides/collection/ga4/ecommerce
///   ("Set currency when sending value (revenue) data")
/// - [segment-ga4]: Segment's own GA4 destination (segmentio/action-destinations
///   google-analytics-4: `purchase`, `addToCart`, ..., `ga4-properties.ts`), and
///   RudderStack's (rudder-transformer src/v0/destinations/ga4/config.js and data/*.json):
///   which spec event becomes which GA4 event, and which property feeds which param.
///
/// An event of the spec that GA4 has no recommended event for (Order Cancelled,
/// Coupon Applied, ...) keeps its name, normalized as any other. The properties a
/// mapping reads are not sent again as custom params; the others are, as for any
/// event. Counted: `ecommerce_name_mapped` (each event sent under GA4's name),
/// `ecommerce_value_invalid` (a number param that is not a number),
/// `currency_invalid` (not 3 letters), `value_without_currency`,
/// `transaction_id_missing` (a purchase or refund without `order_id`).
struct GA4EcommerceMapping {
    enum Kind {
        /// Text, cut at 100 characters (numbers written as text).
        case string
        /// A number, or a string that is exactly one (`"5.5"`), not negative.
        case number
        /// ISO 4217: three letters, written uppercase.
        case currency
        /// The amount, from the destination's `revenue_from`.
        case value
    }

    struct Param {
        let name: StaticString
        let sources: [StaticString]
        let kind: Kind
    }

    /// The GA4 event name.
    let name: StaticString
    let params: [Param]
    /// Whether GA4 takes `items` with this event.
    let items: Bool

    private static let currency = Param(name: "currency", sources: ["currency"], kind: .currency)
    private static let value = Param(name: "value", sources: [], kind: .value)
    private static let coupon = Param(name: "coupon", sources: ["coupon"], kind: .string)
    private static let money = [currency, value]
    private static let promotion = [Param(name: "promotion_id", sources: ["promotion_id"], kind: .string),
                                    Param(name: "promotion_name", sources: ["name"], kind: .string),
                                    Param(name: "creative_name", sources: ["creative"], kind: .string),
                                    Param(name: "creative_slot", sources: ["position"], kind: .string)]
    private static let order = [Param(name: "transaction_id", sources: ["order_id"], kind: .string), currency, value, coupon,
                                Param(name: "shipping", sources: ["shipping"], kind: .number),
                                Param(name: "tax", sources: ["tax"], kind: .number)]

    /// [ga4-events] the recommended event for each spec event ([segment-ga4] for the pairing).
    private static let table: [GA4EcommerceMapping?] = EcommerceEvent.allCases.map { event in
        switch event {
        case .productsSearched:
            GA4EcommerceMapping(name: "search", params: [Param(name: "search_term", sources: ["query"], kind: .string)], items: false)
        case .productListViewed:
            GA4EcommerceMapping(name: "view_item_list", params: [Param(name: "item_list_id", sources: ["list_id"], kind: .string),
                                                                 Param(name: "item_list_name", sources: ["category"], kind: .string)],
                                items: true)
        case .productClicked:
            // The product's own `category` is its item_category, not the list's name.
            GA4EcommerceMapping(name: "select_item", params: [Param(name: "item_list_id", sources: ["list_id"], kind: .string)], items: true)
        case .promotionViewed: GA4EcommerceMapping(name: "view_promotion", params: promotion, items: true)
        case .promotionClicked: GA4EcommerceMapping(name: "select_promotion", params: promotion, items: true)
        case .productViewed: GA4EcommerceMapping(name: "view_item", params: money, items: true)
        case .productAdded, .wishlistProductAddedToCart: GA4EcommerceMapping(name: "add_to_cart", params: money, items: true)
        case .productRemoved: GA4EcommerceMapping(name: "remove_from_cart", params: money, items: true)
        case .productAddedToWishlist: GA4EcommerceMapping(name: "add_to_wishlist", params: money, items: true)
        case .cartViewed: GA4EcommerceMapping(name: "view_cart", params: money, items: true)
        case .checkoutStarted: GA4EcommerceMapping(name: "begin_checkout", params: money + [coupon], items: true)
        case .paymentInfoEntered:
            GA4EcommerceMapping(name: "add_payment_info",
                                params: money + [coupon, Param(name: "payment_type", sources: ["payment_method"], kind: .string)], items: true)
        case .orderCompleted: GA4EcommerceMapping(name: "purchase", params: order, items: true)
        case .orderRefunded: GA4EcommerceMapping(name: "refund", params: order, items: true)
        case .productShared, .cartShared:
            GA4EcommerceMapping(name: "share", params: [Param(name: "method", sources: ["share_via"], kind: .string),
                                                        Param(name: "item_id", sources: ["product_id"], kind: .string)], items: false)
        default:
            nil
        }
    }

    static func mapping(for event: EcommerceEvent) -> GA4EcommerceMapping? { table[event.rawValue] }

    /// Whether the property `key` of a `spec` event is read by this mapping: a param's source,
    /// an amount of `revenue_from`, `products`, or a single-product event's product fields.
    func consumes(_ key: Span<UInt8>, of spec: EcommerceEvent, revenueFrom settings: EcommerceSettings) -> Bool {
        for param in params {
            if param.kind == .value {
                if settings.isRevenueProperty(key) { return true }
            } else {
                for source in param.sources where ByteSpans.equal(key, source) { return true }
            }
        }
        guard items else { return false }
        if ByteSpans.equal(key, "products") { return true }
        return spec.products == .single && GA4Destination.isSingleProductItemField(key)
    }
}

extension GA4Destination {
    /// The spec event a track message is, and GA4's for it, when it is mapped; the
    /// name goes into `name`. A split timed event keeps its `_start`/`_stop` names.
    mutating func mapEcommerceEvent(_ event: Event, split: Bool) -> Bool {
        ecommerceEvent = nil
        guard let spec = ecommerce.event(event) else { return false }
        guard let mapping = GA4EcommerceMapping.mapping(for: spec) else { return false }
        if split {
            counts.add("ecommerce_timed_not_mapped")
            return false
        }
        ecommerceEvent = (spec, mapping)
        name.append(utf8: mapping.name)
        counts.add("ecommerce_name_mapped")
        return true
    }

    /// Whether a property of the mapped event is read by its mapping (not sent again as a custom param).
    func ecommerceConsumes(_ key: Span<UInt8>) -> Bool {
        guard let (spec, mapping) = ecommerceEvent else { return false }
        return mapping.consumes(key, of: spec, revenueFrom: ecommerce)
    }

    /// The mapped event's params, before its other properties: each from the first of its
    /// sources present (`null` and `""` are not), counted toward GA4's 25.
    mutating func appendEcommerceParams<Out: ByteSink>(_ fields: EventFields, _ params: inout JSONObjectEncoder, _ out: inout Out) {
        guard let (spec, mapping) = ecommerceEvent, let properties = fields.properties else {
            if let (spec, _) = ecommerceEvent, spec.money != nil { counts.add("transaction_id_missing") }
            return
        }
        let document = fields.document
        var wroteValue = false, wroteCurrency = false, wroteTransaction = false
        for param in mapping.params {
            let node: Int
            if param.kind == .value {
                guard let (found, amount) = ecommerce.amount(document, properties) else { continue }
                guard case .value = amount else {
                    counts.add("ecommerce_value_invalid")
                    continue
                }
                node = found
            } else {
                guard let found = param.sources.lazy.compactMap({ document.member($0, of: properties) }).first else { continue }
                switch GA4Value.check(document, found, param.kind) {
                case .absent: continue
                case .invalid:
                    counts.add(param.kind == .currency ? "currency_invalid" : "ecommerce_value_invalid")
                    continue
                case .ok: node = found
                }
            }
            if written.count >= GA4Destination.maxParams {
                counts.add("param_dropped_over_limit")
                continue
            }
            params.key(param.name, &out)
            markLastKey(param.name.utf8CodeUnitCount, out)
            GA4Value.append(document, node, param.kind, to: &out, counts: &counts)
            switch param.kind {
            case .value: wroteValue = true
            case .currency: wroteCurrency = true
            default: if GA4Value.named(param.name, "transaction_id") { wroteTransaction = true }
            }
        }
        if wroteValue && !wroteCurrency { counts.add("value_without_currency") }
        if spec.money != nil && !wroteTransaction { counts.add("transaction_id_missing") }
    }
}

/// A property's value as a GA4 param or item param of a given kind.
enum GA4Value {
    enum Check { case ok, absent, invalid }

    static func named(_ a: StaticString, _ b: StaticString) -> Bool {
        a.utf8CodeUnitCount == b.utf8CodeUnitCount && ShortBytes.equal(a.utf8Start, b.utf8Start, a.utf8CodeUnitCount)
    }

    /// Whether the value at `node` can be sent as `kind`: `null` and `""` are absent;
    /// an object or an array is no text, a non-number no number, and a currency
    /// is three letters ([ga4-events] "3-letter ISO 4217 format").
    static func check(_ document: JSONDocument, _ node: Int, _ kind: GA4EcommerceMapping.Kind) -> Check {
        let valueKind = document.kind(node)
        if valueKind == .null || (valueKind == .string && document.rawLength(node) == 2) { return .absent }
        switch kind {
        case .string:
            return valueKind == .object || valueKind == .array ? .invalid : .ok
        case .number, .value:
            switch MoneyAmount.amount(document, node) {
            case .value: return .ok
            case .absent: return .absent
            case .invalid: return .invalid
            }
        case .currency:
            return MoneyAmount.isCurrency(document, node) ? .ok : .invalid
        }
    }

    /// Appends a value `check` found `.ok`: text cut at GA4's 100 characters (a number as its
    /// text, a boolean as `"true"`/`"false"`), a number as written, a currency uppercase.
    static func append<Out: ByteSink>(_ document: JSONDocument, _ node: Int, _ kind: GA4EcommerceMapping.Kind,
                                      to out: inout Out, counts: inout ChangeCounts) {
        switch kind {
        case .string:
            switch document.kind(node) {
            case .string:
                if TextLimit.appendString(document, node, maxScalars: GA4Destination.maxParamValue, to: &out) { counts.add("param_value_cut") }
            case .true, .false:
                JSONString.appendQuoted(document.kind(node) == .true ? "true" : "false", to: &out)
                counts.add("bool_param_stringified")
            default:
                out.append(UInt8(ascii: "\""))
                document.appendRaw(node, to: &out)
                out.append(UInt8(ascii: "\""))
            }
        case .number, .value:
            MoneyAmount.appendNumber(document, node, to: &out)
        case .currency:
            MoneyAmount.appendCurrency(document, node, to: &out)
        }
    }
}
