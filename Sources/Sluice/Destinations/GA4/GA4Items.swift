import SluiceJSON

/// GA4's `items` param from a spec event's products: the `products` list, or
/// for a single-product event (Product Viewed, Product Added, ...) its own
/// product properties. The last param of the event, and not one of its 25.
///
/// Sources (see `GA4EcommerceMapping` for the bracketed ones):
/// - [ga4-items]: developers.google.com/analytics/devguides/collection/ga4/ecommerce
///   ("The items array can include up to 200 elements"; item params `item_id`,
///   `item_name`, `affiliation`, `coupon`, `discount`, `index`, `item_brand`,
///   `item_category`..`item_category5`, `item_list_id`, `item_list_name`,
///   `item_variant`, `location_id`, `price`, `quantity`), and the events reference
///   ("One of item_id or item_name is required")
/// - [mp-send] "Limitations": "Items can have a maximum of 10 custom parameters"
///   (the collection-limits page, support.google.com/analytics/answer/9267744, allows 27
///   item-scoped custom params: the Measurement Protocol's smaller limit is kept),
///   "The post body must be smaller than 130kB"
/// - [segment-ga4] the spec's product fields and the item params they become:
///   `product_id` → `item_id` (Sluice: `sku` when there is no `product_id`), `name` →
///   `item_name`, `brand` → `item_brand`, `category` → `item_category`, `variant` →
///   `item_variant`, `price`, `quantity`, `coupon`, `position` → `index`.
///
/// Every other product field (`sku` beside a `product_id`, `url`, `image_url`,
/// your own) is a custom item param, its name made valid like a param's, at
/// most 10 per item. Counted: `item_without_id_dropped`, `item_dropped_over_limit`,
/// `item_dropped_over_size` (the request would pass 130 kB), `item_param_dropped`
/// (a null, object or array value), `item_param_dropped_over_limit`,
/// `products_invalid` (`products` is not a list of objects).
extension GA4Destination {
    static let maxItems = 200
    static let maxCustomItemParams = 10
    /// [mp-send] "smaller than 130kB": a request body, this line, stays under it (16 bytes kept for its end).
    static let maxRequestBytes = 130_000 - 16

    /// Spec product field → GA4 item param ([segment-ga4]), and GA4's own item params under their names.
    private static let itemParams: [(source: StaticString, name: StaticString, kind: GA4EcommerceMapping.Kind)] = [
        ("product_id", "item_id", .string), ("name", "item_name", .string), ("brand", "item_brand", .string),
        ("category", "item_category", .string), ("variant", "item_variant", .string), ("price", "price", .number),
        ("quantity", "quantity", .number), ("coupon", "coupon", .string), ("position", "index", .number),
        ("item_id", "item_id", .string), ("item_name", "item_name", .string), ("affiliation", "affiliation", .string),
        ("discount", "discount", .number), ("index", "index", .number), ("item_brand", "item_brand", .string),
        ("item_category", "item_category", .string), ("item_category2", "item_category2", .string),
        ("item_category3", "item_category3", .string), ("item_category4", "item_category4", .string),
        ("item_category5", "item_category5", .string), ("item_list_id", "item_list_id", .string),
        ("item_list_name", "item_list_name", .string), ("item_variant", "item_variant", .string),
        ("location_id", "location_id", .string), ("promotion_id", "promotion_id", .string),
        ("promotion_name", "promotion_name", .string), ("creative_name", "creative_name", .string),
        ("creative_slot", "creative_slot", .string),
    ]

    /// GA4's own item params that a single-product event may carry among its
    /// properties ([ga4-items]): they describe the product, so they go into
    /// `items[0]` with the spec's product fields, not onto the event.
    static let singleProductItemParams: [StaticString] = [
        "item_id", "item_name", "affiliation", "discount", "item_brand", "item_category", "item_category2",
        "item_category3", "item_category4", "item_category5", "item_variant", "location_id",
    ]

    /// Whether a single-product event's property `key` belongs to its item: a spec
    /// product field or one of `singleProductItemParams`.
    static func isSingleProductItemField(_ key: Span<UInt8>) -> Bool {
        if EcommerceEvent.isProductField(key) { return true }
        for param in singleProductItemParams where ByteSpans.equal(key, param) { return true }
        return false
    }

