import SluiceJSON

/// Mixpanel's Import API (`POST /import`, NDJSON body): one
/// `{"event": ..., "properties": {"time", "distinct_id", "$insert_id", ...}}` per line.
///
/// Each rule below cites the page it comes from:
/// - [import]: developer.mixpanel.com/reference/import-events (docs.mixpanel.com/reference/import-events)
/// - [400]: docs.mixpanel.com/troubleshooting/errors/400-bad-request
/// - [types]: docs.mixpanel.com/docs/data-structure/property-reference/data-type
/// - [reserved]: docs.mixpanel.com/docs/data-structure/property-reference/reserved-properties
/// - [default]: docs.mixpanel.com/docs/data-structure/property-reference/default-properties
///
/// Events here; `identify`, `group` and `alias` become profile and group
/// profile updates in side outputs of their own, and `$merge` /
/// `$create_alias` events (`MixpanelProfiles.swift`); `session` messages are
/// not routed here (counted `unsupported_type`).
///
/// Screens and pages are named by `screen_event` / `page_event` (default
/// `Viewed {name} Screen` / `Viewed {name} Page`); `{name}` is the message's
/// `name`, else `properties.name`, else `unnamed_screen` / `unnamed_page`
/// (default `Unknown`, counted `screen_name_defaulted` / `page_name_defaulted`).
public struct MixpanelDestination: Destination {
    public static let type = DestinationType(
        name: "mixpanel", extraKeys: ["screen_event", "page_event", "unnamed_screen", "unnamed_page", "revenue_property",
                                      "token", "identity", "set_once", "group_keys", "device_memory", "names"]
            + EcommerceSettings.keys,
        defaultRotation: {
            // [import] "up to 2000 events and 2MB uncompressed per request" (the
            // current page says 10 MB; 2 MB is safe under both). The body is the
            // file's lines as they are (application/x-ndjson): one file, one request.
            var rotation = RotationPolicy()
            rotation.maxEvents = 2000
            rotation.maxBytes = 2_000_000
            return rotation
        }(),
        rejectReasons: [.invalidDistinctID, .timeOutOfRange, .reservedEventName, .invalidAlias],
        // Product analytics: Segment's "Analytics" consent category.
        defaultConsentCategory: "Analytics",
        sideOutputs: MixpanelDestination.sideOutputKinds,
        // [import] api.mixpanel.com, api-eu.mixpanel.com (EU residency), api-in.mixpanel.com (India);
        // a service account names its project (`project_id`).
        send: SendSupport(keys: ["project_id"], regions: ["us", "eu", "in"]),
        delivery: MixpanelDestination.delivery
    ) { name, options, reader in
        MixpanelDestination(naming: ScreenNaming(options: options, destination: name, &reader),
                            ecommerce: EcommerceSettings(options: options, destination: name, &reader),
                            revenueProperty: MixpanelDestination.readRevenueProperty(options, destination: name, &reader),
                            identity: MixpanelIdentitySettings(options: options, destination: name, &reader),
                            deviceMemory: DeviceMemory.maxBytes(options: options, destination: name, &reader),
                            reservedNames: ReservedEventNames(provider: .mixpanel, options: options, destination: name, &reader))
    }

    /// [import] "distinct_id": the placeholder values Mixpanel refuses with a 400
    /// (the same list applies to `$insert_id`); compared case-insensitively.
    static let placeholderIDs: [[UInt8]] = [
        "00000000-0000-0000-0000-000000000000", "anon", "anonymous", "nil", "none", "null", "n/a", "na",
        "undefined", "unknown", "<nil>", "0", "-1", "true", "false", "[]", "{}",
    ].map { Array($0.utf8) }

    /// Whether `id` is one of the placeholders (at most 9 bytes, or the 36-byte zero UUID).
    static func isPlaceholder(_ id: Span<UInt8>) -> Bool {
        guard id.count <= 9 || id.count == 36 else { return false }
        for placeholder in placeholderIDs where ByteSpans.equalFoldingASCII(placeholder, id) { return true }
        return false
    }

