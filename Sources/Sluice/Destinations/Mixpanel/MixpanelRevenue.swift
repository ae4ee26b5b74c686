import SluiceJSON

/// Revenue on Mixpanel: an event property, nothing else. Mixpanel's revenue reports
/// sum a numeric property of the events that are a value exchange, [revenue]
/// docs.mixpanel.com/guides/guides-by-use-case/grow-your-usership/grow-revenue ("Each
/// event should include: `amount` (numeric), `currency` (ISO code)"); the People
/// Analytics revenue the SDKs' `track_charge` wrote (`$transactions` on the profile)
/// is deprecated, and is not written.
///
/// So a spec money event (Order Completed, Order Refunded, and names `ecommerce_events`
/// maps to them) gets `revenue_property` (default `amount`): the order's amount from
/// `revenue_from`, as a number (a numeric string becomes the number it spells), as
/// written (a refund's amount is not made negative: Mixpanel gives refunds no meaning
/// of their own). Its `currency` is already an event property. An event property of
/// that name wins (counted `revenue_property_present`); `revenue_property: ""` adds
/// nothing. Counted: `revenue_invalid`, `revenue_missing` (no amount).
extension MixpanelDestination {
    static let defaultRevenueProperty = "amount"

    static func readRevenueProperty(_ options: [String: ConfigValue], destination: String, _ reader: inout ConfigReader) -> [UInt8] {
        guard let node = options["revenue_property"],
              let text = reader.string(node, what: "destinations.\(destination).revenue_property") else {
            return Array(defaultRevenueProperty.utf8)
        }
        if text.utf8.count > maxStringBytes || reserved.contains(Array(text.utf8)) {
            reader.error(node, "destinations.\(destination).revenue_property must be a property name Mixpanel keeps (at most 255 bytes, not reserved)")
        }
        return Array(text.utf8)
    }

    /// Appends the revenue property of a money event (the caller checks it is one); returns how many properties it wrote (0 or 1).
    mutating func appendRevenueProperty(_ fields: EventFields, count: Int, _ properties: inout JSONObjectEncoder,
                                        _ out: inout ByteBuffer) -> Int {
        let document = fields.document
        guard let (node, amount) = ecommerce.amount(document, fields.properties) else {
            counts.add("revenue_missing")
            return 0
        }
        guard case .value = amount else {
            counts.add("revenue_invalid")
            return 0
        }
        if let own = fields.properties, document.member(revenueProperty, of: own) != nil {
            counts.add("revenue_property_present")
            return 0
        }
        guard count < MixpanelDestination.maxProperties else {
            counts.add("property_dropped_over_limit")
            return 0
        }
        properties.key(bytes: revenueProperty, &out)
        MoneyAmount.appendNumber(document, node, to: &out)
        return 1
    }
}