    /// The mapped event's `items`, when it takes them and has products.
    mutating func appendItems<Out: ByteSink>(_ fields: EventFields, _ params: inout JSONObjectEncoder, _ out: inout Out) {
        guard let (spec, mapping) = ecommerceEvent, mapping.items, let properties = fields.properties else { return }
        let document = fields.document
        var opened = false
        var count = 0
        func item(_ object: Int, onlyProductFields: Bool) -> Bool {
            guard count < GA4Destination.maxItems else {
                counts.add("item_dropped_over_limit")
                return true
            }
            let start = out.count
            if opened {
                out.append(UInt8(ascii: ","))
            } else {
                params.key("items", &out)
                out.append(UInt8(ascii: "["))
            }
            guard appendItem(document, object, onlyProductFields: onlyProductFields, &out) else {
                out.removeSubrange(start...)
                counts.add("item_without_id_dropped")
                return true
            }
            if out.count - recordStart > GA4Destination.maxRequestBytes {
                out.removeSubrange(start...)
                counts.add("item_dropped_over_size")
                return false
            }
            opened = true
            count += 1
            return true
        }
        if let products = document.member("products", of: properties) {
            guard document.kind(products) == .array else {
                counts.add("products_invalid")
                return
            }
            var index = products + 1
            let end = document.after(products)
            while index < end {
                let element = index
                index = document.after(index)
                guard document.kind(element) == .object else {
                    counts.add("products_invalid")
                    continue
                }
                if !item(element, onlyProductFields: false) {
                    // Over the request's size: this one and every later one are left out.
                    while index < end {
                        counts.add("item_dropped_over_size")
                        index = document.after(index)
                    }
                    break
                }
            }
        } else if spec.products == .single {
            _ = item(properties, onlyProductFields: true)
        }
        if opened { out.append(UInt8(ascii: "]")) }
    }

    /// One item object from a product; false (and something half-written, which the caller
    /// removes) when it has neither an `item_id` nor an `item_name`.
    private mutating func appendItem<Out: ByteSink>(_ document: JSONDocument, _ object: Int, onlyProductFields: Bool,
                                                    _ out: inout Out) -> Bool {
        written.removeAll(keepingCapacity: true)
        var encoder = JSONObjectEncoder()
        var custom = 0
        // `sku` is the item's id only without a `product_id`.
        let hasProductID = document.member("product_id", of: object).map { GA4Value.check(document, $0, .string) == .ok } ?? false
        document.forEachMember(of: object) { member, value in
            document.withStringSpan(member) { keyBytes in
                if onlyProductFields && !GA4Destination.isSingleProductItemField(keyBytes) { return }
                var name: StaticString?
                var kind = GA4EcommerceMapping.Kind.string
                if !hasProductID && ByteSpans.equal(keyBytes, "sku") {
                    name = "item_id"
                } else if let known = GA4Destination.itemParams.first(where: {
                    ByteSpans.equal(keyBytes, $0.source)
                }) {
                    name = known.name
                    kind = known.kind
                }
                switch GA4Value.check(document, value, kind) {
                case .absent: return
                case .invalid:
                    counts.add(kind == .number ? "ecommerce_value_invalid" : "item_param_dropped")
                    return
                case .ok: break
                }
                if let name {
                    key.removeAll(keepingCapacity: true)
                    key.append(utf8: name)
                } else {
                    key.removeAll(keepingCapacity: true)
                    key.append(span: keyBytes)
                    if fixKey(maxLength: GA4Names.maxNameLength, kind: .parameter) {
                        counts.add("param_name_changed")
                    }
                }
                if isWritten(key, in: out) {
                    counts.add("duplicate_param_dropped")
                    return
                }
                if name == nil {
                    guard custom < GA4Destination.maxCustomItemParams else {
                        counts.add("item_param_dropped_over_limit")
                        return
                    }
                    custom += 1
                }
                encoder.key(bytes: key, &out)
                markLastKey(key.count, out)
                GA4Value.append(document, value, kind, to: &out, counts: &counts)
            }
        }
        encoder.close(&out)
        return written.contains { $0.count == 7 || $0.count == 9 } && hasIDOrName(out)
    }

    /// Whether the item just written has an `item_id` or an `item_name` among its keys.
    private func hasIDOrName<Out: ByteSink>(_ out: Out) -> Bool {
        isWritten(GA4Destination.itemID, in: out) || isWritten(GA4Destination.itemName, in: out)
    }

    private static let itemID = Array("item_id".utf8)
    private static let itemName = Array("item_name".utf8)
}
