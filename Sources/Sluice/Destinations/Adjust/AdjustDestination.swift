import SluiceJSON

/// Adjust's server-to-server events (`https://s2s.adjust.com/event`), one
/// request's parameters per line as a JSON object:
/// `{"s2s": 1, "app_token", "event_token", "created_at_unix", "environment",
///   device id(s), "ip_address", "callback_params", "partner_params", "revenue", "currency"}`
/// (the uploader sends each line as one request's form or URL parameters,
/// the two params objects URL-encoded as JSON).
///
/// Each rule below cites the page it comes from:
/// - [s2s]: dev.adjust.com/en/api/s2s-api/events (adjust/dev-docs api/s2s-api/events.mdx)
/// - [s2s-ids]: dev.adjust.com/en/api/s2s-api (device identifiers)
/// - [sdk-token]: Adjust iOS/Android SDK 4.x `ADJEvent` / `AdjustEvent` checkEventToken
///   ("Malformed Event Token" for a length other than 6)
/// - [campaign]: dev.adjust.com/en/api/campaign-api ("app token ... MUST be 12 characters")
/// - [s2s-guide]: dev.adjust.com/en/api/s2s-api/s2s-developer-guide (adjust/dev-docs
///   api/s2s-api/s2s-developer-guide.mdx, "Device IDs and tracking statuses")
/// - [att]: Apple AppTrackingTransparency, ATTrackingManager.h: `ATTrackingManagerAuthorizationStatus`
///   NotDetermined = 0, Restricted = 1, Denied = 2, Authorized = 3
/// - [segment]: segment-docs connections/spec/common.md (`context.device.adTrackingEnabled`);
///   `context.device.attTrackingStatus` is that integer as RudderStack's iOS SDK sends it
///   (rudder-sdk-ios CHANGELOG 1.6.4)
///
/// Only `track` events named in `tokens:` are sent; the rest are not routed
/// here (counted `unsupported_type` / `unsupported_event`: the seed design's
/// `isEventNameSupported`). [s2s] Adjust refuses events older than 58 days and
/// a device's events whose time goes backwards: Sluice keeps input order and
/// cannot know when a file will be uploaded, so docs/destinations.md says so.
public struct AdjustDestination: Destination {
    public static let type = DestinationType(
        name: "adjust", extraKeys: ["app_token", "tokens", "environment", "partner_params"] + EcommerceSettings.keys,
        defaultRotation: RotationPolicy(),
        rejectReasons: [.unsupportedEvent, .timeOutOfRange],
        // Attribution for marketing: Segment's "Advertising" consent category.
        defaultConsentCategory: "Advertising",
        // [s2s] s2s.adjust.com/event (one endpoint; a residency proxy is an `--endpoint`).
        send: SendSupport(regions: ["global"]),
        delivery: AdjustDestination.delivery
    ) { name, options, reader in
        AdjustDestination.make(name: name, options: options, &reader)
    }

    let appToken: String
    let tokens: TokenTable
    let environment: String
    let partnerParams: [[UInt8]]
    /// `revenue_from`, and which spec events are refunds (no revenue to Adjust).
    let ecommerce: EcommerceSettings
    private var counts = ChangeCounts()

    static let takes = MessageTypes(.track)
    public var supportedTypes: MessageTypes { AdjustDestination.takes }
    public var changes: [(name: String, value: Int)] { counts.entries }

    init(appToken: String, tokens: [[UInt8]: [UInt8]], environment: String, partnerParams: [String],
         ecommerce: EcommerceSettings = EcommerceSettings()) {
        self.appToken = appToken
        self.tokens = TokenTable(tokens)
        self.environment = environment
        self.partnerParams = partnerParams.map { Array($0.utf8) }
        self.ecommerce = ecommerce
    }

    public func skipReason(for event: Event) -> String? {
        guard event.type == .track else { return "unsupported_type" }
        return tokens[event.name] == nil ? "unsupported_event" : nil
    }

    /// [s2s-ids] the all-zero IDFA / advertising id a device sends when ad tracking is limited.
    static let zeroAdvertisingID: [UInt8] = Array("00000000-0000-0000-0000-000000000000".utf8)

