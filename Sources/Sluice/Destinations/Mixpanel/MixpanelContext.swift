import SluiceJSON

/// The `context` fields Mixpanel documents a default property for (see `MappedContext`),
/// [default] docs.mixpanel.com/docs/data-structure/property-reference/default-properties
/// ("Event Properties"): `utm_source`, `utm_medium`, `utm_campaign`, `utm_term`,
/// `utm_content` ("UTM tags derived from the URL ... Each UTM will be collected under
/// its own property") from `context.campaign`; `$current_url` ("The URL of the page on
/// which the event was tracked") and `$referrer` from `context.page`; `$screen_width`,
/// `$screen_height` from `context.screen`; `$carrier`, `$wifi` and `$bluetooth_enabled`
/// from `context.network`. An event property of the same name wins (counted
/// `context_property_overridden`), as for the device fields.
///
/// `$initial_referrer` and `$initial_referring_domain` ([default]: "Initial
/// Referrer", "Initial Referring Domain", the first-touch ones) come from
/// `context.page` (`initial_referrer` or `initialReferrer`, as RudderStack maps them).
/// The `context.campaign` keys beside the five UTM ones go as Mixpanel's SDK
/// collects them from the URL: a click id (`gclid`, `fbclid`, `msclkid`, ...:
/// mixpanel-js `CLICK_IDS`) and a `utm_…` key under its own name, any other key
/// `k` as `utm_k` (analytics.js keeps `utm_keyword` as `keyword`); strings only.
///
/// Not sent: `context.screen.density` (Mixpanel's `$screen_dpi` is dots per inch;
/// Segment's density is a scale factor, 2 or 3, on iOS), `context.locale`, `context.app.name`
/// and `context.library` (no default property; `mp_lib` and `$lib_version` name
/// Mixpanel's own library).
extension MixpanelDestination {
    static let mappedProperties: [(name: StaticString, field: MappedContext.Field)] = MappedContext.utmNames + [
        ("$current_url", .pageURL), ("$referrer", .pageReferrer), ("$screen_width", .screenWidth), ("$screen_height", .screenHeight),
        ("$carrier", .carrier), ("$wifi", .wifi), ("$bluetooth_enabled", .bluetooth),
        ("$initial_referrer", .initialReferrer), ("$initial_referring_domain", .initialReferringDomain),
    ]
    @inline(__always) static var mappedFields: MappedContext.Mask {
        MappedContext.campaign | MappedContext.Field.pageURL.bit | MappedContext.Field.pageReferrer.bit
            | MappedContext.Field.screenWidth.bit | MappedContext.Field.screenHeight.bit | MappedContext.Field.carrier.bit
            | MappedContext.Field.wifi.bit | MappedContext.Field.bluetooth.bit | MappedContext.Field.initialReferrer.bit
            | MappedContext.Field.initialReferringDomain.bit | MappedContext.Field.campaignOther.bit
    }

    /// mixpanel-js `CLICK_IDS`: the ad click ids Mixpanel's SDK keeps under their own names.
    static let clickIDs: [[UInt8]] = ["dclid", "fbclid", "gclid", "ko_click_id", "li_fat_id", "msclkid", "sccid", "ttclid",
                                      "twclid", "wbraid"].map { Array($0.utf8) }
    private static let utmPrefix: [UInt8] = Array("utm_".utf8)
    private static let campaignKeys: [StaticString] = ["source", "medium", "name", "term", "content"]

