import SluiceJSON

/// The fields provider adapters read from an event, found in one pass over the
/// message and one over its `context` (not one linear look-up per field).
///
/// Session data comes from the `session` stage (`context.session`), timed-event
/// data from the `timed` stage (`timed`, `started_at`, `properties.duration_ms`);
/// both are optional, and adapters fall back when they are absent. Node indexes
/// point into `document`; a field that is absent, or not of the kind expected
/// (an id that is not a non-empty string, `properties` that is not an object), is nil.
final class EventFields {
    /// What the `timed` stage made of a timed message.
    enum Timed: Equatable {
        case completed(durationMs: Int64?)
        case abandoned
        case orphanStop
        case start, stop
    }

    struct Session: Equatable {
        /// `context.session.id`: the node index of the string.
        var id: Int?
        var startMs: Int64?
        var number: Int64?
        var seq: Int64?
        var engagementMs: Int64?
    }

    /// The `context` strings providers map onto fields of their own.
    enum ContextField: CaseIterable {
        case osName, osVersion, deviceModel, deviceManufacturer, deviceID, advertisingID, appVersion, appBuild, ip
    }

    let document: JSONDocument
    @exclusivity(unchecked) private(set) var userIdNode: Int?
    @exclusivity(unchecked) private(set) var anonymousIdNode: Int?
    @exclusivity(unchecked) private(set) var messageIdNode: Int?
    @exclusivity(unchecked) private(set) var properties: Int?
    @exclusivity(unchecked) private(set) var traits: Int?
    @exclusivity(unchecked) private(set) var context: Int?
    /// `context.traits`, an object.
    @exclusivity(unchecked) private(set) var contextTraits: Int?

    /// What an `identify` sets: its `traits`, else (none, or `{}`) `context.traits`,
    /// where some SDKs send them (RudderStack's destinations read both the same way).
    var identifyTraits: Int? {
        if let traits {
            var empty = true
            document.forEachMember(of: traits) { _, _ in empty = false }
            if !empty { return traits }
        }
        return contextTraits ?? traits
    }
    @exclusivity(unchecked) private(set) var startedAt: Int?
    @exclusivity(unchecked) private(set) var timed: Timed?
    @exclusivity(unchecked) private(set) var session: Session?
    /// `started_session`: the session a completed timed event's start was in, when
    /// that is not the event's own (see `TimedEventRewrite.completed`).
    @exclusivity(unchecked) private(set) var startedSession: Session?
    /// The `context` fields providers map beyond the device ones (`campaign`, `page`, ...).
    @exclusivity(unchecked) private(set) var mapped = MappedContext()
    let time: EventTime
    @exclusivity(unchecked) private var contextNodes: (Int?, Int?, Int?, Int?, Int?, Int?, Int?, Int?, Int?) = (nil, nil, nil, nil, nil, nil, nil, nil, nil)

    /// `memo`: what the last event's `context` held, reused when this one's is the same text
    /// (kept by its holder, the encoding context, for the fields' first reading).
    init(_ event: borrowing Event, memo: ContextMemo? = nil) {
        let document = event.document
        self.document = document
        time = event.time
        var timedNode: Int?, userIdNode: Int?, anonymousIdNode: Int?, messageIdNode: Int?
        var properties: Int?, traits: Int?, context: Int?, startedAt: Int?, startedSession: Int?
        document.forEachMember(of: 0) { key, value in
            let kind = document.kind(value)
            switch document.end(key) - document.start(key) - 2 {
            case 5:
                if timedNode == nil, document.string(key, is: "timed") { timedNode = value }
            case 6:
                if userIdNode == nil, document.string(key, is: "userId") { userIdNode = value }
                if traits == nil, kind == .object, document.string(key, is: "traits") { traits = value }
            case 7:
                if context == nil, kind == .object, document.string(key, is: "context") { context = value }
            case 9:
                if messageIdNode == nil, document.string(key, is: "messageId") { messageIdNode = value }
            case 10:
                if properties == nil, kind == .object, document.string(key, is: "properties") { properties = value }
                if startedAt == nil, kind == .string, document.string(key, is: "started_at") { startedAt = value }
            case 11:
                if anonymousIdNode == nil, document.string(key, is: "anonymousId") { anonymousIdNode = value }
            case 15:
                if startedSession == nil, kind == .object, document.string(key, is: "started_session") { startedSession = value }
            default:
                break
            }
        }
        // The first member of each name decides, as for every other reader; one that is
        // not an id by `MessageIdentity`'s rule (`""`, blank, null) counts as absent.
        self.userIdNode = MessageIdentity.id(document, userIdNode)
        self.anonymousIdNode = MessageIdentity.id(document, anonymousIdNode)
        self.messageIdNode = MessageIdentity.id(document, messageIdNode)
        self.properties = properties
        self.traits = traits
        self.context = context
        self.startedAt = startedAt
        if let startedSession { self.startedSession = EventFields.readSession(document, startedSession) }
        if let timedNode { timed = EventFields.timedState(document, timedNode, properties: properties) }
        if let context {
            if let memo, !document.isModified {
                readContext(context, memo: memo)
            } else {
                readContext(context)
            }
        }
    }