    public mutating func encode(_ event: Event, context: inout EncodingContext, into out: inout ByteBuffer) -> EncodeOutcome {
        guard let token = tokens[event.name] else {
            return .refused(Rejection(.unsupportedEvent, "no Adjust event token for \"\(event.nameString)\""))
        }
        let fields = context.fields(of: event)
        if let refusal = context.timeRefusal(.adjust, fields.time) { return .refused(refusal) }
        let document = fields.document
        guard let identity = fields.anonymousIdNode ?? fields.userIdNode else {
            return .refused(Rejection(.missingIdentity, "no anonymousId or userId to derive a device id from"))
        }
        var record = JSONObjectEncoder()
        record.integer("s2s", 1, &out)                       // [s2s] "s2s=1": required
        record.string("app_token", appToken, &out)
        record.string("event_token", bytes: token, &out)
        // [s2s] created_at_unix: seconds (recommended over created_at).
        record.integer("created_at_unix", fields.time.microseconds / 1_000_000, &out)
        record.string("environment", environment, &out)
        // [s2s-ids] a device id is required: idfa / gps_adid (advertising ids),
        // else idfv / android_id; `idfv` uppercase with hyphens, `android_id` lowercase without.
        let isApple = fields.node(.osName).map { node in
            fields.withBytes(node) { os in
                AdjustDestination.appleSystems.contains { system in system.count == os.count && system.indices.allSatisfy { system[$0] == (os[$0] | 0x20) } }
            }
        } ?? false
        var hasDevice = false
        if let node = fields.node(.advertisingID), document.decodedLength(node) > 0 {
            if fields.withBytes(node, { ByteSpans.equal($0, AdjustDestination.zeroAdvertisingID) }) {
                counts.add("zero_advertising_id_left_out")
            } else {
                record.raw(isApple ? "idfa" : "gps_adid", document, node: node, &out)
                hasDevice = true
            }
        }
        if let node = fields.node(.deviceID), document.decodedLength(node) > 0 {
            record.key(isApple ? "idfv" : "android_id", &out)
            out.append(UInt8(ascii: "\""))
            fields.withBytes(node) { id in
                for index in id.indices {
                    let byte = id[index]
                    if isApple {
                        out.append(byte >= 97 && byte <= 122 ? byte - 32 : byte)
                    } else if byte != UInt8(ascii: "-") {
                        out.append(byte >= 65 && byte <= 90 ? byte + 32 : byte)
                    }
                }
            }
            out.append(UInt8(ascii: "\""))
            hasDevice = true
        }
        if !hasDevice {
            // [s2s-ids] `web_uuid` (a UUID v4) for devices without platform ids: stable, from the identity.
            record.key("web_uuid", &out)
            out.append(UInt8(ascii: "\""))
            fields.withID(identity) { InsertID.appendUUIDv4(of: $0, to: &out) }
            out.append(UInt8(ascii: "\""))
            counts.add("web_uuid_derived")
        }
        if let context = fields.context, let device = document.member("device", of: context) {
            appendTrackingStatus(document, device, &record, &out)
        }
        // [s2s] ip_address: IPv4 only.
        if let node = fields.node(.ip), fields.withBytes(node, { ByteSpans.firstIndex(of: UInt8(ascii: "."), in: $0) != nil && ByteSpans.firstIndex(of: UInt8(ascii: ":"), in: $0) == nil }) {
            record.raw("ip_address", document, node: node, &out)
        }
        if let properties = fields.properties {
            // [s2s] "callback_params" / "partner_params": JSON objects of string to string, no nesting.
            record.key("callback_params", &out)
            appendStringMap(document, properties, only: nil, &out)
            if !partnerParams.isEmpty {
                // Left out when the event has none of the listed properties.
                let start = out.count
                record.key("partner_params", &out)
                if appendStringMap(document, properties, only: partnerParams, &out) == 0 { out.removeSubrange(start...) }
            }
            if ecommerce.event(event)?.money == .refund {
                // [s2s] revenue is what an event earned, at least 0.001: a refund earned nothing.
                if ecommerce.amount(document, properties) != nil { counts.add("refund_revenue_left_out") }
            } else {
                appendRevenue(document, properties, &record, &out)
            }
        }
        record.close(&out)
        out.append(UInt8(ascii: "\n"))
        return .records(1)
    }

    static let appleSystems: [[UInt8]] = ["ios", "ipados", "tvos", "watchos", "macos"].map { Array($0.utf8) }

