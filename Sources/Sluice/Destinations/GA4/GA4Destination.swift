import SluiceJSON

/// GA4 Measurement Protocol (app streams with `app_instance_id`, web streams
/// with `client_id`): one request body per line,
/// `{"app_instance_id", "user_id", "timestamp_micros", "user_properties", "events": [{"name", "params"}]}`.
///
/// Each rule below cites the page it comes from:
/// - [mp-send]: developers.google.com/analytics/devguides/collection/protocol/ga4/sending-events
///   ("Limitations"; "Recommended parameters for reports": session_id, engagement_time_msec)
/// - [mp-ref]: developers.google.com/analytics/devguides/collection/protocol/ga4/reference
///   (request body fields; "Response codes": always 2xx, even for data it drops)
/// - [mp-user]: developers.google.com/analytics/devguides/collection/protocol/ga4/user-properties
/// - [limits]: support.google.com/analytics/answer/9267744 (collection limits)
/// - naming rules: see `GA4Names`.
///
/// Takes `track`, `screen` and `page`, and `identify`, whose traits become
/// user properties of the device's later events (`GA4UserMemory.swift`); the
/// rest are not routed here (counted `unsupported_type`). GA4 has no timed
/// events: `timed: split` sends `NAME_start` and `NAME_stop` (the stop with
/// `duration_ms`), `timed: duration` one `NAME` with `duration_ms`.
///
/// A screen becomes `screen_view` with `screen_name`, a page `page_view` with
/// `page_title`: the message's `name` (else `event`), else `properties.name`, else
/// `unnamed_screen` / `unnamed_page` (default `Unknown`; `""` leaves the param
/// out), counted `screen_name_defaulted` / `page_name_defaulted`. No param is
/// ever sent empty.
public struct GA4Destination: Destination {
    public enum Stream: String { case app, web }
    public enum NameMode: String { case normalize, reject }
    public enum TimedMode: String { case split, duration }

