import Yams

/// Adjust's server-to-server events (`https://s2s.adjust.com/event`), one
/// request's parameters per line as a JSON object:
/// `{"s2s": 1, "app_token", "event_token", "created_at_unix", device id(s),
///   "callback_params", "partner_params", "revenue", "currency"}`.
///
/// Rules, from Adjust's S2S docs (dev.adjust.com/en/api/s2s-api/events):
/// - `app_token` is 12 alphanumerics, event tokens 6 (the SDKs refuse other
///   lengths: "Malformed Event Token"); both are checked when the pipeline loads.
/// - Only events mapped in `tokens:` are sent; the rest are not routed here
///   (counted `unsupported_event`), the seed design's `isEventNameSupported`.
/// - A device id is required: `idfa` / `gps_adid` from `context.device.advertisingId`,
///   `idfv` / `android_id` from `context.device.id` (by `context.os.name`), and
///   otherwise `web_uuid`, a stable UUID derived from `anonymousId` (counted).
/// - `callback_params` / `partner_params` are objects of string to string, no
///   nesting: values are written as text (nested values as their JSON).
/// - Revenue (`revenue` in full units, `currency` ISO 4217) from the properties
///   `revenue`, or `price` × `quantity`, with `currency`.
/// - Adjust refuses events older than 58 days and per-device timestamps that go
///   backwards; Sluice keeps file order as input order and does not reorder.
public struct AdjustDestination: Destination {
    public static let type = DestinationType(
        name: "adjust", extraKeys: ["app_token", "tokens", "environment", "partner_params"],
        defaultRotation: RotationPolicy()
    ) { name, options, reader in
        var ok = true
        var appToken = ""
        if let node = options["app_token"], let text = reader.string(node, what: "destinations.\(name).app_token") {
            if !AdjustDestination.isToken(text, length: 12) {
                reader.error(node, "destinations.\(name).app_token must be 12 letters and digits (Adjust's app token), not '\(text)'")
                ok = false
            }
            appToken = text
        } else if options["app_token"] == nil {
            reader.error(nil, "destination '\(name)' (adjust) needs `app_token:`")
            ok = false
        }
        var tokens: [[UInt8]: [UInt8]] = [:]
        if let node = options["tokens"] {
            if let mapping = node.mapping {
                for (key, value) in mapping {
                    guard let event = key.scalar?.string, let token = value.scalar?.string else {
                        reader.error(key, "destinations.\(name).tokens maps event names to tokens")
                        ok = false
                        continue
                    }
                    if !AdjustDestination.isToken(token, length: 6) {
                        reader.error(value, "destinations.\(name).tokens.\(event) must be 6 letters and digits (an Adjust event token), not '\(token)'")
                        ok = false
                    }
                    tokens[Array(event.utf8)] = Array(token.utf8)
                }
            } else {
                reader.error(node, "destinations.\(name).tokens must map event names to 6-character tokens")
                ok = false
            }
        } else {
            reader.error(nil, "destination '\(name)' (adjust) needs `tokens:` (event name → 6-character event token)")
            ok = false
        }
        var environment = "production"
        if let node = options["environment"], let text = reader.string(node, what: "destinations.\(name).environment") {
            if text != "production" && text != "sandbox" {
                reader.error(node, "destinations.\(name).environment must be production or sandbox")
                ok = false
            }
            environment = text
        }
        var partner: [String] = []
        if let node = options["partner_params"], let list = reader.strings(node, what: "destinations.\(name).partner_params") {
            partner = list
        }
        guard ok else { return nil }
        return AdjustDestination(appToken: appToken, tokens: tokens, environment: environment, partnerParams: Set(partner))
    }