    /// [s2s] revenue: `revenue` in full currency units (at least 0.001) with
    /// `currency` (ISO 4217), from the order's amount (`revenue_from`: `revenue`, else
    /// `value`, else `total`), or `price` × `quantity` (`quantity` 1 when absent).
    /// Each is a JSON number or a string spelled as one (`"20.37566"`: [s2s] sends every
    /// parameter as text, and apps often send revenue so; nothing around the number is
    /// trimmed: `MoneyAmount`). A value that is neither (`"20,37"`, `" 5"`, `true`),
    /// negative, not finite (`1e400`) or too large to write (`MoneyAmount.maxAmount`) is
    /// left out, counted `revenue_invalid`; `null` and `""` count as absent.
    private mutating func appendRevenue<Out: ByteSink>(_ document: JSONDocument, _ properties: Int, _ record: inout JSONObjectEncoder,
                                        _ out: inout Out) {
        var revenue: Double
        switch ecommerce.amount(document, properties)?.amount ?? .absent {
        case .value(let value):
            revenue = value
        case .invalid:
            counts.add("revenue_invalid")
            return
        case .absent:
            let price = MoneyAmount.amount(document, document.member("price", of: properties))
            let quantity = MoneyAmount.amount(document, document.member("quantity", of: properties))
            switch (price, quantity) {
            case (.absent, _):
                return
            case (.invalid, _), (_, .invalid):
                counts.add("revenue_invalid")
                return
            case (.value(let price), .value(let quantity)):
                revenue = price * quantity
            case (.value(let price), .absent):
                revenue = price
            }
        }
        guard revenue.isFinite && revenue < MoneyAmount.maxAmount else {
            counts.add("revenue_invalid")
            return
        }
        // `eur` is taken and written `EUR`, as GA4 and Amplitude take it (`MoneyAmount.isCurrency`).
        guard let currency = document.member("currency", of: properties), MoneyAmount.isCurrency(document, currency) else {
            counts.add("revenue_without_currency")
            return
        }
        guard revenue >= 0.001 else {
            counts.add("revenue_below_minimum")
            return
        }
        record.key("revenue", &out)
        out.append(contentsOf: MoneyAmount.formatAmount(revenue).utf8)
        record.key("currency", &out)
        MoneyAmount.appendCurrency(document, currency, to: &out)
    }

    /// The device's tracking consent, where the event has it:
    /// - `context.device.attTrackingStatus`, an integer 0-3 ([att]), as `att_status`
    ///   ([s2s-guide]: `params["att_status"] = String(attStatus.rawValue)`);
    /// - else `context.device.adTrackingEnabled` ([segment], a boolean) as `tracking_enabled`,
    ///   1 or 0 ([s2s-guide]: `params["tracking_enabled"] = trackingEnabled ? "1" : "0"`).
    /// [s2s-guide] "Include ATT status if available, otherwise include tracking enabled
    /// status, never both." A value of another kind or range is left out, counted
    /// `att_status_invalid` / `tracking_enabled_invalid`; `null` and `""` count as absent.
    private mutating func appendTrackingStatus<Out: ByteSink>(_ document: JSONDocument, _ device: Int,
                                               _ record: inout JSONObjectEncoder, _ out: inout Out) {
        var att: Int?, adTracking: Int?
        document.forEachMember(of: device) { key, value in
            // Both names have 17 bytes: one length check skips every other member.
            guard document.decodedLength(key) == 17 else { return }
            if att == nil, document.string(key, is: "attTrackingStatus") { att = value }
            else if adTracking == nil, document.string(key, is: "adTrackingEnabled") { adTracking = value }
        }
        if let att, !AdjustDestination.isAbsent(document, att) {
            if let status = EventFields.integer(document, att), (0...3).contains(status) {
                record.integer("att_status", status, &out)
                return
            }
            counts.add("att_status_invalid")
        }
        if let adTracking, !AdjustDestination.isAbsent(document, adTracking) {
            switch document.kind(adTracking) {
            case .true: record.integer("tracking_enabled", 1, &out)
            case .false: record.integer("tracking_enabled", 0, &out)
            default: counts.add("tracking_enabled_invalid")
            }
        }
    }

    /// `null` or `""`: a field that is there but says nothing, so nothing is sent for it.
    static func isAbsent(_ document: JSONDocument, _ node: Int) -> Bool {
        let kind = document.kind(node)
        return kind == .null || (kind == .string && document.decodedLength(node) == 0)
    }

    /// Properties as `{"key": "text"}`: strings as they are, numbers and booleans
    /// as their JSON text, objects and arrays as their JSON text (counted
    /// `nested_param_stringified`), nulls left out (counted `null_param_dropped`).
    @discardableResult
    private mutating func appendStringMap<Out: ByteSink>(_ document: JSONDocument, _ object: Int, only: [[UInt8]]?, _ out: inout Out) -> Int {
        var map = JSONObjectEncoder()
        var count = 0
        document.forEachMember(of: object) { key, value in
            if let only, !(document.withString(key) { name in only.contains { $0.elementsEqual(name) } } ?? false) { return }
            let kind = document.kind(value)
            switch kind {
            case .null:
                counts.add("null_param_dropped")
                return
            case .string:
                map.key(document, node: key, &out)
                document.appendRaw(value, to: &out)
            case .object, .array:
                counts.add("nested_param_stringified")
                map.key(document, node: key, &out)
                var text: [UInt8] = []
                document.write(node: value, to: &text)
                JSONString.appendQuoted(text, to: &out)
            case .number, .true, .false:
                map.key(document, node: key, &out)
                out.append(UInt8(ascii: "\""))
                document.appendRaw(value, to: &out)
                out.append(UInt8(ascii: "\""))
            }
            count += 1
        }
        map.close(&out)
        return count
    }
}

extension RejectReason {
    /// Adjust: no event token for the name (only when called without `skipReason`).
    static let unsupportedEvent = RejectReason("unsupported_event")
}
