import SluiceJSON

/// The `timed` stage: pairs a timed event's start and stop into one event with
/// `properties.duration_ms`, and lets out what never pairs, with a reason.
///
/// Time is event time only. The watermark is the latest event time seen minus
/// `lateness`; an entry is due once the watermark passes its deadline (a
/// start's time + `expire_after`; a held stop's own time). So a message that is
/// at most `lateness` late still finds its partner, and the same input gives
/// the same output however it is split or replayed.
///
/// Rules, for one key (identity + event name + correlate fields):
/// - a stop pairs with the open start when `0 ≤ stop − start ≤ expire_after`;
///   a start later than the stop never pairs with it (no negative durations);
/// - a stop with no start to pair is held until the watermark passes its time,
///   pairing with a start that arrives late, then let out as an orphan;
/// - a second start restarts the timer: the earlier start (by event time) is
///   abandoned, reason `restarted`;
/// - a start is abandoned `expired` (watermark, or a stop too late for it),
///   `evicted` (more than `max_open` entries, or more than `max_open_bytes` of
///   them), or `end_of_input`.
///
/// Memory per entry: one `OpenTimerTable` slot (96 B), a heap item (24 B), a
/// hash bucket (8 B at ≤ 50% load) and one byte array: the key plus, for a
/// start, its line when it may be emitted again (`on_abandoned: emit`) or only
/// its `timestamp` and `properties` text (`on_abandoned: drop`); for a held
/// stop, its line. No parsed document is kept: a line let out is marked by splicing
/// its text and parsed once.
public struct TimedEventPairing: EventTimeStage {
    public static let type = StageType(key: "timed", rejectReasons: [.orphanStop], dropReasons: [.abandonedTimer], gauges: [
        StageGauge(counter: "open_high_water", metric: "timed_open_high_water_timers",
                   help: "The most timers (starts and waiting stops) the timed stage held open at once."),
        StageGauge(counter: "open_bytes_high_water", metric: "timed_open_high_water_bytes",
                   help: "The most bytes the timed stage's open timers took at once."),
    ]) { node, reader in
        TimedSettings.read(node, &reader).map { TimedEventPairing(settings: $0) }
    }

    /// Why a start was let out without its stop: the `abandon_reason` value.
    enum AbandonReason: String {
        case expired, evicted, restarted
        case endOfInput = "end_of_input"
    }

    public let name = "timed"
    public let settings: TimedSettings
    /// The marker's key when it is a top-level field: one member look-up per track.
    private let markerKey: [UInt8]?
    let expireAfter: Int64
    let lateness: Int64
    var keys: TimerKeyBuilder
    var table = OpenTimerTable()
    var latest = Int64.min
    var watermark = Int64.min
    var arrivals: UInt64 = 0
    var stats = Counters()
    /// While `finish` goes in steps: the slots in the order they are let out, and how many are out.
    private var finishOrder: [Int32]?
    private var finishPosition = 0

    struct Counters {
        var completed = 0
        var abandonedExpired = 0
        var abandonedEvicted = 0
        var abandonedEndOfInput = 0
        var abandonedRestarted = 0
        var orphanStops = 0
        var restarts = 0
        var openHighWater = 0
        var openBytesHighWater = 0
    }

    public init(settings: TimedSettings = TimedSettings()) {
        self.settings = settings
        markerKey = settings.marker.components.count == 1 ? settings.marker.components[0] : nil
        expireAfter = Self.microseconds(settings.expireAfter)
        lateness = Self.microseconds(settings.lateness)
        keys = TimerKeyBuilder(correlate: settings.correlate)
    }

    public var toleratedLateness: Duration? { settings.lateness }

    public var counters: [(name: String, value: Int)] {
        [("completed", stats.completed),
         ("abandoned_expired", stats.abandonedExpired),
         ("abandoned_evicted", stats.abandonedEvicted),
         ("abandoned_end_of_input", stats.abandonedEndOfInput),
         ("abandoned_restarted", stats.abandonedRestarted),
         ("orphan_stops", stats.orphanStops),
         ("restarts", stats.restarts),
         ("open_high_water", stats.openHighWater),
         ("open_bytes_high_water", stats.openBytesHighWater)]
    }

    /// Open starts plus held stops right now.
    var openCount: Int { table.count }

    // MARK: - Stage

    public mutating func process(_ event: consuming Event, into output: inout StageOutput) {
        advanceClock(to: event.time.microseconds, into: &output)
        guard event.type == .track, let role = role(of: event.document) else {
            output.emit(event)
            return
        }
        let event = TimedEventRewrite.applyingEdits(event)
        guard let hash = keys.build(event.document, name: event.name) else {
            output.emit(event)
            return
        }
        arrivals += 1
        switch role {
        case .start: start(event, hash: hash, into: &output)
        case .stop: stop(event, hash: hash, into: &output)
        }
        // A message later than the lateness may already be due.
        releaseDue(into: &output)
    }

    /// Event time reached `time` (`--watermark-end`): starts whose expiry the
    /// watermark passes are abandoned `expired`, stops held past it are orphans.
    public mutating func advance(to time: EventTime, into output: inout StageOutput) {
        advanceClock(to: time.microseconds, into: &output)
    }