    /// [types] "String properties have a limit of 255 bytes" (longer ones are
    /// truncated by Mixpanel; Sluice cuts them on a character boundary and counts it).
    static let maxStringBytes = 255
    /// [import] "Must have fewer than 255 properties" per event.
    static let maxProperties = 254

    /// Properties Sluice sets itself, and ones that make Mixpanel hide or drop
    /// the event without an error ([reserved]: `$ignore` drops it at ingestion,
    /// `$bucket`/`bucket` hide it; `token` is the project token): an event
    /// property of one of these names is left out (counted `reserved_property_dropped`).
    static let reserved: [[UInt8]] = [
        "time", "distinct_id", "$insert_id", "$device_id", "$user_id", "$duration", "token", "$ignore", "$bucket", "bucket",
    ].map { Array($0.utf8) }

    /// The first bytes of the reserved names, and `\\` (an escaped key may spell
    /// one): most keys are told apart from all of them by that byte alone.
    static let reservedFirstBytes = ByteSet("tdb$\\".utf8)
    /// The same for the names the context and the session become.
    static let derivedFirstBytes = ByteSet("$is\\".utf8)

    /// `context` fields and the Mixpanel default properties they become ([default]).
    /// An event property of the same name wins over the context's value.
    static let contextProperties: [(StaticString, EventFields.ContextField)] = [
        ("$os", .osName), ("$os_version", .osVersion), ("$model", .deviceModel), ("$manufacturer", .deviceManufacturer),
        ("$app_version_string", .appVersion), ("$app_build_number", .appBuild), ("ip", .ip),
    ]

    let naming: ScreenNaming
    /// `names:`: what becomes of an event named like Mixpanel's own (`$merge`, `mp_page_view`).
    let reservedNames: ReservedEventNames
    /// Spec money events and the property their amount goes in (`MixpanelRevenue.swift`).
    let ecommerce: EcommerceSettings
    let revenueProperty: [UInt8]
    /// `token`, `identity`, `set_once`, `group_keys` (`MixpanelIdentitySettings`).
    let identity: MixpanelIdentitySettings
    /// The groups each device joined, for its later events (`MixpanelProfileProperties.swift`).
    let groupMemory: DeviceMemory
    /// The groups each device joined, for its later events: what they mean depends on the `group_keys`.
    public var deviceMemory: (memory: DeviceMemory, signature: String)? {
        guard groupMemory.maxBytes > 0 else { return nil }
        let keys = identity.groupKeys.map { String(decoding: $0, as: UTF8.self) }
        return (groupMemory, "mixpanel {group_keys: [\(keys.joined(separator: ", "))]}")
    }
    /// Events that got the device's groups (counted per event: not a `ChangeCounts` look-up).
    var groupsAddedToEvents = 0
    var counts = ChangeCounts()
    private var name: [UInt8] = []

    static let takes = MessageTypes(.track, .screen, .page)
    public var supportedTypes: MessageTypes { MixpanelDestination.takes }
    public var changes: [(name: String, value: Int)] {
        counts.entries + (groupsAddedToEvents > 0 ? [("groups_added_to_events", groupsAddedToEvents)] : [])
    }

    init(naming: ScreenNaming, ecommerce: EcommerceSettings = EcommerceSettings(),
         revenueProperty: [UInt8] = Array(MixpanelDestination.defaultRevenueProperty.utf8),
         identity: MixpanelIdentitySettings = MixpanelIdentitySettings(), deviceMemory: Int = DeviceMemory.defaultMaxBytes,
         reservedNames: ReservedEventNames = ReservedEventNames(provider: .mixpanel)) {
        self.naming = naming
        self.reservedNames = reservedNames
        self.ecommerce = ecommerce
        self.revenueProperty = revenueProperty
        self.identity = identity
        groupMemory = DeviceMemory(maxBytes: deviceMemory)
    }

    public mutating func encode(_ event: Event, context: inout EncodingContext, into out: inout ByteBuffer) -> EncodeOutcome {
        let fields = context.fields(of: event)
        return encode(event, fields, context: &context, into: &out)
    }

