import SluiceJSON

/// Amplitude's HTTP V2 / Batch event format: one event object per line, to be
/// wrapped as `{"api_key": ..., "events": [...]}` by the uploader (with
/// `"options": {"min_id_length": N}` when `min_id_length` is not 5).
///
/// Each rule below cites the page it comes from:
/// - [v2]: amplitude.com/docs/apis/analytics/http-v2 (amplitude-docs content/collections/api/en/http-v2.md)
/// - [batch]: amplitude.com/docs/apis/analytics/batch-event-upload
/// - [identify]: amplitude.com/docs/apis/analytics/identify
///
/// Takes `track`, `screen`, `page` and `identify`; `group` and `alias` become
/// a `$identify` with the group, group identifications and user mappings
/// (`AmplitudeIdentify.swift`); `session` is not routed here (counted `unsupported_type`).
///
/// Screens and pages are named by `screen_event` / `page_event` (default
/// `Viewed {name} Screen` / `Viewed {name} Page`); `{name}` is the message's
/// `name`, else `properties.name`, else `unnamed_screen` / `unnamed_page`
/// (default `Unknown`, counted `screen_name_defaulted` / `page_name_defaulted`).
public struct AmplitudeDestination: Destination {
    public static let type = DestinationType(
        name: "amplitude", extraKeys: ["min_id_length", "screen_event", "page_event", "unnamed_screen", "unnamed_page",
                                       "set_once", "group_type_trait", "group_value_trait", "user_mapping", "names"]
            + AmplitudeDestination.revenueKeys + EcommerceSettings.keys,
        defaultRotation: {
            // [v2] "Keep request sizes under 1 MB with fewer than 2000 events per
            // request" (413 otherwise; the newer page: "up to 2,000 events"). The
            // request is the file's lines joined by commas inside
            // `{"api_key":…,"events":[…],"options":…}`: 1 KB is left for that envelope.
            var rotation = RotationPolicy()
            rotation.maxEvents = AmplitudeDestination.maxRequestEvents
            rotation.maxBytes = AmplitudeDestination.maxRequestBytes
            return rotation
        }(),
        rejectReasons: [.missingUserOrDeviceID, .timeOutOfRange, .reservedEventName, .invalidAlias],
        // Product analytics: Segment's "Analytics" consent category.
        defaultConsentCategory: "Analytics",
        sideOutputs: AmplitudeDestination.sideOutputKinds,
        // [v2] api2.amplitude.com; EU residency api.eu.amplitude.com. `api: batch` sends to
        // the Batch API (/batch) instead of HTTP V2 (/2/httpapi); requests repeat `min_id_length`.
        send: SendSupport(keys: ["api"], regions: ["us", "eu"], destinationKeys: ["min_id_length"]),
        delivery: AmplitudeDestination.delivery
    ) { name, options, reader in
        var minimum = 5
        if let node = options["min_id_length"],
           let value = reader.integer(node, what: "destinations.\(name).min_id_length", range: 1...1024) {
            minimum = value
        }
        let (revenue, productEvent) = AmplitudeDestination.readRevenueOptions(options, destination: name, &reader)
        return AmplitudeDestination(minIDLength: minimum, naming: ScreenNaming(options: options, destination: name, &reader),
                                    ecommerce: EcommerceSettings(options: options, destination: name, &reader),
                                    revenue: revenue, productEvent: productEvent,
                                    identity: AmplitudeIdentitySettings(options: options, destination: name, &reader),
                                    reservedNames: ReservedEventNames(provider: .amplitude, options: options, destination: name, &reader))
    }

    /// [v2] "Invalid IDs that result in a 400 error"; compared case-insensitively
    /// and left out like short ids (the empty id on that list never gets here).
    /// The all-zero UUID is also the IDFA with Limit Ad Tracking on ([v2] "All-zero device IDs").
    static let rejectedIDs: [[UInt8]] = [
        "anonymous", "nil", "none", "null", "n/a", "na", "undefined", "unknown",
        "00000000-0000-0000-0000-000000000000", "{}", "lmy47d", "0", "-1",
    ].map { Array($0.utf8) }
    static let rejectedLengths: UInt64 = rejectedIDs.reduce(0) { $0 | 1 << UInt64($1.count) }

    /// [v2] "Keep request sizes under 1 MB with fewer than 2000 events per request", 1 KB kept for the envelope.
    static let maxRequestEvents = 2000
    static let maxRequestBytes = 1_000_000 - 1024

