import SluiceJSON

/// The `context` fields Amplitude documents a place for (see `MappedContext`):
/// - [v2] "Keys for the event argument": `carrier` ("The carrier that the user is
///   using") from `context.network.carrier`, `language` ("The language set by the
///   user"; "If the language field contains a tag, the tag changes to its
///   human-friendly language name") from `context.locale`;
/// - [attribution]: amplitude.com/docs/sdks/analytics/browser/browser-sdk-2 ("Track
///   marketing attribution": "Browser SDK 2 captures UTM parameters ... as user
///   properties", `utm_source`, `utm_medium`, `utm_campaign`, `utm_term`, `utm_content`)
///   from `context.campaign`, as `user_properties` beside `context.traits` (a trait of
///   the same name wins: counted `context_property_overridden`). Without an operation
///   they are set ([v2] "user_properties"); the SDK's first-touch `initial_utm_*` need
///   `$setOnce`, which [v2] takes only on `$identify`, so they are not made.
extension AmplitudeDestination {
    @inline(__always) static var mappedFields: MappedContext.Mask {
        MappedContext.Field.carrier.bit | MappedContext.Field.locale.bit | MappedContext.campaign | locationFields
    }
    @inline(__always) static var locationFields: MappedContext.Mask {
        // Bits ORed, not `MappedContext.mask(...)`: its variadic list is an array made per event.
        MappedContext.Field.latitude.bit | MappedContext.Field.longitude.bit | MappedContext.Field.city.bit
            | MappedContext.Field.country.bit | MappedContext.Field.region.bit
    }

    mutating func appendMappedContext(_ fields: EventFields, _ record: inout JSONObjectEncoder, _ out: inout ByteBuffer) {
        let mapped = fields.mapped
        if mapped.invalid & AmplitudeDestination.mappedFields != 0 { counts.add("context_value_invalid") }
        appendContextField("carrier", mapped.node(.carrier), fields.document, &record, &out)
        appendContextField("language", mapped.node(.locale), fields.document, &record, &out)
        if mapped.present & AmplitudeDestination.locationFields != 0 { appendLocation(fields, &record, &out) }
    }

    /// [v2] "Keys for the event argument": `location_lat`, `location_lng` ("The current
    /// Latitude/Longitude of the user"), `city`, `country`, `region` from `context.location`.
    /// Amplitude then does not resolve them from the IP.
    private mutating func appendLocation(_ fields: EventFields, _ record: inout JSONObjectEncoder, _ out: inout ByteBuffer) {
        let mapped = fields.mapped
        if let node = mapped.node(.latitude) { record.raw("location_lat", fields.document, node: node, &out) }
        if let node = mapped.node(.longitude) { record.raw("location_lng", fields.document, node: node, &out) }
        appendContextField("city", mapped.node(.city), fields.document, &record, &out)
        appendContextField("country", mapped.node(.country), fields.document, &record, &out)
        appendContextField("region", mapped.node(.region), fields.document, &record, &out)
    }

    /// `user_properties` of an event: `context.traits` and the UTM parameters.
    @inline(__always)
    mutating func appendUserProperties(_ fields: EventFields, _ record: inout JSONObjectEncoder, _ out: inout ByteBuffer) {
        if fields.mapped.present & MappedContext.campaign != 0 {
            appendUserPropertiesWithCampaign(fields, &record, &out)
        } else if let traits = fields.contextTraits {
            // Without an operation, user_properties are set ([v2] "user_properties").
            record.key("user_properties", &out)
            appendObject(fields.document, traits, &out)
        }
    }

    private mutating func appendUserPropertiesWithCampaign(_ fields: EventFields, _ record: inout JSONObjectEncoder,
                                                           _ out: inout ByteBuffer) {
        let document = fields.document
        var traitNames: MappedContext.Mask = 0
        if let traits = fields.contextTraits {
            document.forEachMember(of: traits) { key, _ in
                for (name, field) in MappedContext.utmNames where document.string(key, is: name) { traitNames |= field.bit }
            }
        }
        record.key("user_properties", &out)
        var object = JSONObjectEncoder()
        for (name, field) in MappedContext.utmNames {
            guard let node = fields.mapped.node(field) else { continue }
            if traitNames & field.bit != 0 {
                counts.add("context_property_overridden")
                continue
            }
            object.key(name, &out)
            if TextLimit.appendString(document, node, maxScalars: AmplitudeDestination.maxStringCharacters, to: &out) { counts.add("string_cut") }
        }
        if let traits = fields.contextTraits {
            document.forEachMember(of: traits) { key, value in
                object.key(document, node: key, &out)
                counts.add("string_cut", TextLimit.appendValue(document, value, maxScalars: AmplitudeDestination.maxStringCharacters, to: &out))
            }
        }
        object.close(&out)
    }
}