    /// `readContext`, or its findings for the same text last time, moved to
    /// this document: the same bytes parse to the same nodes, in the same order.
    ///
    /// A `session` object written last (where the session stage puts it, and
    /// different in every event: its `seq`, its engagement) is left out of the
    /// comparison and read each time, so that the rest is still reused.
    private func readContext(_ context: Int, memo: ContextMemo) {
        // The trailing session is looked for only when the memo holds a context that had one, or on a miss.
        var trailingSession: Int?
        var compared: Int?
        if memo.isPrefix {
            trailingSession = EventFields.trailingSession(document, context)
            compared = trailingSession.map { document.start($0) - document.start(context) }
        }
        let found = document.withSpan(of: context) { memo.matches($0, prefix: compared) }
        if !found && !memo.isPrefix {
            trailingSession = EventFields.trailingSession(document, context)
            compared = trailingSession.map { document.start($0) - document.start(context) }
        }
        if found {
            let shift = context - memo.context
            @inline(__always) func moved(_ index: Int?) -> Int? { index.map { $0 + shift } }
            let nodes = memo.contextNodes
            contextNodes = (moved(nodes.0), moved(nodes.1), moved(nodes.2), moved(nodes.3), moved(nodes.4), moved(nodes.5),
                            moved(nodes.6), moved(nodes.7), moved(nodes.8))
            contextTraits = moved(memo.contextTraits)
            if let trailingSession {
                session = EventFields.readSession(document, trailingSession + 1)
            } else {
                session = memo.session.map { var session = $0; session.id = moved(session.id); return session }
            }
            mapped = memo.mapped.moved(by: shift)
            return
        }
        readContext(context)
        document.withSpan(of: context) { text in
            memo.store(text, prefix: compared, context: context, contextNodes: contextNodes, contextTraits: contextTraits,
                       session: session, mapped: mapped)
        }
    }

    /// The key of the object's last member when it is `"session"` (written so, no escapes) and its value an object.
    private static func trailingSession(_ document: JSONDocument, _ object: Int) -> Int? {
        let end = document.after(object)
        var key = object + 1
        var last = -1
        while key < end {
            last = key
            key = document.after(key + 1)
        }
        guard last >= 0, document.kind(last + 1) == .object, document.rawLength(last) == 9, !document.hasEscapes(last),
              document.string(last, is: "session") else { return nil }
        return last
    }

    private func readContext(_ context: Int) {
        let document = self.document
        var os: Int?, device: Int?, app: Int?, sessionNode: Int?, traits: Int?, ip: Int?
        mapped = MappedContext(base: context)
        document.forEachMember(of: context) { key, value in
            // By the key's length first: one comparison per member, not one per name.
            switch (document.kind(value), document.decodedLength(key)) {
            case (.object, 2): if os == nil, document.string(key, is: "os") { os = value }
            case (.object, 3): if app == nil, document.string(key, is: "app") { app = value }
            case (.object, 6):
                if device == nil, document.string(key, is: "device") { device = value }
                else if traits == nil, document.string(key, is: "traits") { traits = value }
                else { mapped.readMember(document, key, value) }
            case (.object, 7):
                if sessionNode == nil, document.string(key, is: "session") { sessionNode = value }
                else { mapped.readMember(document, key, value) }
            case (.string, 2): if ip == nil, document.string(key, is: "ip"), document.decodedLength(value) > 0 { ip = value }
            case (.object, 4), (.object, 8), (.string, 6): mapped.readMember(document, key, value)
            default: break
            }
        }
        contextTraits = traits
        contextNodes.8 = ip
        // One pass over each of `os`, `device` and `app` (not one look-up per field).
        if let os { (contextNodes.0, contextNodes.1, _, _) = stringMembers(of: os, "name", "version") }
        if let device {
            (contextNodes.2, contextNodes.3, contextNodes.4, contextNodes.5) =
                stringMembers(of: device, "model", "manufacturer", "id", "advertisingId")
        }
        if let app { (contextNodes.6, contextNodes.7, _, _) = stringMembers(of: app, "version", "build") }
        if let sessionNode { session = EventFields.readSession(document, sessionNode) }
    }