    /// Appends the mapped `context` fields the event has; returns how many properties it wrote.
    mutating func appendMappedContext(_ fields: EventFields, count: Int, _ properties: inout JSONObjectEncoder,
                                      _ out: inout ByteBuffer) -> Int {
        let mapped = fields.mapped
        if mapped.invalid & MixpanelDestination.mappedFields != 0 { counts.add("context_value_invalid") }
        guard mapped.present & MixpanelDestination.mappedFields != 0 else { return 0 }
        let document = fields.document
        let overridden = fields.properties.map { eventPropertyNames(document, $0) } ?? 0
        var added = 0
        for (name, field) in MixpanelDestination.mappedProperties {
            guard let node = mapped.node(field) else { continue }
            if overridden & field.bit != 0 {
                counts.add("context_property_overridden")
                continue
            }
            if count + added >= MixpanelDestination.maxProperties {
                counts.add("property_dropped_over_limit")
                continue
            }
            properties.key(name, &out)
            if TextLimit.appendString(document, node, maxBytes: MixpanelDestination.maxStringBytes, to: &out) { counts.add("string_cut") }
            added += 1
        }
        if let campaign = mapped.node(.campaignOther) {
            added += appendOtherCampaignKeys(document, campaign, eventProperties: fields.properties, count: count + added,
                                             &properties, &out)
        }
        return added
    }

    /// A page's own `category` (Segment's page spec: "The category of the page"; Segment's
    /// and RudderStack's Mixpanel destinations keep it) as the property `category`, unless
    /// the event's properties have one. Returns how many properties it wrote.
    mutating func appendPageCategory(_ fields: EventFields, count: Int, _ properties: inout JSONObjectEncoder,
                                     _ out: inout ByteBuffer) -> Int {
        let document = fields.document
        guard let node = document.member("category", of: 0) else { return 0 }
        guard document.kind(node) == .string, document.rawLength(node) > 2 else {
            if document.kind(node) != .null { counts.add("context_value_invalid") }
            return 0
        }
        if let own = fields.properties, document.member("category", of: own) != nil {
            counts.add("context_property_overridden")
            return 0
        }
        guard count < MixpanelDestination.maxProperties else {
            counts.add("property_dropped_over_limit")
            return 0
        }
        properties.key("category", &out)
        if TextLimit.appendString(document, node, maxBytes: MixpanelDestination.maxStringBytes, to: &out) { counts.add("string_cut") }
        return 1
    }

    /// The `context.campaign` keys beside the five UTM ones, named as Mixpanel's SDK names them.
    private mutating func appendOtherCampaignKeys(_ document: JSONDocument, _ campaign: Int, eventProperties: Int?, count: Int,
                                                  _ properties: inout JSONObjectEncoder, _ out: inout ByteBuffer) -> Int {
        var added = 0
        var name: [UInt8] = []
        document.forEachMember(of: campaign) { key, value in
            guard !MixpanelDestination.campaignKeys.contains(where: { document.string(key, is: $0) }) else { return }
            guard document.kind(value) == .string, document.rawLength(value) > 2 else {
                if document.kind(value) != .null { counts.add("context_value_invalid") }
                return
            }
            name.removeAll(keepingCapacity: true)
            document.withString(key) { text in
                if !text.starts(with: MixpanelDestination.utmPrefix) && !MixpanelDestination.clickIDs.contains(where: { $0.elementsEqual(text) }) {
                    name.append(contentsOf: MixpanelDestination.utmPrefix)
                }
                name.append(contentsOf: text)
            }
            guard name.count <= MixpanelDestination.maxStringBytes else { return }
            if let eventProperties, document.member(name, of: eventProperties) != nil {
                counts.add("context_property_overridden")
                return
            }
            if count + added >= MixpanelDestination.maxProperties {
                counts.add("property_dropped_over_limit")
                return
            }
            properties.key(bytes: name, &out)
            if TextLimit.appendString(document, value, maxBytes: MixpanelDestination.maxStringBytes, to: &out) { counts.add("string_cut") }
            added += 1
        }
        return added
    }

    /// A bit (`MappedContext.Field.bit`) per mapped property name the event's own properties use.
    private func eventPropertyNames(_ document: JSONDocument, _ object: Int) -> MappedContext.Mask {
        var mask: MappedContext.Mask = 0
        document.forEachMember(of: object) { key, _ in
            let length = document.decodedLength(key)
            for (name, field) in MixpanelDestination.mappedProperties where name.utf8CodeUnitCount == length {
                if document.string(key, is: name) { mask |= field.bit }
            }
        }
        return mask
    }
}