    /// Moves the latest event time (and the watermark with it) forward and lets out what fell due.
    private mutating func advanceClock(to time: Int64, into output: inout StageOutput) {
        guard time > latest else { return }
        latest = time
        watermark = time > Int64.min + lateness ? time - lateness : Int64.min
        releaseDue(into: &output)
    }

    /// At end of input every open start is abandoned (`end_of_input`) and every
    /// held stop let out as an orphan, in event-time order, then arrival order.
    public mutating func finish(into output: inout StageOutput) {
        while !finish(into: &output, limit: Int.max) {}
    }

    /// `finish` a step at a time: each entry leaves the table as it is let
    /// out, so its bytes are freed while the events made of the others flow on.
    public mutating func finish(into output: inout StageOutput, limit: Int) -> Bool {
        if finishOrder == nil {
            finishOrder = table.liveSlots.sorted {
                let a = table[$0], b = table[$1]
                return a.time != b.time ? a.time < b.time : a.seq < b.seq
            }
            finishPosition = 0
        }
        let order = finishOrder!
        let end = order.count - finishPosition > limit ? finishPosition + limit : order.count
        while finishPosition < end {
            let entry = table.remove(order[finishPosition])
            finishPosition += 1
            if entry.kind == .start {
                abandon(entry, .endOfInput, into: &output)
            } else {
                orphan(held: entry, into: &output)
            }
        }
        guard finishPosition == order.count else { return false }
        finishOrder = nil
        table.removeAll()
        return true
    }

    // MARK: - Rules

    private enum Role { case start, stop }

    @inline(__always)
    private func role(of document: JSONDocument) -> Role? {
        let node: Int?
        if let markerKey {
            node = document.member(markerKey)
        } else {
            node = document.find(settings.marker)
        }
        guard let node else { return nil }
        return document.withString(node) { value -> Role? in
            if value.elementsEqual("start".utf8) { return .start }
            if value.elementsEqual("stop".utf8) { return .stop }
            return nil
        } ?? nil
    }

    private mutating func start(_ event: Event, hash: UInt32, into output: inout StageOutput) {
        let time = event.time.microseconds
        var open: Int32?
        var held: Int32?
        keys.bytes.withSpan { key in
            table.forEach(key: key, hash: hash) { slot in
                let entry = table[slot]
                switch entry.kind {
                case .start:
                    open = slot
                case .heldStop:
                    // The nearest stop at or after this start, within expire_after.
                    let gap = entry.time.microseconds - time
                    guard gap >= 0, gap <= expireAfter else { return }
                    if let best = held.map({ table[$0] }), (best.time, best.seq) <= (entry.time, entry.seq) { return }
                    held = slot
                case .free:
                    break
                }
            }
        }
        if let held {
            // A stop that arrived first: pair now.
            let stop = table.remove(held)
            let stopEvent = TimedEventRewrite.event(from: stop.payload, origin: stop.origin, time: stop.time, withheld: stop.withheld)
            let document = event.document
            let properties = document.member("properties").map { document.rawBytes($0)[...] } ?? []
            let timestamp = document.member("timestamp").map { document.rawBytes($0)[...] } ?? []
            let session = document.find(TimedEventRewrite.sessionPath).map { document.rawBytes($0)[...] } ?? []
            output.emit(TimedEventRewrite.completed(stop: stopEvent, startTime: event.time, startTimestamp: timestamp,
                                                    startProperties: properties, startSession: session,
                                                    startWithheld: event.withheld, marker: settings.marker))
            output.merge(event.origin)
            stats.completed += 1
            return
        }
        if let open {
            stats.restarts += 1
            if table[open].time <= event.time {
                abandon(table.remove(open), .restarted, into: &output)
            } else {
                // This start arrived late and is older than the open one: it is the one restarted.
                table.touch(open)
                abandon(event, .restarted, into: &output)
                return
            }
        }
        insert(.start, event, hash: hash, deadline: deadline(of: .start, at: time), into: &output)
    }

    private mutating func stop(_ event: Event, hash: UInt32, into output: inout StageOutput) {
        var open: Int32?
        keys.bytes.withSpan { key in
            table.forEach(key: key, hash: hash) { slot in
                if table[slot].kind == .start { open = slot }
            }
        }
        if let open, table[open].time <= event.time {
            let start = table.remove(open)
            if event.time.microseconds - start.time.microseconds <= expireAfter {
                output.emit(TimedEventRewrite.completed(stop: event, startTime: start.time, startTimestamp: start.timestamp,
                                                        startProperties: start.properties,
                                                        startSession: startSession(start, stop: event),
                                                        startWithheld: start.withheld, marker: settings.marker))
                output.merge(start.origin)
                stats.completed += 1
                return
            }
            // The stop came too long after the start: the start had expired.
            abandon(start, .expired, into: &output)
        }
        if event.time.microseconds < watermark {
            // Any start for it that was going to arrive has arrived.
            orphan(event, into: &output)
        } else {
            insert(.heldStop, event, hash: hash, deadline: deadline(of: .heldStop, at: event.time.microseconds), into: &output)
        }
    }