    private mutating func encode(_ event: Event, _ fields: EventFields, context: inout EncodingContext,
                                 into out: inout ByteBuffer) -> EncodeOutcome {
        let document = event.document
        // [import] distinct_id is the user: `userId`, else `anonymousId`.
        guard let distinct = fields.userIdNode ?? fields.anonymousIdNode else {
            return .refused(Rejection(.invalidDistinctID, "no userId or anonymousId for distinct_id"))
        }
        if fields.withID(distinct, MixpanelDestination.isPlaceholder) {
            return .refused(Rejection(.invalidDistinctID, "distinct_id would be \"\(String(decoding: MessageIdentity.text(document, distinct), as: UTF8.self))\", a placeholder Mixpanel rejects"))
        }
        let timeMs = fields.time.milliseconds
        if let refusal = context.timeRefusal(.mixpanel, fields.time) { return .refused(refusal) }
        if naming.eventName(event, fields, into: &name) { counts.add(UnnamedNames.counter(event.type)) }
        if let refusal = reservedNames.apply(&name, provider: "Mixpanel", counts: &counts) { return .refused(refusal) }
        var record = JSONObjectEncoder()
        record.string("event", bytes: name, &out)
        record.key("properties", &out)
        var properties = JSONObjectEncoder()
        properties.integer("time", timeMs, &out)  // [import] seconds or milliseconds; ms keeps the precision
        properties.id("distinct_id", document, node: distinct, &out)
        properties.key("$insert_id", &out)
        context.appendInsertID(messageId: fields.messageIdNode, name: name, document: document, to: &out)
        var count = 3
        // Simplified ID Merge: $device_id and $user_id let Mixpanel join the anonymous and the signed-in user.
        if let anonymous = fields.anonymousIdNode {
            if fields.withID(anonymous, MixpanelDestination.isPlaceholder) {
                counts.add("placeholder_device_id_left_out")
            } else {
                properties.id("$device_id", document, node: anonymous, &out)
                count += 1
            }
        }
        if let user = fields.userIdNode {
            properties.id("$user_id", document, node: user, &out)
            count += 1
        }
        if case let .completed(durationMs?) = fields.timed {
            // [default] `$duration`: seconds, as the SDKs' time_event sets it.
            properties.key("$duration", &out)
            MixpanelDestination.appendSeconds(durationMs, to: &out)
            count += 1
        }
        let overridden = fields.properties.map { MixpanelDestination.derivedNamesPresent(document, $0) } ?? 0
        // In `contextProperties` order, written out rather than looped over the
        // table: a field looked up through the table cost an indirect jump each.
        count += appendContextProperty(0, "$os", fields.node(.osName), overridden, document, &properties, &out)
        count += appendContextProperty(1, "$os_version", fields.node(.osVersion), overridden, document, &properties, &out)
        count += appendContextProperty(2, "$model", fields.node(.deviceModel), overridden, document, &properties, &out)
        count += appendContextProperty(3, "$manufacturer", fields.node(.deviceManufacturer), overridden, document, &properties, &out)
        count += appendContextProperty(4, "$app_version_string", fields.node(.appVersion), overridden, document, &properties, &out)
        count += appendContextProperty(5, "$app_build_number", fields.node(.appBuild), overridden, document, &properties, &out)
        count += appendContextProperty(6, "ip", fields.node(.ip), overridden, document, &properties, &out)
        // Session data has no field of its own in Mixpanel (sessions are computed
        // at query time, optionally from a `session_id` property: docs/features/sessions).
        // Never a session that began after the event (an upstream `context.session`
        // saying so is not believed: counted, left out).
        var session = fields.session
        if let startMs = session?.startMs, startMs > timeMs {
            session = nil
            counts.add("session_after_event")
        }
        let sessionOverridden = overridden >> MixpanelDestination.contextProperties.count
        if sessionOverridden != 0 && session != nil { counts.add("context_property_overridden") }
        count += SessionAsProperties.append(session, document, skipping: sessionOverridden, to: &properties, &out)
        if (fields.mapped.present | fields.mapped.invalid) & MixpanelDestination.mappedFields != 0 {
            count += appendMappedContext(fields, count: count, &properties, &out)
        }
        if !revenueProperty.isEmpty, ecommerce.event(event)?.money != nil {
            count += appendRevenueProperty(fields, count: count, &properties, &out)
        }
        if !groupMemory.isEmpty { count += appendRememberedGroups(fields, count: count, &properties, &out) }
        if event.type == .page { count += appendPageCategory(fields, count: count, &properties, &out) }
        if let node = fields.properties {
            appendEventProperties(document, node, count: count, &properties, &out)
        }
        properties.close(&out)
        record.close(&out)
        out.append(UInt8(ascii: "\n"))
        return .records(1)
    }