    /// A `context.session` (or `started_session`) object's fields, in one pass; the
    /// numbers are read only if they are integers, the id only if a string.
    static func readSession(_ document: JSONDocument, _ node: Int) -> Session {
        var found = Session()
        var seen = 0
        document.forEachMember(of: node) { key, value in
            switch document.decodedLength(key) {
            case 2 where seen & 1 == 0 && document.string(key, is: "id"):
                seen |= 1
                if document.kind(value) == .string { found.id = value }
            case 3 where seen & 2 == 0 && document.string(key, is: "seq"):
                seen |= 2
                found.seq = EventFields.integer(document, value)
            case 6 where seen & 4 == 0 && document.string(key, is: "number"):
                seen |= 4
                found.number = EventFields.integer(document, value)
            case 8 where seen & 8 == 0 && document.string(key, is: "start_ms"):
                seen |= 8
                found.startMs = EventFields.integer(document, value)
            case 13 where seen & 16 == 0 && document.string(key, is: "engagement_ms"):
                seen |= 16
                found.engagementMs = EventFields.integer(document, value)
            default:
                break
            }
        }
        return found
    }

    /// The string members of `object` under up to four keys, found in one pass:
    /// for each key the first member of that name, nil unless it is a string.
    @inline(__always)
    private func stringMembers(of object: Int, _ key0: StaticString, _ key1: StaticString,
                               _ key2: StaticString? = nil, _ key3: StaticString? = nil) -> (Int?, Int?, Int?, Int?) {
        var found: (Int?, Int?, Int?, Int?) = (nil, nil, nil, nil)
        var seen = 0
        document.forEachMember(of: object) { key, value in
            let index: Int
            if seen & 1 == 0, document.string(key, is: key0) { index = 0 }
            else if seen & 2 == 0, document.string(key, is: key1) { index = 1 }
            else if seen & 4 == 0, let key2, document.string(key, is: key2) { index = 2 }
            else if seen & 8 == 0, let key3, document.string(key, is: key3) { index = 3 }
            else { return }
            seen |= 1 << index
            // An empty string is no value: providers get the field left out, not `""`.
            guard document.kind(value) == .string, document.rawLength(value) > 2 else { return }
            switch index {
            case 0: found.0 = value
            case 1: found.1 = value
            case 2: found.2 = value
            default: found.3 = value
            }
        }
        return found
    }

    private static func timedState(_ document: JSONDocument, _ node: Int, properties: Int?) -> Timed? {
        if document.string(node, is: "completed") {
            let duration = properties.flatMap { document.member("duration_ms", of: $0) }.flatMap { integer(document, $0) }
            return .completed(durationMs: duration)
        }
        if document.string(node, is: "abandoned") { return .abandoned }
        if document.string(node, is: "orphan_stop") { return .orphanStop }
        if document.string(node, is: "start") { return .start }
        if document.string(node, is: "stop") { return .stop }
        return nil
    }

    /// The node index of a `context` string, if the event has it.
    @inline(__always)
    func node(_ field: ContextField) -> Int? {
        switch field {
        case .osName: return contextNodes.0
        case .osVersion: return contextNodes.1
        case .deviceModel: return contextNodes.2
        case .deviceManufacturer: return contextNodes.3
        case .deviceID: return contextNodes.4
        case .advertisingID: return contextNodes.5
        case .appVersion: return contextNodes.6
        case .appBuild: return contextNodes.7
        case .ip: return contextNodes.8
        }
    }

