import Yams

/// GA4 Measurement Protocol (app streams with `app_instance_id`, web streams
/// with `client_id`): one request body per line,
/// `{"app_instance_id", "user_id", "timestamp_micros", "user_properties", "events": [{"name", "params"}]}`.
///
/// Rules, from developers.google.com/analytics/devguides/collection/protocol/ga4
/// ("Sending events", "Limitations", "Reference"):
/// - at most 25 events per request (a line here holds one or two), 25 params per
///   event, param names 40 characters, values 100 characters (`page_title` 300,
///   `page_referrer` 420, `page_location` 1000); 25 user properties, names 24,
///   values 36; no null, object or array param values (objects are flattened one
///   level as `parent_child`, the rest dropped; every change counted).
/// - `app_instance_id` must be 32 hex digits: an `anonymousId` that is not is
///   hashed into one (stable, counted).
/// - `session_id` and `engagement_time_msec` (at least 1) go in every event's
///   params, or the event misses GA4's session reports; they come from the
///   `session` stage.
/// - GA4 has no timed events: `timed: split` sends `NAME_start` and `NAME_stop`
///   (the stop with `duration_ms`), `timed: duration` one event with `duration_ms`.
/// - Screens become `screen_view` with `screen_name`, pages `page_view` with `page_title`.
public struct GA4Destination: Destination {
    public enum Stream: String { case app, web }
    public enum NameMode: String { case normalize, reject }
    public enum TimedMode: String { case split, duration }

    public static let type = DestinationType(
        name: "ga4", extraKeys: ["stream", "names", "timed"],
        defaultRotation: {
            var rotation = RotationPolicy()
            rotation.maxEvents = 2000
            return rotation
        }()
    ) { name, options, reader in
        func choice<T: RawRepresentable>(_ key: String, _ fallback: T, _ all: [T]) -> T where T.RawValue == String {
            guard let node = options[key] else { return fallback }
            guard let text = node.scalar?.string, let value = T(rawValue: text) else {
                reader.error(node, "destinations.\(name).\(key) must be one of: \(all.map(\.rawValue).joined(separator: ", "))")
                return fallback
            }
            return value
        }
        return GA4Destination(stream: choice("stream", Stream.app, [.app, .web]),
                              names: choice("names", NameMode.normalize, [.normalize, .reject]),
                              timed: choice("timed", TimedMode.split, [.split, .duration]))
    }

    static let maxParams = 25
    static let maxParamValue = 100
    static let longerParamValues: [String: Int] = ["page_title": 300, "page_referrer": 420, "page_location": 1000]
    static let maxUserProperties = 25
    static let maxUserPropertyName = 24
    static let maxUserPropertyValue = 36
    static let maxUserID = 256

    let stream: Stream
    let names: NameMode
    let timed: TimedMode
    private var counts = ChangeCounts()

    public var capabilities: DestinationCapabilities { [.sessions, .userProperties] }
    static let takes: Set<MessageType> = [.track, .screen, .page]
    public var supportedTypes: Set<MessageType> { GA4Destination.takes }
    public var changes: [(name: String, value: Int)] { counts.entries }

    init(stream: Stream, names: NameMode, timed: TimedMode) {
        self.stream = stream
        self.names = names
        self.timed = timed
    }

