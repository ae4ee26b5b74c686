import Yams

/// Amplitude's HTTP V2 / Batch event format: one event object per line, to be
/// wrapped as `{"api_key": ..., "events": [...]}` by the uploader.
///
/// Rules, from Amplitude's docs (amplitude.com/docs/apis/analytics/http-v2):
/// - `time` in milliseconds; `session_id` is the session's start in ms, `-1` when
///   the event is outside a session (http-v2, "session_id").
/// - `user_id` and `device_id` must each be at least 5 characters (or
///   `options.min_id_length`); the placeholder ids the API rejects (`anonymous`,
///   `nil`, `null`, `undefined`, `0`, `-1`, ...) are left out like short ones; an
///   event left with neither is refused here (http-v2, "Device IDs and User IDs minimum length").
/// - `insert_id` deduplicates within 7 days.
/// - `identify` becomes `$identify` with `user_properties: {"$set": traits}`.
/// - String values over 1024 characters are cut (http-v2, "String character limit").
public struct AmplitudeDestination: Destination {
    public static let type = DestinationType(
        name: "amplitude", extraKeys: ["min_id_length", "screen_event", "page_event"],
        defaultRotation: {
            // HTTP V2: fewer than 2000 events and under 1 MB per request.
            var rotation = RotationPolicy()
            rotation.maxEvents = 2000
            rotation.maxBytes = 1_000_000
            return rotation
        }()
    ) { name, options, reader in
        var minimum = 5
        if let node = options["min_id_length"],
           let value = reader.integer(node, what: "destinations.\(name).min_id_length", range: 1...1024) {
            minimum = value
        }
        return AmplitudeDestination(minIDLength: minimum, naming: ScreenNaming(options: options, destination: name, &reader))
    }

    static let rejectedIDs: Set<String> = [
        "anonymous", "nil", "none", "null", "n/a", "na", "undefined", "unknown", "",
        "00000000-0000-0000-0000-000000000000", "{}", "lmy47d", "0", "-1",
    ]
    static let maxStringCharacters = 1024

    let minIDLength: Int
    let naming: ScreenNaming
    private var counts = ChangeCounts()

    public var capabilities: DestinationCapabilities { [.sessions, .userProperties] }
    static let takes: Set<MessageType> = [.track, .screen, .page, .identify]
    public var supportedTypes: Set<MessageType> { AmplitudeDestination.takes }
    public var changes: [(name: String, value: Int)] { counts.entries }

    init(minIDLength: Int, naming: ScreenNaming) {
        self.minIDLength = minIDLength
        self.naming = naming
    }

    private mutating func usableID(_ id: [UInt8]?) -> [UInt8]? {
        guard let id else { return nil }
        let text = String(decoding: id, as: UTF8.self)
        if text.count < minIDLength || AmplitudeDestination.rejectedIDs.contains(text.lowercased()) {
            counts.add("id_left_out")
            return nil
        }
        return id
    }

    public mutating func encode(_ event: Event, into out: inout [UInt8]) -> EncodeOutcome {
        let fields = EventFields(event)
        let user = usableID(fields.userId)
        let device = usableID(fields.anonymousId)
        if user == nil && device == nil {
            return .refused(Rejection(.missingUserOrDeviceID, "neither user_id nor device_id has at least \(minIDLength) characters"))
        }
        let document = fields.document
        let name: [UInt8] = event.type == .identify ? Array("$identify".utf8) : naming.eventName(event)
        var record = JSONObjectEncoder()
        record.string("event_type", bytes: name, &out)
        if let user { record.string("user_id", bytes: user, &out) }
        if let device { record.string("device_id", bytes: device, &out) }
        record.integer("time", fields.time.milliseconds, &out)
        record.integer("session_id", fields.session?.startMs ?? -1, &out)
        record.string("insert_id", bytes: InsertID.make(messageId: fields.messageId, name: name, fallback: document), &out)
        if event.type == .identify {
            record.key("user_properties", &out)
            var wrapper = JSONObjectEncoder()
            wrapper.key("$set", &out)
            appendObject(document, fields.traits, &out)
            wrapper.close(&out)
        } else {
            record.key("event_properties", &out)
            appendObject(document, fields.properties, &out)
        }
        for (key, path) in AmplitudeDestination.contextFields {
            if let node = fields.contextStringNode(path) {
                record.key(key, &out)
                out.append(contentsOf: document.rawBytes(node))
            }
        }
        record.close(&out)
        out.append(UInt8(ascii: "\n"))
        return .records(1)
    }

    /// Copies an object, cutting long strings at any depth of its top level.
    private mutating func appendObject(_ document: JSONDocument, _ node: Int?, _ out: inout [UInt8]) {
        var object = JSONObjectEncoder()
        if let node {
            for (key, value) in document.members(of: node) {
                object.key(bytes: document.withString(key) { Array($0) } ?? [], &out)
                if document.tape[value].kind == .string {
                    if TextLimit.appendString(document, value, maxScalars: AmplitudeDestination.maxStringCharacters, to: &out) {
                        counts.add("string_cut")
                    }
                } else {
                    document.write(node: value, to: &out)
                }
            }
        }
        object.close(&out)
    }

    static let contextFields: [(StaticString, JSONPath)] = [
        ("platform", JSONPath("os.name")), ("os_name", JSONPath("os.name")), ("os_version", JSONPath("os.version")),
        ("device_model", JSONPath("device.model")), ("device_manufacturer", JSONPath("device.manufacturer")),
        ("app_version", JSONPath("app.version")), ("ip", JSONPath("ip")),
    ]
}
