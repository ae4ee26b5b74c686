// Unsafe code: a line comes in as an `UnsafeBufferPointer` into the line
// reader's buffer, and the `type` value as raw bytes of the document, so
// decoding every line makes no copy and no String on the reading thread. Both
// are read only during the call: the line is valid until the reader's next
// line, and the parsed document keeps a copy of its bytes.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import SluiceJSON

/// The Segment-spec message types Sluice reads (docs/input-format.md), plus the `session` extension.
public enum MessageType: String, Sendable, CaseIterable {
    case track, screen, page, identify, group, alias, session

    /// The type a `type` value's decoded UTF-8 names, compared as bytes (read for every line: no String made).
    init?(utf8 name: UnsafeRawBufferPointer) {
        let found: MessageType?
        switch name.count {
        case 4: found = .page
        case 5: found = name.first == UInt8(ascii: "t") ? .track : name.first == UInt8(ascii: "g") ? .group : .alias
        case 6: found = .screen
        case 7: found = .session
        case 8: found = .identify
        default: found = nil
        }
        // Every candidate has the length switched on: one comparison of that many bytes.
        guard let found, ShortBytes.equal(found.utf8.utf8Start, name.baseAddress!, name.count) else { return nil }
        self = found
    }

    /// The routing name of a type without an event name of its own (`identify`…): made once, shared.
    var routingName: [UInt8] {
        switch self {
        case .identify: MessageType.identifyName
        case .group: MessageType.groupName
        case .alias: MessageType.aliasName
        case .session: MessageType.sessionName
        default: Array(rawValue.utf8)
        }
    }
    private static let identifyName = Array("identify".utf8), groupName = Array("group".utf8)
    private static let aliasName = Array("alias".utf8), sessionName = Array("session".utf8)

    private var utf8: StaticString {
        switch self {
        case .track: "track"
        case .screen: "screen"
        case .page: "page"
        case .identify: "identify"
        case .group: "group"
        case .alias: "alias"
        case .session: "session"
        }
    }
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
/// The routing name is `event` for `track`, `name` (else `event`) for `screen`/`page` (empty
/// when absent) and the type itself for the other types (docs/destinations.md, Routing).
public struct Event: Sendable {
    public var document: JSONDocument
    public let origin: Origin
    public let type: MessageType
    public var time: EventTime
    /// The routing name, decoded UTF-8.
    public var name: [UInt8]
    /// Destinations a stage ruled out for this event (consent), honoured by the fan-out; nil for none.
    public var withheld: WithheldDestinations? = nil

    public var nameString: String { String(decoding: name, as: UTF8.self) }

    /// Parses and checks one input line (without its line ending).
    public static func decode(_ line: UnsafeBufferPointer<UInt8>, origin: Origin) -> Result<Event, Rejection> {
        decode(line, origin: origin, scratch: JSONParseScratch(capacity: line.count / 8 + 16))
    }

    /// The same with the parser's scratch space, reused from line to line by a reader.
    public static func decode(_ line: UnsafeBufferPointer<UInt8>, origin: Origin, scratch: JSONParseScratch) -> Result<Event, Rejection> {
        let document: JSONDocument
        do {
            document = try JSONDocument.parse(line, scratch: scratch)
        } catch {
            return .failure(Rejection(jsonError: error, line: line))
        }
        return decode(document, origin: origin)
    }

    /// Checks the fields every message must have. The top-level members are
    /// read in one pass (not one look-up per field: events have a dozen keys).
    /// The document is taken over, not copied, by the event it becomes.
    public static func decode(_ document: consuming JSONDocument, origin: Origin) -> Result<Event, Rejection> {
        var typeNode: Int?, anonymousId: Int?, userId: Int?, timeNode: Int?, eventNode: Int?, nameNode: Int?
        document.forEachMember(of: 0) { key, value in
            switch document.decodedLength(key) {
            case 4:
                if typeNode == nil, document.string(key, is: "type") { typeNode = value }
                else if nameNode == nil, document.string(key, is: "name") { nameNode = value }
            case 5:
                if eventNode == nil, document.string(key, is: "event") { eventNode = value }
            case 6:
                if userId == nil, document.string(key, is: "userId") { userId = value }
            case 9:
                if timeNode == nil, document.string(key, is: "timestamp") { timeNode = value }
            case 11:
                if anonymousId == nil, document.string(key, is: "anonymousId") { anonymousId = value }
            default:
                break
            }
        }
        guard let typeNode, document.kind(typeNode) == .string else {
            return .failure(Rejection(.missingType, "no string \"type\" field"))
        }
        guard let type = document.withString(typeNode, MessageType.init(utf8:)) ?? nil else {
            return .failure(Rejection(.unknownType, "unknown type \(document.string(typeNode).map { "\"\($0)\"" } ?? "")"))
        }
        if MessageIdentity.id(document, anonymousId) == nil && MessageIdentity.id(document, userId) == nil {
            return .failure(Rejection(.missingIdentity, "neither anonymousId nor userId is an id (a string that is not blank, or a number)"))
        }
        guard let timeNode else {
            return .failure(Rejection(.missingTimestamp, "no \"timestamp\" field"))
        }
        guard let time = document.withString(timeNode, { EventTime.parseISO8601($0) }) ?? nil else {
            return .failure(Rejection(.invalidTimestamp, "timestamp is not ISO 8601 with a zone"))
        }
        var name: [UInt8]
        switch type {
        case .track:
            guard let node = eventNode,
                  let decoded = document.withString(node, { Array($0) }), !decoded.isEmpty
            else {
                return .failure(Rejection(.missingEventName, "a track message needs a non-empty string \"event\""))
            }
            name = decoded
        case .screen, .page:
            // `name`, else `event`: some SDKs and routers put a screen's name there.
            name = nameNode.flatMap { node in document.withString(node) { Array($0) } } ?? []
            if Event.isBlank(name), let node = eventNode, let event = document.withString(node, { Array($0) }), !Event.isBlank(event) {
                name = event
            }
        case .identify, .group, .alias, .session:
            name = type.routingName
        }
        return .success(Event(document: document, origin: origin, type: type, time: time, name: name))
    }

