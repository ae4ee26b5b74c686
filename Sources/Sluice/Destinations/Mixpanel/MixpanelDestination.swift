import Yams

/// Mixpanel's Import API: one `{"event": ..., "properties": {...}}` per line.
///
/// Rules, from Mixpanel's docs (developer.mixpanel.com/reference/import-events,
/// docs.mixpanel.com/docs/data-structure/property-reference/data-type):
/// - `properties.time` in milliseconds since the epoch; `distinct_id`; `$insert_id`
///   of at most 36 characters of `[A-Za-z0-9-]` (import-events "Event Deduplication").
/// - `distinct_id` placeholders the API refuses (`null`, `undefined`, `anon`, `0`, `-1`, ...)
///   are refused here with a reason rather than sent (import-events, "distinct_id").
/// - fewer than 255 properties per event; string values are cut at 255 bytes
///   (import-events "Limits": "String properties have a limit of 255 bytes").
/// - A timed event's duration is `$duration`, in seconds (default-properties, mixpanel-js `time_event`).
/// - Only events: `identify`, `group`, `alias` and `session` messages are not routed here.
public struct MixpanelDestination: Destination {
    public static let type = DestinationType(
        name: "mixpanel", extraKeys: ["screen_event", "page_event"],
        defaultRotation: {
            // 2000 events and 2 MB per request: safe under both the current (10 MB)
            // and the older (2 MB) documented body limit.
            var rotation = RotationPolicy()
            rotation.maxEvents = 2000
            rotation.maxBytes = 2_000_000
            return rotation
        }()
    ) { name, options, reader in
        MixpanelDestination(naming: ScreenNaming(options: options, destination: name, &reader))
    }

    /// distinct_id values Mixpanel rejects (import-events, "distinct_id"), compared case-insensitively.
    static let placeholderIDs: Set<String> = [
        "00000000-0000-0000-0000-000000000000", "anon", "anonymous", "nil", "none", "null", "n/a", "na",
        "undefined", "unknown", "<nil>", "0", "-1", "true", "false", "[]", "{}",
    ]
    /// Placeholders are at most 9 characters (`undefined`) or the 36-character zero UUID.
    static func isPlaceholder(_ id: [UInt8]) -> Bool {
        guard id.count <= 9 || id.count == 36 else { return false }
        return placeholderIDs.contains(String(decoding: id, as: UTF8.self).lowercased())
    }

    static let maxStringBytes = 255
    static let maxProperties = 254
    /// Properties Sluice sets itself; an event property of the same name is left out.
    static let reserved: Set<[UInt8]> = Set(["time", "distinct_id", "$insert_id", "$device_id", "$user_id", "$duration", "token"].map { Array($0.utf8) })

    let naming: ScreenNaming
    private var counts = ChangeCounts()

    public var capabilities: DestinationCapabilities { [.timedEvents] }
    static let takes: Set<MessageType> = [.track, .screen, .page]
    public var supportedTypes: Set<MessageType> { MixpanelDestination.takes }
    public var changes: [(name: String, value: Int)] { counts.entries }

    init(naming: ScreenNaming) { self.naming = naming }

    public mutating func encode(_ event: Event, into out: inout [UInt8]) -> EncodeOutcome {
        let fields = EventFields(event)
        guard let distinct = fields.userId ?? fields.anonymousId, !MixpanelDestination.isPlaceholder(distinct) else {
            return .refused(Rejection(.invalidDistinctID, "distinct_id would be a placeholder Mixpanel rejects"))
        }
        let name = naming.eventName(event)
        let document = fields.document
        var record = JSONObjectEncoder()
        record.string("event", bytes: name, &out)
        record.key("properties", &out)
        var properties = JSONObjectEncoder()
        properties.integer("time", fields.time.milliseconds, &out)
        properties.string("distinct_id", bytes: distinct, &out)
        properties.string("$insert_id", bytes: InsertID.make(messageId: fields.messageId, name: name, fallback: document), &out)
        var count = 3
        if let anonymous = fields.anonymousId { properties.string("$device_id", bytes: anonymous, &out); count += 1 }
        if let user = fields.userId { properties.string("$user_id", bytes: user, &out); count += 1 }
        if case let .completed(durationMs?) = fields.timed {
            properties.key("$duration", &out)
            out.append(contentsOf: "\(durationMs / 1000).\(pad(Int(abs(durationMs % 1000)), 3))".utf8)
            count += 1
        }
        for (key, path) in MixpanelDestination.contextProperties {
            if let node = fields.contextStringNode(path) {
                properties.key(key, &out)
                out.append(contentsOf: document.rawBytes(node))
                count += 1
            }
        }
        count += SessionAsProperties.append(fields.session, to: &properties, &out)
        if let node = fields.properties {
            for (key, value) in document.members(of: node) {
                let keyBytes = document.withString(key) { Array($0) } ?? []
                if keyBytes.count <= 11 && MixpanelDestination.reserved.contains(keyBytes) {
                    counts.add("reserved_property_dropped")
                    continue
                }
                if count >= MixpanelDestination.maxProperties {
                    counts.add("property_dropped_over_limit")
                    continue
                }
                properties.key(bytes: TextLimit.cutUTF8(keyBytes, maxBytes: MixpanelDestination.maxStringBytes), &out)
                if document.tape[value].kind == .string {
                    if TextLimit.appendString(document, value, maxBytes: MixpanelDestination.maxStringBytes, to: &out) {
                        counts.add("string_cut")
                    }
                } else {
                    document.write(node: value, to: &out)
                }
                count += 1
            }
        }
        properties.close(&out)
        record.close(&out)
        out.append(UInt8(ascii: "\n"))
        return .records(1)
    }

    /// Segment context fields and the Mixpanel default properties they become.
    static let contextProperties: [(StaticString, JSONPath)] = [
        ("$os", JSONPath("os.name")), ("$os_version", JSONPath("os.version")),
        ("$model", JSONPath("device.model")), ("$manufacturer", JSONPath("device.manufacturer")),
        ("$app_version_string", JSONPath("app.version")), ("$app_build_number", JSONPath("app.build")),
        ("ip", JSONPath("ip")),
    ]
}