    static func isToken(_ text: String, length: Int) -> Bool {
        text.utf8.count == length && text.unicodeScalars.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit }
    }

    let appToken: String
    let tokens: [[UInt8]: [UInt8]]
    let environment: String
    let partnerParams: Set<String>
    private var counts = ChangeCounts()

    static let takes: Set<MessageType> = [.track]
    public var supportedTypes: Set<MessageType> { AdjustDestination.takes }
    public var changes: [(name: String, value: Int)] { counts.entries }

    init(appToken: String, tokens: [[UInt8]: [UInt8]], environment: String, partnerParams: Set<String>) {
        self.appToken = appToken
        self.tokens = tokens
        self.environment = environment
        self.partnerParams = partnerParams
    }

    public func skipReason(for event: Event) -> String? {
        guard event.type == .track else { return "unsupported_type" }
        return tokens[event.name] == nil ? "unsupported_event" : nil
    }

    public mutating func encode(_ event: Event, into out: inout [UInt8]) -> EncodeOutcome {
        guard let token = tokens[event.name] else {
            return .refused(Rejection(.unsupportedEvent, "no Adjust event token for \"\(event.nameString)\""))
        }
        let fields = EventFields(event)
        let document = fields.document
        var record = JSONObjectEncoder()
        record.integer("s2s", 1, &out)
        record.string("app_token", appToken, &out)
        record.string("event_token", bytes: token, &out)
        record.integer("created_at_unix", fields.time.microseconds / 1_000_000, &out)
        record.string("environment", environment, &out)
        let os = fields.contextString(JSONPath("os.name"))?.lowercased() ?? ""
        let isApple = os == "ios" || os == "ipados" || os == "tvos"
        var hasDevice = false
        if let advertising = fields.contextString(JSONPath("device.advertisingId")), !advertising.isEmpty {
            record.string(isApple ? "idfa" : "gps_adid", advertising, &out)
            hasDevice = true
        }
        if let device = fields.contextString(JSONPath("device.id")), !device.isEmpty {
            // Adjust: idfv uppercase with hyphens, android_id lowercase without.
            if isApple {
                record.string("idfv", device.uppercased(), &out)
            } else {
                record.string("android_id", device.lowercased().replacingAll("-", with: ""), &out)
            }
            hasDevice = true
        }
        if !hasDevice {
            guard let anonymous = fields.anonymousId ?? fields.userId else {
                return .refused(Rejection(.missingDeviceID, "no device id for Adjust"))
            }
            let (high, low) = anonymous.withUnsafeBytes {
                (StableHash.hash($0, seed: StableHash.seedA), StableHash.hash($0, seed: StableHash.seedB))
            }
            record.string("web_uuid", bytes: InsertID.uuidShaped(high, low), &out)
            counts.add("web_uuid_derived")
        }
        if let ip = fields.contextString(JSONPath("ip")), ip.contains("."), !ip.contains(":") {
            record.string("ip_address", ip, &out)
        }
        var revenue: Double?
        var currency: String?
        if let properties = fields.properties {
            record.key("callback_params", &out)
            appendStringMap(document, properties, only: nil, &out)
            if !partnerParams.isEmpty {
                record.key("partner_params", &out)
                appendStringMap(document, properties, only: partnerParams, &out)
            }
            if let node = document.member("revenue", of: properties) {
                revenue = EventFields.double(document, node)
            } else if let node = document.member("price", of: properties), let price = EventFields.double(document, node) {
                let quantity = document.member("quantity", of: properties).flatMap { EventFields.double(document, $0) } ?? 1
                revenue = price * quantity
            }
            currency = document.member("currency", of: properties).flatMap { document.string($0) }
        }
        if let revenue, let currency, revenue >= 0.001 {
            record.key("revenue", &out)
            out.append(contentsOf: AdjustDestination.formatAmount(revenue).utf8)
            record.string("currency", currency, &out)
        }
        record.close(&out)
        out.append(UInt8(ascii: "\n"))
        return .records(1)
    }

    /// Properties as `{"key": "text"}`: strings as they are, other values as their JSON text.
    private func appendStringMap(_ document: JSONDocument, _ object: Int, only: Set<String>?, _ out: inout [UInt8]) {
        var map = JSONObjectEncoder()
        for (key, value) in document.members(of: object) {
            let name = document.withString(key) { Array($0) } ?? []
            if let only, !only.contains(String(decoding: name, as: UTF8.self)) { continue }
            let kind = document.tape[value].kind
            if kind == .null { continue }
            map.key(bytes: name, &out)
            if kind == .string {
                out.append(contentsOf: document.rawBytes(value))
            } else {
                var text: [UInt8] = []
                document.write(node: value, to: &text)
                JSONString.appendQuoted(text, to: &out)
            }
        }
        map.close(&out)
    }

    /// Up to 4 decimals, no exponent, no trailing zeros.
    static func formatAmount(_ value: Double) -> String {
        let scaled = Int64((value * 10_000).rounded())
        var text = "\(scaled / 10_000)"
        var fraction = pad(Int(scaled % 10_000), 4)
        while fraction.hasSuffix("0") { fraction.removeLast() }
        if !fraction.isEmpty { text += "." + fraction }
        return text
    }
}