    /// Calls `body` with the decoded UTF-8 of a string node.
    @inline(__always)
    func withBytes<R>(_ node: Int, _ body: (Span<UInt8>) -> R) -> R {
        document.withStringSpan(node, body)!
    }

    var userId: [UInt8]? { userIdNode.map { MessageIdentity.text(document, $0) } }
    var anonymousId: [UInt8]? { anonymousIdNode.map { MessageIdentity.text(document, $0) } }
    var messageId: [UInt8]? { messageIdNode.map { MessageIdentity.text(document, $0) } }

    /// Calls `body` with the text of an id node (`userIdNode`, `anonymousIdNode`, `messageIdNode`).
    @inline(__always)
    func withID<R>(_ node: Int, _ body: (Span<UInt8>) -> R) -> R {
        MessageIdentity.withTextSpan(document, node, body)
    }

    /// The value of a JSON integer node (no fraction, no exponent, fits 64 bits), parsed from its bytes.
    static func integer(_ document: JSONDocument, _ node: Int) -> Int64? {
        guard document.kind(node) == .number else { return nil }
        return document.withSpan(of: node) { raw in integer(raw) }
    }

    /// The value of a JSON integer's text (no fraction, no exponent, fits 64 bits).
    private static func integer(_ raw: Span<UInt8>) -> Int64? {
        var index = 0
        var negative = false
        if index < raw.count && raw[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        guard index < raw.count else { return nil }
        var value: Int64 = 0
        while index < raw.count {
            let digit = raw[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (scaled, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = negative ? scaled.subtractingReportingOverflow(Int64(digit)) : scaled.addingReportingOverflow(Int64(digit))
            if overflow1 || overflow2 { return nil }
            value = next
            index += 1
        }
        return value
    }

    /// The value of a JSON number node as a Double.
    static func double(_ document: JSONDocument, _ node: Int) -> Double? {
        guard document.kind(node) == .number else { return nil }
        return Double(document.withRawBytes(node) { String(decoding: $0, as: UTF8.self) })
    }
}

/// What `EventFields` found in the last `context` object it read, and that
/// object's text: the events of one device come in runs with the same
/// `context` (app, device, os, locale, the address), so most events find
/// their context fields here instead of reading the object again. One per
/// `EncodingContext` (one thread); node indexes are kept as they were for
/// `context`, the object's index then.
final class ContextMemo {
    /// Objects larger than this are read each time (comparing costs more than it saves there).
    static let maxBytes = 4096
    @exclusivity(unchecked) private var text: [UInt8] = []
    @exclusivity(unchecked) private var count = -1
    @exclusivity(unchecked) private(set) var context = 0
    @exclusivity(unchecked) private(set) var contextNodes: (Int?, Int?, Int?, Int?, Int?, Int?, Int?, Int?, Int?) = (nil, nil, nil, nil, nil, nil, nil, nil, nil)
    @exclusivity(unchecked) private(set) var contextTraits: Int?
    @exclusivity(unchecked) private(set) var session: EventFields.Session?
    @exclusivity(unchecked) private(set) var mapped = MappedContext()
    init() { text.reserveCapacity(ContextMemo.maxBytes) }

    /// Whether the object's text was stored only up to its last member (a `session`).
    @exclusivity(unchecked) private(set) var isPrefix = false

    /// Whether `bytes` is the text of the object stored last; `prefix`: compare
    /// only its first `prefix` bytes, up to a trailing `session` member, and
    /// only with an object stored so too.
    func matches(_ bytes: Span<UInt8>, prefix: Int?) -> Bool {
        let length = prefix ?? bytes.count
        return length == count && (prefix != nil) == isPrefix && text.withSpan { ByteSpans.equal(bytes.extracting(0..<length), $0) }
    }

    func store(_ bytes: Span<UInt8>, prefix: Int?, context: Int,
               contextNodes: (Int?, Int?, Int?, Int?, Int?, Int?, Int?, Int?, Int?),
               contextTraits: Int?, session: EventFields.Session?, mapped: MappedContext) {
        let length = prefix ?? bytes.count
        guard length <= ContextMemo.maxBytes else {
            count = -1
            return
        }
        text.replaceAll(with: bytes.extracting(0..<length))
        count = length
        isPrefix = prefix != nil
        self.context = context
        self.contextNodes = contextNodes
        self.contextTraits = contextTraits
        self.session = session
        self.mapped = mapped
    }
}
