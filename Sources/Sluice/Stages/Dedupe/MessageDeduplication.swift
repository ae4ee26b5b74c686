import SluiceJSON

/// The `dedupe` stage: drops a message whose `messageId` was seen before
/// (dropped, reason `duplicate`), in bounded memory.
///
/// Rules:
/// - a message without a `messageId` (absent, `null` or `""`) passes;
/// - the first message with an id passes, and its id and payload are remembered
///   (as two 64-bit hashes, see `SeenMessageTable`);
/// - a later message with that id and the same payload is a duplicate;
/// - a later message with that id and a *different* payload is not a duplicate
///   but an id collision (Snowplow's "synthetic duplicate"): it is kept, counted
///   `id_collisions`, and by default renamed (`on_collision`). Its own re-sends
///   are duplicates of it;
/// - with a `window`, an id is remembered for that much event time after it was
///   first seen, on the stream's clock (the latest event time seen so far, since
///   a re-send carries the original's timestamp); after that it counts as new.
///
/// Beyond `max_ids` the oldest id is forgotten first (`evicted`), so a
/// duplicate arriving after more than `max_ids` other ids passes. The stage
/// never holds an event, so `finish` has nothing to let out.
public struct MessageDeduplication: EventTimeStage {
    public static let type = StageType(key: "dedupe", dropReasons: [.duplicate], gauges: [
        StageGauge(counter: "high_water", metric: "dedupe_high_water_ids", help: "The most message ids the dedupe stage remembered at once."),
    ]) { node, reader in
        DedupeSettings.read(node, &reader).map { MessageDeduplication(settings: $0) }
    }

    public let name = "dedupe"
    public let settings: DedupeSettings
    private let window: Int64?
    var table: SeenMessageTable
    private var fingerprint: MessageFingerprint
    var latest = Int64.min
    var stats = Counters()

    struct Counters {
        var duplicates = 0
        var idCollisions = 0
        var evicted = 0
        var expired = 0
        var withoutID = 0
        var highWater = 0
    }

    private static let messageIDPath = JSONPath("messageId")
    private static let duplicateOfPath = JSONPath("context.duplicate_of")

    public init(settings: DedupeSettings = DedupeSettings()) {
        self.settings = settings
        window = settings.window.map { Int64($0.components.seconds) * 1_000_000 + $0.components.attoseconds / 1_000_000_000_000 }
        table = SeenMessageTable(capacity: settings.maxIDs, keepsTimes: settings.window != nil)
        fingerprint = MessageFingerprint(ignoreFields: settings.ignoreFields)
    }

    public var counters: [(name: String, value: Int)] {
        [("duplicates", stats.duplicates),
         ("id_collisions", stats.idCollisions),
         ("evicted", stats.evicted),
         ("expired", stats.expired),
         ("without_id", stats.withoutID),
         ("high_water", stats.highWater)]
    }

    /// Ids remembered right now.
    var remembered: Int { table.count }

    /// Bytes of state per remembered id right now (ring entry plus index share).
    var bytesPerID: Double { table.bytesPerID }

    public mutating func process(_ event: consuming Event, into output: inout StageOutput) {
        guard let id = fingerprint.idHash(of: event) else {
            stats.withoutID += 1
            output.emit(event)
            return
        }
        // With a window, ids are timed by the stream's clock (the latest event time
        // seen), not by their own: a re-send carries the original's timestamp.
        let time = max(latest, event.time.microseconds)
        advanceClock(to: time)
        let payload = fingerprint.payloadHash(of: event)
        switch look(id: id, payload: payload, time: time) {
        case .same:
            stats.duplicates += 1
            output.drop(event.origin, .duplicate)
            return
        case .new:
            remember(id: id, payload: payload, time: time)
            output.emit(event)
            return
        case .differs:
            break
        }
        // Same id, other payload: look for this payload's own earlier copy.
        let derived = Self.collisionKey(id: id, payload: payload)
        switch look(id: derived, payload: payload, time: time) {
        case .same:
            stats.duplicates += 1
            output.drop(event.origin, .duplicate)
        case .new, .differs:
            // (`.differs` here would need two 64-bit hashes to collide at once; the key is then not stored twice.)
            if table.find(derived) == nil { remember(id: derived, payload: payload, time: time) }
            stats.idCollisions += 1
            var event = event
            if settings.onCollision == .rename { rename(&event, payload: payload) }
            output.emit(event)
        }
    }

    public mutating func finish(into output: inout StageOutput) {}

    /// The stream's clock reached `time` (`--watermark-end`): with a `window`, ids first seen more than it before are forgotten.
    public mutating func advance(to time: EventTime, into output: inout StageOutput) {
        advanceClock(to: time.microseconds)
    }

    private mutating func advanceClock(to time: Int64) {
        guard time > latest else { return }
        if let window { stats.expired += table.expire(before: time &- window) }
        latest = time
    }

    // MARK: - Steps

    private enum Sighting { case new, same, differs }

    private mutating func look(id: UInt64, payload: UInt64, time: Int64) -> Sighting {
        guard let position = table.find(id) else { return .new }
        if let window {
            if time &- table.time(at: position) > window {
                // Seen, but too long ago: forget the old sighting, this one is new.
                table.remove(at: position)
                stats.expired += 1
                return .new
            }
        }
        return table.payload(at: position) == payload ? .same : .differs
    }

    private mutating func remember(id: UInt64, payload: UInt64, time: Int64) {
        if table.insert(id: id, payload: payload, time: time) { stats.evicted += 1 }
        if table.count > stats.highWater { stats.highWater = table.count }
    }

    /// The key under which a colliding message is remembered: its id and payload together.
    static func collisionKey(id: UInt64, payload: UInt64) -> UInt64 {
        let key = StableHash.combine(id, payload)
        return key == 0 ? 1 : key
    }

    private func rename(_ event: inout Event, payload: UInt64) {
        let original = fingerprint.idText(event.document)
        var renamed = original
        renamed.append(UInt8(ascii: "-"))
        renamed.append(contentsOf: Self.hex16(payload))
        var json: [UInt8] = []
        JSONString.appendQuoted(renamed, to: &json)
        event.document.set(Self.messageIDPath, json: json)
        json.removeAll()
        JSONString.appendQuoted(original, to: &json)
        event.document.set(Self.duplicateOfPath, json: json)
        // Written into the bytes, so destinations reading `messageId` see the new one (collisions are rare).
        event.document = event.document.materialized()
    }

    static func hex16(_ value: UInt64) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        return (0..<16).map { digits[Int((value >> (60 - 4 * UInt64($0))) & 0xF)] }
    }
}

extension DropReason {
    /// A `messageId` the `dedupe` stage had seen before, with the same payload.
    static let duplicate = DropReason("duplicate")
}