    /// [v2] "All string values, like user_id, event, or user property values,
    /// have a character limit of 1024 characters."
    static let maxStringCharacters = 1024

    let minIDLength: Int
    let naming: ScreenNaming
    /// `names:`: what becomes of an event named like Amplitude's own (`[Amplitude] Revenue`, `$identify`).
    let reservedNames: ReservedEventNames
    /// `set_once`, `group_type_trait`, `group_value_trait`, `user_mapping` (`AmplitudeIdentify.swift`).
    let identity: AmplitudeIdentitySettings
    var setOnce: [[UInt8]] { identity.setOnce }
    var groupTypeTrait: [UInt8]? { identity.groupTypeTrait }
    var groupValueTrait: [UInt8]? { identity.groupValueTrait }
    var userMapping: Bool { identity.userMapping }
    var counts = ChangeCounts()
    private var name: [UInt8] = []
    /// Spec ecommerce events and their revenue fields (`AmplitudeRevenue.swift`).
    let ecommerce: EcommerceSettings
    let revenue: RevenueMode
    /// `product_event`: the event each product of an order becomes with `revenue: per_product`.
    let productEvent: [UInt8]
    /// The message being encoded, when it is a spec event; a product event's insert id name.
    var revenueEvent: EcommerceEvent?
    var insertName: [UInt8] = []
    /// Where the message's first record starts in the output (its records fit one request).
    var recordStart = 0

    static let takes = MessageTypes(.track, .screen, .page, .identify)
    public var supportedTypes: MessageTypes { AmplitudeDestination.takes }
    public var changes: [(name: String, value: Int)] { counts.entries }

    init(minIDLength: Int, naming: ScreenNaming, ecommerce: EcommerceSettings = EcommerceSettings(),
         revenue: RevenueMode = .perProduct, productEvent: String = AmplitudeDestination.defaultProductEvent,
         identity: AmplitudeIdentitySettings = AmplitudeIdentitySettings(),
         reservedNames: ReservedEventNames = ReservedEventNames(provider: .amplitude)) {
        self.minIDLength = minIDLength
        self.reservedNames = reservedNames
        self.naming = naming
        self.ecommerce = ecommerce
        self.revenue = revenue
        self.productEvent = Array(productEvent.utf8)
        self.identity = identity
    }

    /// Whether an id is one Amplitude keeps: [v2] "Device IDs and User IDs must
    /// be strings with a length of 5 characters or more ... If an event contains
    /// a device ID or user ID that's too short, the ID value is removed from the
    /// event" (`min_id_length` overrides the 5), and not on the rejected list.
    static func isUsableID(_ id: Span<UInt8>, minIDLength: Int) -> Bool {
        // Characters are never more than bytes: only short ids need counting.
        if id.count < minIDLength || (id.count < minIDLength * 4 && TextLimit.scalarCount(id) < minIDLength) { return false }
        // Only ids of a rejected id's length are compared (a bit per length, 0-36).
        guard id.count <= 36, AmplitudeDestination.rejectedLengths & (1 << UInt64(id.count)) != 0 else { return true }
        for rejected in AmplitudeDestination.rejectedIDs where ByteSpans.equalFoldingASCII(rejected, id) { return false }
        return true
    }

    public mutating func encode(_ event: Event, context: inout EncodingContext, into out: inout ByteBuffer) -> EncodeOutcome {
        let fields = context.fields(of: event)
        return encode(event, fields, context: &context, into: &out)
    }

    private mutating func encode(_ event: Event, _ fields: EventFields, context: inout EncodingContext,
                                 into out: inout ByteBuffer) -> EncodeOutcome {
        guard let (user, device) = usableIDs(fields) else { return .refused(missingIDs) }
        if let refusal = context.timeRefusal(.amplitude, fields.time) { return .refused(refusal) }
        if event.type == .identify {
            // [identify] / [v2]: user property operations ride on the `$identify` event.
            name.removeAll(keepingCapacity: true)
            name.append(contentsOf: "$identify".utf8)
        } else {
            if naming.eventName(event, fields, into: &name) { counts.add(UnnamedNames.counter(event.type)) }
            if let refusal = reservedNames.apply(&name, provider: "Amplitude", counts: &counts) { return .refused(refusal) }
        }
        revenueEvent = event.type == .identify ? nil : ecommerce.event(event)
        recordStart = out.count
        appendRecord(event, fields, user: user, device: device, product: nil, context: &context, into: &out)
        // [segment-amplitude] with revenue per product, an order's products follow it, one event each.
        guard revenueEvent != nil else { return .records(1) }
        return .records(1 + appendProductRecords(event, fields, user: user, device: device, context: &context, into: &out))
    }