    public mutating func encode(_ event: Event, into out: inout [UInt8]) -> EncodeOutcome {
        let fields = EventFields(event)
        let document = fields.document
        // The events this message becomes: (name suffix, time override, include duration).
        var parts: [(suffix: String, time: EventTime?, duration: Bool)] = [("", nil, true)]
        if timed == .split, event.type == .track, let state = fields.timed {
            switch state {
            case .completed:
                let started = document.member("started_at").flatMap { node in document.withString(node) { EventTime.parseISO8601($0) } ?? nil }
                parts = [("_start", started ?? fields.time, false), ("_stop", nil, true)]
            case .abandoned, .start: parts = [("_start", nil, false)]
            case .orphanStop, .stop: parts = [("_stop", nil, true)]
            }
        }
        let base: String
        var extraParam: (StaticString, String)?
        switch event.type {
        case .screen:
            base = "screen_view"
            extraParam = ("screen_name", event.nameString)
        case .page:
            base = "page_view"
            extraParam = ("page_title", event.nameString)
        default:
            base = event.nameString
        }
        let longestSuffix = parts.map(\.suffix.count).max() ?? 0
        var baseName = base
        if event.type == .track && !GA4Names.isValid(base + (parts.first?.suffix ?? ""), maxLength: 40) {
            if names == .reject {
                return .refused(Rejection(.invalidEventName, "\"\(base)\" is not a valid GA4 event name (40 characters of [A-Za-z0-9_] starting with a letter, not reserved)"))
            }
            let (fixed, changes) = GA4Names.normalize(base, maxLength: 40 - longestSuffix)
            if changes.contains(.characters) { counts.add("name_characters_replaced") }
            if changes.contains(.prefixed) { counts.add("name_prefixed") }
            if changes.contains(.cut) { counts.add("name_cut") }
            baseName = fixed
        }

        var request = JSONObjectEncoder()
        guard let anonymous = fields.anonymousId ?? fields.userId else {
            return .refused(Rejection(.missingIdentity, "no anonymousId for app_instance_id or client_id"))
        }
        switch stream {
        case .app: request.string("app_instance_id", bytes: appInstanceID(anonymous), &out)
        case .web: request.string("client_id", bytes: anonymous, &out)
        }
        if let user = fields.userId {
            if user.count <= GA4Destination.maxUserID {
                request.string("user_id", bytes: user, &out)
            } else {
                counts.add("user_id_left_out")
            }
        }
        request.integer("timestamp_micros", fields.time.microseconds, &out)
        if let context = fields.context, let traits = document.member("traits", of: context), document.tape[traits].kind == .object {
            request.key("user_properties", &out)
            appendUserProperties(document, traits, &out)
        }
        request.key("events", &out)
        out.append(UInt8(ascii: "["))
        for (index, part) in parts.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            var item = JSONObjectEncoder()
            item.string("name", baseName + part.suffix, &out)
            if let time = part.time { item.integer("timestamp_micros", time.microseconds, &out) }
            item.key("params", &out)
            appendParams(fields, extra: extraParam, includeDuration: part.duration, &out)
            item.close(&out)
        }
        out.append(UInt8(ascii: "]"))
        request.close(&out)
        out.append(UInt8(ascii: "\n"))
        return .records(1)
    }

    /// 32 hex digits: the anonymousId itself when it already is (a UUID without
    /// its dashes counts), else a stable hash of it.
    private mutating func appInstanceID(_ anonymous: [UInt8]) -> [UInt8] {
        let hexDigits = anonymous.filter { $0 != UInt8(ascii: "-") }
        if hexDigits.count == 32 && hexDigits.allSatisfy({ JSONString.hexValue($0) != nil }) {
            return hexDigits.map { $0 >= 0x41 && $0 <= 0x46 ? $0 + 32 : $0 }
        }
        counts.add("app_instance_id_derived")
        let (high, low) = anonymous.withUnsafeBytes {
            (StableHash.hash($0, seed: StableHash.seedA), StableHash.hash($0, seed: StableHash.seedB))
        }
        return InsertID.uuidShaped(high, low).filter { $0 != UInt8(ascii: "-") }
    }

    private mutating func appendParams(_ fields: EventFields, extra: (StaticString, String)?, includeDuration: Bool, _ out: inout [UInt8]) {
        let document = fields.document
        var params = JSONObjectEncoder()
        var count = 0
        if let startMs = fields.session?.startMs {
            params.integer("session_id", startMs / 1000, &out)
            count += 1
        } else {
            counts.add("session_id_missing")
        }
        params.integer("engagement_time_msec", max(1, fields.session?.engagementMs ?? 1), &out)
        count += 1
        if let (key, value) = extra {
            params.key(key, &out)
            JSONString.appendQuoted(TextLimit.cutUTF8(Array(value.utf8), maxScalars: GA4Destination.maxParamValue), to: &out)
            count += 1
        }
        guard let properties = fields.properties else {
            params.close(&out)
            return
        }
        var used: Set<String> = ["session_id", "engagement_time_msec"]
        func add(_ rawKey: String, _ value: Int, prefix: String) {
            let original = prefix.isEmpty ? rawKey : prefix + "_" + rawKey
            if !includeDuration && original == "duration_ms" { return }
            var key = original
            if !GA4Names.isValid(key, maxLength: 40, isEvent: false) {
                key = GA4Names.normalize(key, maxLength: 40, isEvent: false).name
                counts.add("param_name_changed")
            }
            let kind = document.tape[value].kind
            switch kind {
            case .null:
                counts.add("null_param_dropped")
                return
            case .array:
                counts.add("array_param_dropped")
                return
            case .object:
                guard prefix.isEmpty else {
                    counts.add("nested_param_dropped")
                    return
                }
                counts.add("object_param_flattened")
                for (childKey, childValue) in document.members(of: value) {
                    add(document.string(childKey) ?? "", childValue, prefix: original)
                }
                return
            default:
                break
            }
            guard !used.contains(key) else {
                counts.add("duplicate_param_dropped")
                return
            }
            guard count < GA4Destination.maxParams else {
                counts.add("param_dropped_over_limit")
                return
            }
            used.insert(key)
            params.key(bytes: Array(key.utf8), &out)
            switch kind {
            case .string:
                let limit = GA4Destination.longerParamValues[key] ?? GA4Destination.maxParamValue
                if TextLimit.appendString(document, value, maxScalars: limit, to: &out) { counts.add("param_value_cut") }
            case .true, .false:
                // GA4 takes strings and numbers only.
                JSONString.appendQuoted(kind == .true ? "true" : "false", to: &out)
                counts.add("bool_param_stringified")
            default:
                document.write(node: value, to: &out)
            }
            count += 1
        }
        for (key, value) in document.members(of: properties) {
            add(document.string(key) ?? "", value, prefix: "")
        }
        params.close(&out)
    }

    private mutating func appendUserProperties(_ document: JSONDocument, _ traits: Int, _ out: inout [UInt8]) {
        var object = JSONObjectEncoder()
        var count = 0
        for (key, value) in document.members(of: traits) {
            let kind = document.tape[value].kind
            guard kind == .string || kind == .number || kind == .true || kind == .false else {
                counts.add("user_property_dropped")
                continue
            }
            guard count < GA4Destination.maxUserProperties else {
                counts.add("user_property_dropped_over_limit")
                continue
            }
            var name = document.string(key) ?? ""
            if !GA4Names.isValid(name, maxLength: GA4Destination.maxUserPropertyName, isEvent: false) {
                name = GA4Names.normalize(name, maxLength: GA4Destination.maxUserPropertyName, isEvent: false).name
                counts.add("user_property_name_changed")
            }
            object.key(bytes: Array(name.utf8), &out)
            var wrapper = JSONObjectEncoder()
            wrapper.key("value", &out)
            switch kind {
            case .string:
                if TextLimit.appendString(document, value, maxScalars: GA4Destination.maxUserPropertyValue, to: &out) {
                    counts.add("user_property_value_cut")
                }
            case .true, .false: JSONString.appendQuoted(kind == .true ? "true" : "false", to: &out)
            default: document.write(node: value, to: &out)
            }
            wrapper.close(&out)
            count += 1
        }
        object.close(&out)
    }
}