    // MARK: - State

    /// Keeps a start (or a stop waiting for its start), then lets the least
    /// recently touched entries go while there are more than `max_open`, or
    /// while they take more than `max_open_bytes` (an entry larger than that on
    /// its own goes at once).
    private mutating func insert(_ kind: OpenTimerTable.Kind, _ event: Event, hash: UInt32, deadline: Int64,
                                 into output: inout StageOutput) {
        let document = event.document
        let key = keys.bytes
        let keyLength = UInt32(key.count)
        var bytes: [UInt8] = []
        var timestamp = (start: keyLength, end: keyLength)
        var properties = (start: keyLength, end: keyLength)
        var marker = (start: keyLength, end: keyLength)
        let timestampNode = document.member("timestamp")
        let propertiesNode = document.member("properties")
        if kind == .start && settings.onAbandoned == .drop {
            // Never emitted again: keep only what a completed event takes from it.
            // And the start's `context.session` (a `session` stage before this one), last.
            let sessionNode = document.find(TimedEventRewrite.sessionPath)
            let timestampLength = timestampNode.map(document.rawLength) ?? 0
            let propertiesLength = propertiesNode.map(document.rawLength) ?? 0
            bytes.reserveCapacity(key.count + timestampLength + propertiesLength + (sessionNode.map(document.rawLength) ?? 0))
            bytes.append(contentsOf: key)
            for node in [timestampNode, propertiesNode, sessionNode] {
                if let node { document.withRawBytes(node) { bytes.append(contentsOf: $0) } }
            }
            timestamp.end = timestamp.start + UInt32(timestampLength)
            properties = (timestamp.end, timestamp.end + UInt32(propertiesLength))
        } else {
            bytes.reserveCapacity(key.count + document.byteCount)
            bytes.append(contentsOf: key)
            document.withLineBytes { bytes.append(contentsOf: $0) }
            if let timestampNode {
                timestamp = (keyLength + UInt32(document.start(timestampNode)), keyLength + UInt32(document.end(timestampNode)))
            }
            if let propertiesNode {
                properties = (keyLength + UInt32(document.start(propertiesNode)), keyLength + UInt32(document.end(propertiesNode)))
            }
            let range = markerValue(in: document)
            marker = (keyLength + UInt32(range.lowerBound), keyLength + UInt32(range.upperBound))
        }
        if OpenTimerTable.footprint(ofBytes: bytes.count) > settings.maxOpenBytes {
            // Larger than the whole budget on its own: it goes at once, the others stay.
            if kind == .start {
                abandon(event, .evicted, into: &output)
            } else {
                orphan(event, into: &output)
            }
            return
        }
        let entry = OpenTimerTable.Entry(
            bytes: bytes, time: event.time, seq: arrivals, line: event.origin.line, source: event.origin.source,
            hash: hash, keyLength: keyLength, heapIndex: -1, newer: -1, older: -1,
            timestampStart: timestamp.start, timestampEnd: timestamp.end,
            propertiesStart: properties.start, propertiesEnd: properties.end,
            markerStart: marker.start, markerEnd: marker.end, kind: kind, withheld: event.withheld)
        table.insert(entry, deadline: deadline)
        while table.count > settings.maxOpen || table.footprint > settings.maxOpenBytes, let slot = table.leastRecentlyTouched {
            let evicted = table.remove(slot)
            if evicted.kind == .start {
                abandon(evicted, .evicted, into: &output)
            } else {
                orphan(held: evicted, into: &output)
            }
        }
        stats.openHighWater = max(stats.openHighWater, table.count)
        stats.openBytesHighWater = max(stats.openBytesHighWater, table.footprint)
    }

    /// The raw `context.session` of a kept start, when the stop has one too (a
    /// `session` stage ran before this one): after its `properties` when only
    /// those are kept (`on_abandoned: drop`), else read from its line.
    private func startSession(_ start: OpenTimerTable.Entry, stop: Event) -> ArraySlice<UInt8> {
        guard stop.document.find(TimedEventRewrite.sessionPath) != nil else { return [] }
        if settings.onAbandoned == .drop {
            return start.bytes[max(Int(start.propertiesEnd), Int(start.timestampEnd))...]
        }
        guard let line = try? JSONDocument.parse(Array(start.payload)),
              let node = line.find(TimedEventRewrite.sessionPath) else { return [] }
        return line.rawBytes(node)[...]
    }

    /// The byte range of the marker's value in a document whose role was read from it.
    func markerValue(in document: JSONDocument) -> Range<Int> {
        let node = markerKey.map { key in document.member(key) } ?? document.find(settings.marker)
        guard let node else { preconditionFailure("a timed message without its marker") }
        return Int(document.start(node))..<Int(document.end(node))
    }

    /// Whole microseconds, the unit of `EventTime`; durations beyond ~292,000 years are capped.
    private static func microseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (micros, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        return overflow ? Int64.max / 2 : min(micros + attoseconds / 1_000_000_000_000, Int64.max / 2)
    }
}
