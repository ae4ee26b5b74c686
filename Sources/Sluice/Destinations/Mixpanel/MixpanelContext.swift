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
/// Not sent: `context.screen.density` (Mixpanel's `$screen_dpi` is dots per inch;
/// Segment's density is a scale factor, 2 or 3, on iOS), `context.locale`, `context.app.name`
/// and `context.library` (no default property; `mp_lib` and `$lib_version` name
/// Mixpanel's own library).
extension MixpanelDestination {
    static let mappedProperties: [(name: StaticString, field: MappedContext.Field)] = MappedContext.utmNames + [
        ("$current_url", .pageURL), ("$referrer", .pageReferrer), ("$screen_width", .screenWidth), ("$screen_height", .screenHeight),
        ("$carrier", .carrier), ("$wifi", .wifi), ("$bluetooth_enabled", .bluetooth),
    ]
    @inline(__always) static var mappedFields: UInt16 {
        MappedContext.campaign | MappedContext.Field.pageURL.bit | MappedContext.Field.pageReferrer.bit
            | MappedContext.Field.screenWidth.bit | MappedContext.Field.screenHeight.bit | MappedContext.Field.carrier.bit
            | MappedContext.Field.wifi.bit | MappedContext.Field.bluetooth.bit
    }

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
        return added
    }

    /// A bit (`MappedContext.Field.bit`) per mapped property name the event's own properties use.
    private func eventPropertyNames(_ document: JSONDocument, _ object: Int) -> UInt16 {
        var mask: UInt16 = 0
        document.forEachMember(of: object) { key, _ in
            let length = document.decodedLength(key)
            for (name, field) in MixpanelDestination.mappedProperties where name.utf8CodeUnitCount == length {
                if document.string(key, is: name) { mask |= field.bit }
            }
        }
        return mask
    }
}