    public static let type = DestinationType(
        name: "ga4", extraKeys: ["stream", "names", "timed", "app_instance_id_field", "unnamed_screen", "unnamed_page", "device_memory"]
            + EcommerceSettings.keys,
        defaultRotation: {
            // [mp-send] "Requests can have a maximum of 25 events" and a body under
            // 130 kB: each line is one request body of one or two events, far below
            // both (25 params of 100 characters). There is no batch endpoint, so a
            // file's size only bounds how many requests an uploader sends from it.
            var rotation = RotationPolicy()
            rotation.maxEvents = 2000
            return rotation
        }(),
        rejectReasons: [.invalidEventName, .missingAppInstanceID, .invalidAppInstanceID, .timeOutOfRange, .missingGroupID],
        // Product analytics: Segment's "Analytics" consent category.
        defaultConsentCategory: "Analytics",
        // [mp] www.google-analytics.com/mp/collect; EU: region1.google-analytics.com. A web
        // stream's requests name its measurement_id, an app stream's its firebase_app_id.
        send: SendSupport(keys: ["measurement_id", "firebase_app_id"], regions: ["global", "eu"],
                          oneOf: ["measurement_id", "firebase_app_id"]),
        delivery: GA4Destination.delivery
    ) { name, options, reader in
        func choice<T: RawRepresentable>(_ key: String, _ fallback: T, _ all: [T]) -> T where T.RawValue == String {
            guard let node = options[key] else { return fallback }
            guard let text = node.scalar?.text, let value = T(rawValue: text) else {
                reader.error(node, "destinations.\(name).\(key) must be one of: \(all.map(\.rawValue).joined(separator: ", "))")
                return fallback
            }
            return value
        }
        var appInstanceIDField = GA4Destination.defaultAppInstanceIDField
        if let node = options["app_instance_id_field"],
           let text = reader.string(node, what: "destinations.\(name).app_instance_id_field") {
            if text.isEmpty || text.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
                reader.error(node, "destinations.\(name).app_instance_id_field must be a dotted field path such as \(GA4Destination.defaultAppInstanceIDField)")
            } else {
                appInstanceIDField = text
            }
        }
        return GA4Destination(stream: choice("stream", Stream.app, [.app, .web]),
                              names: choice("names", NameMode.normalize, [.normalize, .reject]),
                              timed: choice("timed", TimedMode.split, [.split, .duration]),
                              appInstanceIDField: appInstanceIDField,
                              unnamed: UnnamedNames(options: options, destination: name, allowEmpty: true, &reader),
                              ecommerce: EcommerceSettings(options: options, destination: name, &reader),
                              deviceMemory: DeviceMemory.maxBytes(options: options, destination: name, &reader))
    }

    /// [mp-send] "Events can have a maximum of 25 parameters."
    static let maxParams = 25
    /// [mp-send] "Parameter values must be 100 characters or fewer" (GA4 360: 500),
    /// with longer limits for these ([limits]).
    static let maxParamValue = 100
    static let longerParamValues: [(StaticString, Int)] = [("page_title", 300), ("page_referrer", 420), ("page_location", 1000)]
    /// [mp-send] "User properties can have a maximum of 25", names 24 characters, values 36.
    static let maxUserProperties = 25
    static let maxUserPropertyValue = 36
    /// [limits] User-ID values: at most 256 characters.
    static let maxUserID = 256
    /// The suffixes `timed: split` adds; names keep room for the longer one.
    static let startSuffix: [UInt8] = Array("_start".utf8)
    static let stopSuffix: [UInt8] = Array("_stop".utf8)

    /// `app_instance_id_field`: where an app stream finds the Firebase SDK's app
    /// instance id in a message (default `context.device.appInstanceId`).
    static let defaultAppInstanceIDField = "context.device.appInstanceId"

    let stream: Stream
    let appInstanceIDField: JSONPath
    let names: NameMode
    let timed: TimedMode
    /// `screen_name` / `page_title` for a screen or page without a name (see `UnnamedNames`).
    let unnamed: UnnamedNames
    /// Spec ecommerce events as GA4's recommended events (`GA4Ecommerce.swift`).
    let ecommerce: EcommerceSettings
    /// The message being encoded, when it is one of those, and where its line starts in the output.
    var ecommerceEvent: (EcommerceEvent, GA4EcommerceMapping)?
    var recordStart = 0
    /// The user properties each device's identify messages set, for its later events (`GA4UserMemory.swift`).
    let userMemory: DeviceMemory
    /// The user properties of each device's identify messages, for its later requests (`GA4UserMemory.swift`).
    public var deviceMemory: (memory: DeviceMemory, signature: String)? {
        userMemory.maxBytes > 0 ? (userMemory, "ga4 user_properties") : nil
    }
    /// Events that got remembered user properties (counted per event: not a `ChangeCounts` look-up).
    var rememberedPropertiesAdded = 0
    var counts = ChangeCounts()
    private var eventNames = GA4NameCache()
    private var timedEventNames = GA4NameCache()
    var paramNames = GA4NameCache()
    var userPropertyNames = GA4NameCache()
    /// Offsets in `out` of the names written into the current params or user properties object.
    var written: [(start: Int, count: Int)] = []
    /// The event name being written, and a param or user property name being made: reused buffers.
    var name: [UInt8] = []
    var key: [UInt8] = []

    static let takes = MessageTypes(.track, .screen, .page, .group)
    public var supportedTypes: MessageTypes { GA4Destination.takes }
    public var changes: [(name: String, value: Int)] {
        counts.entries + (rememberedPropertiesAdded > 0 ? [("remembered_user_properties_added", rememberedPropertiesAdded)] : [])
    }

    init(stream: Stream, names: NameMode, timed: TimedMode, appInstanceIDField: String = GA4Destination.defaultAppInstanceIDField,
         unnamed: UnnamedNames = UnnamedNames(), ecommerce: EcommerceSettings = EcommerceSettings(),
         deviceMemory: Int = DeviceMemory.defaultMaxBytes) {
        self.stream = stream
        userMemory = DeviceMemory(maxBytes: deviceMemory)
        self.appInstanceIDField = JSONPath(appInstanceIDField)
        self.names = names
        self.timed = timed
        self.unnamed = unnamed
        self.ecommerce = ecommerce
    }

    /// One event of the request a message becomes.
    private struct Part {
        var suffix: [UInt8]?
        var time: EventTime?
        var duration: Bool
        /// The start of a completed timed event: filed in the start's session (`started_session`).
        var isStartOfPair = false
    }

    public mutating func encode(_ event: Event, context: inout EncodingContext, into out: inout ByteBuffer) -> EncodeOutcome {
        let fields = context.fields(of: event)
        return encode(event, fields, context: &context, into: &out)
    }

    private mutating func encode(_ event: Event, _ fields: EventFields, context: inout EncodingContext,
                                 into out: inout ByteBuffer) -> EncodeOutcome {
        let document = event.document
        if let refusal = context.timeRefusal(.ga4, fields.time) { return .refused(refusal) }
        var parts = (Part(suffix: nil, time: nil, duration: true), nil as Part?)
        var isSplit = false
        if timed == .split, event.type == .track, let state = fields.timed {
            isSplit = true
            switch state {
            case .completed:
                // The start at its own time, the stop (with the duration) at the event's.
                let started = fields.startedAt.flatMap { node in document.withString(node) { EventTime.parseISO8601($0) } ?? nil }
                parts = (Part(suffix: GA4Destination.startSuffix, time: started ?? fields.time, duration: false, isStartOfPair: true),
                         Part(suffix: GA4Destination.stopSuffix, time: nil, duration: true))
            case .abandoned, .start: parts.0 = Part(suffix: GA4Destination.startSuffix, time: nil, duration: false)
            case .orphanStop, .stop: parts.0 = Part(suffix: GA4Destination.stopSuffix, time: nil, duration: true)
            }
        }
        var extra: (key: StaticString, limit: Int)?
        name.removeAll(keepingCapacity: true)
        ecommerceEvent = nil
        recordStart = out.count
        switch event.type {
        case .screen:
            // [mp-send] / Firebase: a screen is the `screen_view` event with `screen_name`.
            name.append(contentsOf: "screen_view".utf8)
            extra = ("screen_name", GA4Destination.maxParamValue)
        case .page:
            name.append(contentsOf: "page_view".utf8)
            // `context.page.title`, when there is one, is the page's title (`GA4Context.swift`).
            if fields.mapped.node(.pageTitle) == nil { extra = ("page_title", 300) }
        case .group:
            // [events] the recommended `join_group` ("Log this event when a user joins a
            // group such as a guild, team, or family"), its `group_id` the message's `groupId`.
            guard MessageIdentity.id(document, document.member("groupId" as StaticString, of: 0)) != nil else {
                return .refused(Rejection(.missingGroupID, "a group message needs a groupId (a string that is not blank, or a number) for join_group's group_id"))
            }
            name.append(contentsOf: "join_group".utf8)
        default:
            if !(ecommerce.enabled && mapEcommerceEvent(event, split: isSplit)), let refusal = eventName(event.name, split: isSplit) {
                return .refused(refusal)
            }
        }

        var request = JSONObjectEncoder()
        switch stream {
        case .app:
            // [mp-ref] app_instance_id: "Uniquely identifies a specific installation of a
            // Firebase app. This value needs to be retrieved through the Firebase SDK", and
            // is "expected to be a 32 digit hexadecimal number". It is read from the event
            // (`app_instance_id_field`), never made up: an invented one is a user GA4 never saw.
            guard let node = document.find(appInstanceIDField), let id = MessageIdentity.id(document, node) else {
                return .refused(Rejection(.missingAppInstanceID, "no app instance id at \(appInstanceIDField) (the Firebase SDK's getAppInstanceId())"))
            }
            let start = out.count
            request.key("app_instance_id", &out)
            guard MessageIdentity.withTextSpan(document, id, { GA4Destination.appendAppInstanceID($0, &out) }) else {
                out.removeSubrange(start...)
                return .refused(Rejection(.invalidAppInstanceID, "the app instance id at \(appInstanceIDField) is not 32 hexadecimal digits"))
            }
        case .web:
            // [mp-ref] client_id: "Uniquely identifies a user instance of a web client";
            // Segment's GA4 destination fills it from `anonymousId` by default
            // (segment-docs: destinations/catalog/actions-google-analytics-4 "Client ID").
            guard let clientNode = fields.anonymousIdNode ?? fields.userIdNode else {
                return .refused(Rejection(.missingIdentity, "no anonymousId or userId for client_id"))
            }
            request.id("client_id", document, node: clientNode, &out)
        }
        if let user = fields.userIdNode {
            if fields.withID(user, { TextLimit.scalarCount($0) }) <= GA4Destination.maxUserID {
                request.id("user_id", document, node: user, &out)
            } else {
                counts.add("user_id_left_out")
            }
        }
        // [mp-ref] timestamp_micros: the request's time; an event may override it.
        request.integer("timestamp_micros", fields.time.microseconds, &out)
        let remembered = rememberedUserProperties(fields)
        if fields.contextTraits != nil || remembered != nil {
            request.key("user_properties", &out)
            appendUserProperties(document, fields.contextTraits, remembered: remembered, &out)
        }
        request.key("events", &out)
        out.append(UInt8(ascii: "["))
        appendEventItem(parts.0, fields, event: event, extra: extra, &out)
        if let second = parts.1 {
            out.append(UInt8(ascii: ","))
            appendEventItem(second, fields, event: event, extra: extra, &out)
        }
        out.append(UInt8(ascii: "]"))
        request.close(&out)
        out.append(UInt8(ascii: "\n"))
        return .records(1)
    }

    /// `{"name": ..., "timestamp_micros": ..., "params": {...}}` for one part of the message.
    private mutating func appendEventItem<Out: ByteSink>(_ part: Part, _ fields: EventFields, event: Event,
                                          extra: (key: StaticString, limit: Int)?, _ out: inout Out) {
        var item = JSONObjectEncoder()
        item.key("name", &out)
        out.append(UInt8(ascii: "\""))
        out.append(contentsOf: name)
        if let suffix = part.suffix { out.append(contentsOf: suffix) }
        out.append(UInt8(ascii: "\""))
        if let time = part.time { item.integer("timestamp_micros", time.microseconds, &out) }
        item.key("params", &out)
        let session = part.isStartOfPair ? (fields.startedSession ?? fields.session) : fields.session
        appendParams(fields, event: event, extra: extra, includeDuration: part.duration, session: session,
                     at: part.time ?? fields.time, &out)
        item.close(&out)
    }

    /// Puts the GA4 name for a track event into `name`, or says why it is refused (`names: reject`).
    private mutating func eventName(_ original: [UInt8], split: Bool) -> Rejection? {
        let web = stream == .web
        let room = split ? GA4Names.maxNameLength - GA4Destination.startSuffix.count : GA4Names.maxNameLength
        let make = { () -> GA4NameCache.Entry in
            let suffixes = split ? [GA4Destination.startSuffix, GA4Destination.stopSuffix] : []
            if GA4Names.isValid(original, maxLength: room, kind: .event(web: web)),
               !suffixes.contains(where: { GA4Names.isReserved(original + $0, kind: .event(web: web)) }) {
                return GA4NameCache.Entry(fixed: nil, changes: [])
            }
            let (fixed, changes) = GA4Names.normalize(original, maxLength: room, kind: .event(web: web), alsoReservedWith: suffixes)
            return GA4NameCache.Entry(fixed: fixed, changes: changes)
        }
        let entry = split ? timedEventNames.entry(for: original, make) : eventNames.entry(for: original, make)
        guard let fixed = entry.fixed else {
            name.append(contentsOf: original)
            return nil
        }
        if names == .reject {
            return Rejection(.invalidEventName, "\"\(String(decoding: original, as: UTF8.self))\" is not a valid GA4 event name " +
                "(at most \(room) characters of [A-Za-z0-9_] starting with a letter, not reserved); it would become \"\(String(decoding: fixed, as: UTF8.self))\"")
        }
        if entry.changes.contains(.characters) { counts.add("name_characters_replaced") }
        if entry.changes.contains(.prefixed) { counts.add("name_prefixed") }
        if entry.changes.contains(.cut) { counts.add("name_cut") }
        name.append(contentsOf: fixed)
        return nil
    }

    /// [mp-ref] "app_instance_id ... expected to be a 32 digit hexadecimal number":
    /// appends the id in quotes, lowercased (a UUID's dashes left out, as Firebase
    /// writes it without them), or returns false when it is not 32 hex digits.
    static func appendAppInstanceID<Out: ByteSink>(_ id: Span<UInt8>, _ out: inout Out) -> Bool {
        // Most ids are written as GA4 wants them already: checked, then copied in one piece.
        if id.count == 32 && !id.indices.contains(where: { !(id[$0] &- UInt8(ascii: "0") < 10 || id[$0] &- UInt8(ascii: "a") < 6) }) {
            out.append(UInt8(ascii: "\""), span: id, quoted: false, UInt8(ascii: "\""))
            return true
        }
        var digits = 0
        for index in id.indices where id[index] != UInt8(ascii: "-") {
            guard JSONString.hexValue(id[index]) != nil else { return false }
            digits += 1
        }
        guard digits == 32 else { return false }
        out.append(UInt8(ascii: "\""))
        for index in id.indices where id[index] != UInt8(ascii: "-") {
            let byte = id[index]
            out.append(byte >= 0x41 && byte <= 0x46 ? byte + 32 : byte)
        }
        out.append(UInt8(ascii: "\""))
        return true
    }
}

extension RejectReason {
    /// GA4 app stream: the message has no app instance id at `app_instance_id_field`.
    static let missingAppInstanceID = RejectReason("missing_app_instance_id")
    /// GA4 app stream: the value at `app_instance_id_field` is not 32 hexadecimal digits.
    static let invalidAppInstanceID = RejectReason("invalid_app_instance_id")
    /// GA4 with `names: reject`: the event name breaks GA4's rules.
    static let invalidEventName = RejectReason("invalid_event_name")
    /// GA4: a `group` message (sent as `join_group`) without a `groupId`.
    static let missingGroupID = RejectReason("missing_group_id")
}