    /// One `contextProperties` entry (`index`) for the context string at `node`, unless the
    /// event's own properties set that name (`overridden`); returns how many properties it wrote.
    @inline(__always)
    private mutating func appendContextProperty(_ index: Int, _ key: StaticString, _ node: Int?, _ overridden: Int,
                                                _ document: JSONDocument, _ properties: inout JSONObjectEncoder,
                                                _ out: inout ByteBuffer) -> Int {
        guard let node else { return 0 }
        if overridden & (1 << index) != 0 {
            counts.add("context_property_overridden")
            return 0
        }
        properties.key(key, &out)
        if TextLimit.appendString(document, node, maxBytes: MixpanelDestination.maxStringBytes, to: &out) {
            counts.add("string_cut")
        }
        return 1
    }

    private mutating func appendEventProperties<Out: ByteSink>(_ document: JSONDocument, _ node: Int, count: Int,
                                                _ properties: inout JSONObjectEncoder, _ out: inout Out) {
        var count = count
        document.forEachMember(of: node) { key, value in
            let isReserved = MixpanelDestination.reservedFirstBytes.contains(document.firstRawByte(key)) && document.withString(key) { name in
                name.count <= 11 && MixpanelDestination.reserved.contains { $0.elementsEqual(name) }
            } ?? false
            if isReserved {
                counts.add("reserved_property_dropped")
                return
            }
            if count >= MixpanelDestination.maxProperties {
                counts.add("property_dropped_over_limit")
                return
            }
            if document.decodedLength(key) <= MixpanelDestination.maxStringBytes {
                properties.key(document, node: key, &out)
            } else {
                // [types] property names are truncated at 255 bytes.
                document.withString(key) { name in
                    properties.key(bytes: name.prefix(TextLimit.prefixLength(name, maxBytes: MixpanelDestination.maxStringBytes)), &out)
                }
                counts.add("property_name_cut")
            }
            let cuts = MixpanelPropertyValue.event.append(document, value, to: &out)
            counts.add("string_cut", cuts.strings)
            counts.add("collection_cut", cuts.collections)
            count += 1
        }
    }

    /// A bit per derived property name (context, then session) that the event's own properties use.
    private static func derivedNamesPresent(_ document: JSONDocument, _ properties: Int) -> Int {
        var mask = 0
        document.forEachMember(of: properties) { key, _ in
            let length = document.decodedLength(key)
            guard length >= 2 && length <= 19, derivedFirstBytes.contains(document.firstRawByte(key)) else { return }
            for (index, (name, _)) in contextProperties.enumerated() where name.utf8CodeUnitCount == length {
                if document.string(key, is: name) { mask |= 1 << index }
            }
            for (index, name) in SessionAsProperties.names.enumerated() where name.utf8CodeUnitCount == length {
                if document.string(key, is: name) { mask |= 1 << (contextProperties.count + index) }
            }
        }
        return mask
    }

    /// Milliseconds as seconds with three decimals (`12.345`, `-0.500`), without Foundation.
    static func appendSeconds<Out: ByteSink>(_ milliseconds: Int64, to out: inout Out) {
        if milliseconds < 0 { out.append(UInt8(ascii: "-")) }
        let magnitude = milliseconds.magnitude
        appendInteger(Int64(magnitude / 1000), to: &out)
        out.append(UInt8(ascii: "."))
        let fraction = Int(magnitude % 1000)
        out.append(UInt8(ascii: "0") + UInt8(fraction / 100))
        out.append(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
        out.append(UInt8(ascii: "0") + UInt8(fraction % 10))
    }
}

extension RejectReason {
    /// Mixpanel: `distinct_id` would be a placeholder Mixpanel rejects.
    static let invalidDistinctID = RejectReason("invalid_distinct_id")
}