    /// One event record: the message's own (`product` nil), or one for a product of an order.
    @inline(__always)
    mutating func appendRecord(_ event: Event, _ fields: EventFields, user: Int?, device: Int?, product: (node: Int, index: Int)?,
                               context: inout EncodingContext, into out: inout ByteBuffer) {
        let document = fields.document
        var record = JSONObjectEncoder()
        record.key("event_type", &out)
        if product != nil {
            if TextLimit.appendCut(productEvent, maxScalars: AmplitudeDestination.maxStringCharacters, to: &out) { counts.add("string_cut") }
        } else if TextLimit.appendCut(name, maxScalars: AmplitudeDestination.maxStringCharacters, to: &out) {
            counts.add("string_cut")
        }
        if let user { record.id("user_id", document, node: user, &out) }
        if let device { record.id("device_id", document, node: device, &out) }
        // [v2] "You must send the time parameter in each event as millisecond since epoch."
        record.integer("time", fields.time.milliseconds, &out)
        record.integer("session_id", sessionID(fields), &out)
        // [v2] "Event deduplication": the same insert_id on the same device within 7 days is ignored.
        record.key("insert_id", &out)
        if let product {
            context.appendInsertID(messageId: fields.messageIdNode, name: productInsertName(product.index), document: document, to: &out)
        } else {
            context.appendInsertID(messageId: fields.messageIdNode, name: name, document: document, to: &out)
        }
        if event.type == .identify {
            record.key("user_properties", &out)
            appendIdentifyOperations(fields, &out)
        } else {
            record.key("event_properties", &out)
            if let product {
                appendObject(document, product.node, &out)
            } else if revenueEvent != nil {
                appendEventProperties(document, fields.properties, &out)
            } else {
                appendObject(document, fields.properties, &out)
            }
            appendUserProperties(fields, &record, &out)
        }
        // Segment `context` fields and the Amplitude event fields they become ([v2]
        // "Keys for the event argument"), written out rather than looped over a
        // table: a field looked up through a table cost an indirect jump each.
        appendContextField("platform", fields.node(.osName), document, &record, &out)
        appendContextField("os_name", fields.node(.osName), document, &record, &out)
        appendContextField("os_version", fields.node(.osVersion), document, &record, &out)
        appendContextField("device_model", fields.node(.deviceModel), document, &record, &out)
        appendContextField("device_manufacturer", fields.node(.deviceManufacturer), document, &record, &out)
        appendContextField("app_version", fields.node(.appVersion), document, &record, &out)
        appendContextField("ip", fields.node(.ip), document, &record, &out)
        if (fields.mapped.present | fields.mapped.invalid) & AmplitudeDestination.mappedFields != 0 {
            appendMappedContext(fields, &record, &out)
        }
        if revenueEvent != nil { appendRevenueFields(fields, product: product?.node, &record, &out) }
        record.close(&out)
        out.append(UInt8(ascii: "\n"))
    }

    /// What `encode` would predictably do to a planned message: a track named like
    /// Amplitude's own events renamed or refused (`ReservedEventNames`).
    public func lint(_ message: PlannedMessage) -> [LintFinding] {
        reservedNames.lint(message, provider: "Amplitude")
    }

    /// Copies an object (`{}` when absent) with every string in it, at any depth, cut to 1024 characters.
    mutating func appendObject<Out: ByteSink>(_ document: JSONDocument, _ node: Int?, _ out: inout Out) {
        guard let node else {
            out.append(UInt8(ascii: "{"))
            out.append(UInt8(ascii: "}"))
            return
        }
        counts.add("string_cut", TextLimit.appendValue(document, node, maxScalars: AmplitudeDestination.maxStringCharacters, to: &out))
    }

    /// The context string at `node`, if any, under `key`, cut to 1024 characters.
    @inline(__always)
    mutating func appendContextField(_ key: StaticString, _ node: Int?, _ document: JSONDocument,
                                             _ record: inout JSONObjectEncoder, _ out: inout ByteBuffer) {
        guard let node else { return }
        record.key(key, &out)
        if TextLimit.appendString(document, node, maxScalars: AmplitudeDestination.maxStringCharacters, to: &out) {
            counts.add("string_cut")
        }
    }
}

extension RejectReason {
    /// Amplitude: neither `user_id` nor `device_id` is an id Amplitude keeps.
    static let missingUserOrDeviceID = RejectReason("missing_user_or_device_id")
}
