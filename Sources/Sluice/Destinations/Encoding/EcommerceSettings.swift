import SluiceJSON

/// The ecommerce keys every provider destination takes, read the same way:
///
/// - `ecommerce` (`true`): whether spec events get the provider's ecommerce
///   meaning at all; `false` sends them as any other event, as before.
/// - `ecommerce_events` (none): the pipeline's own event names for spec events,
///   `{purchase_completed: Order Completed}`, added to the spec's names. The
///   name matched is the one the destination gets (after `rename:`).
/// - `revenue_from` (`[revenue, value, total]`): the properties an order's amount
///   is read from, the first one present deciding. Segment's spec has three for
///   an order: `revenue` ("excluding shipping and tax"), `total` ("with discounts
///   and coupons added in") and `value`; teams disagree about which is "the"
///   amount, and providers do too (GA4's `value`: "Don't include shipping or tax";
///   Segment's own GA4 destination reads `total`).
struct EcommerceSettings: Sendable {
    static let keys = ["ecommerce", "ecommerce_events", "revenue_from"]
    static let defaultRevenueFrom = ["revenue", "value", "total"]

    var enabled = true
    var names = EcommerceNames()
    var revenueFrom: [[UInt8]] = EcommerceSettings.defaultRevenueFrom.map { Array($0.utf8) }

    init() {}

    init(options: [String: ConfigValue], destination: String, _ reader: inout ConfigReader) {
        if let node = options["ecommerce"], let on = reader.boolean(node, what: "destinations.\(destination).ecommerce") {
            enabled = on
        }
        if let node = options["ecommerce_events"] {
            var extra: [(name: [UInt8], event: EcommerceEvent)] = []
            if let mapping = node.mapping {
                for (key, value) in mapping {
                    guard let name = key.scalar?.text, !name.isEmpty, let spec = value.scalar?.text else {
                        reader.error(key, "destinations.\(destination).ecommerce_events maps event names to Ecommerce spec event names")
                        continue
                    }
                    guard let event = EcommerceNames.specEvent(named: spec) else {
                        let all = EcommerceEvent.allCases.map(\.specName)
                        let hint = ConfigReader.suggestion(for: spec, among: all)
                        reader.error(value, "destinations.\(destination).ecommerce_events.\(name): '\(spec)' is not an Ecommerce spec event" +
                                     (hint.isEmpty ? " (one of: \(all.joined(separator: ", ")))" : hint))
                        continue
                    }
                    extra.append((Array(name.utf8), event))
                }
            } else {
                reader.error(node, "destinations.\(destination).ecommerce_events must map event names to Ecommerce spec event names")
            }
            names = EcommerceNames(adding: extra)
        }
        if let node = options["revenue_from"], let list = reader.strings(node, what: "destinations.\(destination).revenue_from") {
            if list.isEmpty || list.contains(where: \.isEmpty) {
                reader.error(node, "destinations.\(destination).revenue_from must list property names, such as [revenue, total]")
            } else {
                revenueFrom = list.map { Array($0.utf8) }
            }
        }
    }

    /// The spec event a message is for this destination (its name after `rename:`), or nil:
    /// not a `track`, not a spec event, or `ecommerce: false`.
    @inline(__always)
    func event(_ event: Event) -> EcommerceEvent? {
        guard enabled, event.type == .track else { return nil }
        return names.event(named: event.name)
    }

    /// The order's amount: the first property of `revenue_from` present in `properties`
    /// (`null` and `""` are not present), its node and what it holds; nil when none is.
    func amount(_ document: JSONDocument, _ properties: Int?) -> (node: Int, amount: MoneyAmount.Amount)? {
        guard let properties else { return nil }
        for name in revenueFrom {
            guard let node = document.member(name, of: properties) else { continue }
            let amount = MoneyAmount.amount(document, node)
            if amount != .absent { return (node, amount) }
        }
        return nil
    }

    /// Whether `key` (decoded UTF-8) is one of the `revenue_from` properties.
    func isRevenueProperty(_ key: Span<UInt8>) -> Bool {
        for name in revenueFrom where ByteSpans.equal(key, name) { return true }
        return false
    }
}
