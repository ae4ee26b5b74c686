/// The Segment-spec message types Sluice reads (EVENTS.md), plus the `session` extension.
public enum MessageType: String, Sendable, CaseIterable {
    case track, screen, page, identify, group, alias, session
}

/// Where a line came from: the index of its input in the run, and its 1-based line number.
public struct Origin: Sendable, Hashable {
    public var source: Int32
    public var line: Int64

    public init(source: Int32, line: Int64) {
        self.source = source
        self.line = line
    }
}

/// One analytics message, parsed once and carried through the stages.
///
/// The routing name is `event` for `track`, `name` for `screen`/`page` (empty
/// when absent) and the type itself for the other types (SPEC.md, Routing).
public struct Event: Sendable {
    public var document: JSONDocument
    public let origin: Origin
    public let type: MessageType
    public var time: EventTime
    /// The routing name, decoded UTF-8.
    public var name: [UInt8]

    public var nameString: String { String(decoding: name, as: UTF8.self) }

    /// Parses and checks one input line (without its line ending).
    public static func decode(_ line: UnsafeBufferPointer<UInt8>, origin: Origin) -> Result<Event, Rejection> {
        let document: JSONDocument
        do {
            document = try JSONDocument.parse(line)
        } catch {
            return .failure(Rejection(jsonError: error, line: line))
        }
        return decode(document, origin: origin)
    }

    /// Checks the fields every message must have.
    public static func decode(_ document: JSONDocument, origin: Origin) -> Result<Event, Rejection> {
        guard let typeNode = document.member("type"), document.tape[typeNode].kind == .string else {
            return .failure(Rejection(.missingType, "no string \"type\" field"))
        }
        guard let typeName = document.string(typeNode), let type = MessageType(rawValue: typeName) else {
            return .failure(Rejection(.unknownType, "unknown type \(document.string(typeNode).map { "\"\($0)\"" } ?? "")"))
        }
        if !hasIdentity(document, "anonymousId") && !hasIdentity(document, "userId") {
            return .failure(Rejection(.missingIdentity, "neither anonymousId nor userId is a non-empty string"))
        }
        guard let timeNode = document.member("timestamp") else {
            return .failure(Rejection(.missingTimestamp, "no \"timestamp\" field"))
        }
        guard let time = document.withString(timeNode, { EventTime.parseISO8601($0) }) ?? nil else {
            return .failure(Rejection(.invalidTimestamp, "timestamp is not ISO 8601 with a zone"))
        }
        var name: [UInt8]
        switch type {
        case .track:
            guard let node = document.member("event"),
                  let decoded = document.withString(node, { Array($0) }), !decoded.isEmpty
            else {
                return .failure(Rejection(.missingEventName, "a track message needs a non-empty string \"event\""))
            }
            name = decoded
        case .screen, .page:
            name = document.member("name").flatMap { node in document.withString(node) { Array($0) } } ?? []
        case .identify, .group, .alias, .session:
            name = Array(type.rawValue.utf8)
        }
        return .success(Event(document: document, origin: origin, type: type, time: time, name: name))
    }

    private static func hasIdentity(_ document: JSONDocument, _ key: String) -> Bool {
        guard let node = document.member(key) else { return false }
        return document.withString(node) { $0.count > 0 } ?? false
    }
}

/// Why a line or an event was rejected, with a detail for the rejects file.
public struct Rejection: Error, Sendable, Equatable {
    public var reason: RejectReason
    public var detail: String

    public init(_ reason: RejectReason, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }

    init(jsonError: JSONError, line: UnsafeBufferPointer<UInt8>) {
        if !UTF8Validation.isValid(line) {
            self.init(.invalidUTF8, "the line is not valid UTF-8")
            return
        }
        switch jsonError.kind {
        case .nestingTooDeep: self.init(.nestingTooDeep, jsonError.message)
        case .notAnObject: self.init(.notAnObject, jsonError.message)
        case .invalidUTF8: self.init(.invalidUTF8, jsonError.message)
        default: self.init(.invalidJSON, jsonError.message)
        }
    }
}

/// The reasons a line can be rejected; the raw value is what the rejects file and the stats say.
public enum RejectReason: String, Sendable, CaseIterable, Comparable {
    case lineTooLong = "line_too_long"
    case invalidUTF8 = "invalid_utf8"
    case invalidJSON = "invalid_json"
    case nestingTooDeep = "nesting_too_deep"
    case notAnObject = "not_an_object"
    case missingType = "missing_type"
    case unknownType = "unknown_type"
    case missingIdentity = "missing_identity"
    case missingTimestamp = "missing_timestamp"
    case invalidTimestamp = "invalid_timestamp"
    case missingEventName = "missing_event_name"
    /// A timed stop whose start never arrived (`timed: {on_orphan_stop: reject}`).
    case orphanStop = "orphan_stop"
    /// An event that breaks the tracking plan (`plan: {on_violation: reject}`, or
    /// a violation `omit` cannot fix); the detail names each property and kind.
    case planViolation = "plan_violation"
    /// An event the tracking plan does not list (`plan: {unplanned_events: reject}`).
    case unplannedEvent = "unplanned_event"
    // Refusals by a destination (the rejects record names it):
    /// Mixpanel: `distinct_id` would be empty or a placeholder Mixpanel rejects.
    case invalidDistinctID = "invalid_distinct_id"
    /// Amplitude: neither `user_id` nor `device_id` is long enough.
    case missingUserOrDeviceID = "missing_user_or_device_id"
    /// GA4 with `names: reject`: the event name breaks GA4's rules.
    case invalidEventName = "invalid_event_name"
    /// Adjust: no event token for the name.
    case unsupportedEvent = "unsupported_event"
    /// Adjust: no device identifier at all.
    case missingDeviceID = "missing_device_id"
    /// Segment: `messageId` longer than 100 characters.
    case messageIDTooLong = "message_id_too_long"
    /// Segment: the message is over 32 KB.
    case messageTooLarge = "message_too_large"

    public static func < (lhs: RejectReason, rhs: RejectReason) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The reasons an event can be dropped by a rule (counted, not rejected).
public enum DropReason: String, Sendable, CaseIterable, Comparable {
    /// Routed to no destination: every destination's `events:` or the message's `integrations` excluded it.
    case unrouted
    /// A timed start never stopped, with `timed: {on_abandoned: drop}`.
    case abandonedTimer = "abandoned_timer"
    /// A `messageId` the `dedupe` stage had seen before, with the same payload.
    case duplicate

    public static func < (lhs: DropReason, rhs: DropReason) -> Bool { lhs.rawValue < rhs.rawValue }
}