    /// Whether a name is empty or only ASCII white space (as `UnnamedNames` trims it).
    static func isBlank(_ name: [UInt8]) -> Bool {
        name.allSatisfy { $0 == 0x20 || ($0 >= 0x09 && $0 <= 0x0D) }
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
        case .duplicateKey: self.init(.duplicateKey, jsonError.message)
        case .notAnObject: self.init(.notAnObject, jsonError.message)
        case .invalidUTF8: self.init(.invalidUTF8, jsonError.message)
        default: self.init(.invalidJSON, jsonError.message)
        }
    }
}

/// Why a line or an event was rejected; the raw value is what the rejects file
/// and the stats say.
///
/// A struct rather than an enum so that a component declares its own reasons
/// beside its code (`extension RejectReason { static let … }` in its folder):
/// a new stage's or destination's reasons need no change here.
public struct RejectReason: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: String
    /// Declares a reason.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// A reason by name, if Sluice knows it (`allCases`).
    public init?(rawValue: String) {
        guard RejectReason.allCases.contains(where: { $0.rawValue == rawValue }) else { return nil }
        self.rawValue = rawValue
    }

    /// The reasons the input rejects with; each stage type and destination
    /// type adds its own (`StageType.rejectReasons`, `DestinationType.rejectReasons`)
    /// to make `allCases`.
    public static let core: [RejectReason] = [
        .lineTooLong, .invalidUTF8, .invalidJSON, .nestingTooDeep, .duplicateKey, .notAnObject, .missingType, .unknownType,
        .missingIdentity, .missingTimestamp, .invalidTimestamp, .missingEventName, .cutByShutdown,
        .corruptGzip,
    ]

    public static let lineTooLong = RejectReason("line_too_long")
    public static let invalidUTF8 = RejectReason("invalid_utf8")
    public static let invalidJSON = RejectReason("invalid_json")
    public static let nestingTooDeep = RejectReason("nesting_too_deep")
    public static let duplicateKey = RejectReason("duplicate_key")
    public static let notAnObject = RejectReason("not_an_object")
    public static let missingType = RejectReason("missing_type")
    public static let unknownType = RejectReason("unknown_type")
    public static let missingIdentity = RejectReason("missing_identity")
    public static let missingTimestamp = RejectReason("missing_timestamp")
    public static let invalidTimestamp = RejectReason("invalid_timestamp")
    public static let missingEventName = RejectReason("missing_event_name")
    /// The input stopped (SIGTERM, SIGINT) in the middle of this line: the bytes read of it are kept in the rejects.
    public static let cutByShutdown = RejectReason("cut_by_shutdown")
    /// The line holds bytes of a gzip member that failed its CRC-32 or length
    /// check, or was cut by the damage: its bytes are kept in the rejects, never delivered.
    public static let corruptGzip = RejectReason("corrupt_gzip")

    public var description: String { rawValue }
    public static func < (lhs: RejectReason, rhs: RejectReason) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Why an event was dropped by a rule (counted, not rejected); the raw value
/// is what the stats say.
///
/// Open like `RejectReason`: a stage declares the reasons it drops with beside
/// its code (`extension DropReason { static let … }` in its folder) and lists
/// them in its `StageType`; only the fan-out's own reasons are declared here.
public struct DropReason: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: String
    /// Declares a reason.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// A reason by name, if Sluice knows it (`allCases`).
    public init?(rawValue: String) {
        guard DropReason.allCases.contains(where: { $0.rawValue == rawValue }) else { return nil }
        self.rawValue = rawValue
    }

    /// The reasons the fan-out drops with; each stage type adds its own
    /// (`StageType.dropReasons`) to make `allCases`.
    public static let core: [DropReason] = [.unrouted, .stdoutClosed]

    /// Routed to no destination: every destination's `events:` or the message's `integrations` excluded it.
    public static let unrouted = DropReason("unrouted")
    /// The only destination that took the event was stdout, and its reader had
    /// closed the pipe (`| head`) before the event's records were written.
    public static let stdoutClosed = DropReason("stdout_closed")

    public var description: String { rawValue }
    public static func < (lhs: DropReason, rhs: DropReason) -> Bool { lhs.rawValue < rhs.rawValue }
}
