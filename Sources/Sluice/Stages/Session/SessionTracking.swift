import SluiceJSON

/// The `session` stage: gives every event `context.session` (id, start, number,
/// sequence, authenticated, engagement time, and as configured the device's
/// settings and allowlisted traits), from per-device state driven by event time.
///
/// A device is its `anonymousId` (a message with only a `userId` is keyed by
/// that). A device's event starts a new session when:
/// - it is a `session` message with `action: start` (`started_session_message`);
/// - it signs in as someone else, or its `userId` disappears after a sign-out
///   event (`started_user_change`); signing in from anonymous does not: it makes
///   the running session authenticated;
/// - it comes more than `inactivity` after the device's previous event (`started_inactivity`);
/// - the session is older than `max_length` (`started_max_length`);
/// - the device is new, or was evicted (`started_first_seen`).
///
/// An event earlier than the device's latest one is late: it is placed in the
/// session that was current at its time (the one that started last at or
/// before it), takes the next `seq` there with `engagement_ms` 1 (the interval
/// it falls in was already counted by the event after it), and changes nothing
/// else: it never starts a session, stretches one, signs in or out, or changes
/// settings or traits (`late_events_placed`). Each device keeps its last few
/// sessions for this until the watermark (latest event time minus `lateness`)
/// passes the start of the session after them. A late event older than every
/// session the device still remembers gets no session (`late_events_too_late`):
/// never one that started after it.
///
/// A completed timed event (a `timed` stage before this one) whose start
/// (`started_at`) fell in an earlier session than the event's own gets that
/// session as `started_session` (`{}` when it is no longer remembered).
///
/// Memory: a 72-byte `DeviceRecord` per device plus its share of the index
/// (8–16 B), see `DeviceTable`; past sessions (48 B each) only for devices
/// whose session changed within about `lateness`; each distinct settings and
/// traits value once. Time is event time only; the same input gives the same
/// output however it is split into files.
public struct SessionTracking: EventTimeStage {
    public static let type = StageType(key: "session", gauges: [
        StageGauge(counter: "devices", metric: "session_tracked_devices", help: "Devices the session stage tracks now."),
        StageGauge(counter: "devices_high_water", metric: "session_high_water_devices",
                   help: "The most devices the session stage tracked at once."),
    ]) { node, reader in
        SessionSettings.read(node, &reader).map { SessionTracking(settings: $0) }
    }

    /// Why a session started: the counter's name.
    enum StartCause: Int, CaseIterable {
        case sessionMessage, inactivity, userChange, maxLength, firstSeen

        var counterName: String {
            switch self {
            case .sessionMessage: return "started_session_message"
            case .inactivity: return "started_inactivity"
            case .userChange: return "started_user_change"
            case .maxLength: return "started_max_length"
            case .firstSeen: return "started_first_seen"
            }
        }
    }

    public let name = "session"
    public let settings: SessionSettings
    private let inactivity: Int64
    private let maxLength: Int64
    private let lateness: Int64
    let signOutEvents: [[UInt8]]
    let traitNames: [[UInt8]]
    var devices: DeviceTable
    var past = PastSessions()
    var settingsPool = InternedJSON()
    var traitsPool = InternedJSON()
    var latest = Int64.min
    var stats = Counters()
    /// Scratch for the member attached to each event, reset before every use: a
    /// class, so copies of the stage share it (runners never run one concurrently).
    private let builder = JSONBuilder()

    struct Counters {
        var started = [Int](repeating: 0, count: StartCause.allCases.count)
        var evicted = 0
        var latePlaced = 0
        var tooLate = 0
        var devicesHighWater = 0
        var notAttached = 0
        /// `settings` or a trait value that would nest the event past `JSONDocument.maxDepth`: not attached.
        var tooDeep = 0
    }

    static let sessionPath = JSONPath("context.session")

    public init(settings: SessionSettings = SessionSettings()) {
        self.settings = settings
        inactivity = SessionSettings.microseconds(settings.inactivity)
        maxLength = SessionSettings.microseconds(settings.maxLength)
        lateness = SessionSettings.microseconds(settings.lateness)
        signOutEvents = settings.signOutEvents.map { Array($0.utf8) }
        traitNames = settings.attachTraits.map { Array($0.utf8) }
        devices = DeviceTable(reserving: settings.maxDevices)
    }

    public var toleratedLateness: Duration? { settings.lateness }

    public var counters: [(name: String, value: Int)] {
        StartCause.allCases.map { ($0.counterName, stats.started[$0.rawValue]) } + [
            ("evicted", stats.evicted),
            ("late_events_placed", stats.latePlaced),
            ("late_events_too_late", stats.tooLate),
            ("devices", devices.count),
            ("devices_high_water", stats.devicesHighWater),
            ("not_attached", stats.notAttached),
            ("too_deep_to_attach", stats.tooDeep),
        ]
    }

    /// Bytes of state per tracked device right now (record plus index share).
    var bytesPerDevice: Double { devices.bytesPerDevice }

    public mutating func process(_ event: consuming Event, into output: inout StageOutput) {
        let time = event.time.microseconds
        advanceClock(to: time)
        let key = Self.deviceKey(of: event)
        let user = Self.userHash(of: event)
        let context: SessionContext?
        var slot = devices.find(keyA: key.a, keyB: key.b)
        if let found = slot {
            devices.touch(found)
            if time < devices[found].last {
                context = placeLate(found, time: time)
            } else {
                context = advance(found, event, time: time, user: user)
            }
        } else {
            let admitted = admit(event, key: key, time: time, user: user)
            context = admitted.context
            slot = admitted.slot
        }
        if let context {
            if !attach(context, to: &event.document) { stats.notAttached += 1 }
            if event.type == .track, let slot { attachStartedSession(slot, current: context, to: &event.document) }
        } else {
            detachSession(from: &event.document)
        }
        output.emit(event)
    }

    private static let startedAtKey = Array("started_at".utf8)
    static let startedSessionPath = JSONPath("started_session")

    /// A completed timed event (an upstream `timed` stage) whose start fell in an
    /// earlier session than its stop: `started_session` says which, so a provider
    /// that writes the start on its own (GA4 `timed: split`) files it there.
    private mutating func attachStartedSession(_ slot: Int32, current: SessionContext, to document: inout JSONDocument) {
        guard let node = document.member(Self.startedAtKey),
              let started = document.withString(node, { EventTime.parseISO8601($0) }) ?? nil,
              started.microseconds < current.start
        else { return }
        builder.reset()
        if let session = sessionAt(slot, time: started.microseconds) {
            session.write(into: builder, settingsPool: settingsPool, traitsPool: traitsPool)
        } else {
            // Before everything the device remembers: the start had no session we know.
            builder.beginObject()
            builder.endObject()
        }
        guard document.set(Self.startedSessionPath, json: builder.bytes) else { return }
        document = document.materialized()
    }

    /// Leaves an event placed in no session without one: a `context.session` it
    /// came with (a replayed file) would name a session that is not its own.
    private func detachSession(from document: inout JSONDocument) {
        guard document.find(Self.sessionPath) != nil, document.remove(Self.sessionPath) else { return }
        document = document.materialized()
    }

    private static let contextKey = Array("context".utf8)
    private static let sessionKey = Array("session".utf8)

    /// Puts `context.session` into the document's bytes and index (not as a
    /// pending edit), so destinations and later stages can read it and the
    /// writer copies the line whole; false when `context` is not an object.
    private mutating func attach(_ session: SessionContext, to document: inout JSONDocument) -> Bool {
        builder.reset()
        let context = document.member(Self.contextKey)
        if !document.isModified {
            if let context {
                if document.kind(context) == .object,
                   document.member(Self.sessionKey, of: context) == nil {
                    builder.key(Self.sessionKey)
                    session.write(into: builder, settingsPool: settingsPool, traitsPool: traitsPool)
                    if let updated = document.insertingMember(builder, into: context) {
                        document = updated
                        return true
                    }
                }
            } else {
                builder.key(Self.contextKey)
                builder.beginObject()
                builder.key(Self.sessionKey)
                session.write(into: builder, settingsPool: settingsPool, traitsPool: traitsPool)
                builder.endObject()
                if let updated = document.insertingMember(builder, into: 0) {
                    document = updated
                    return true
                }
            }
        }
        // Edits pending, or a `context.session` to replace: the general (slower) way.
        builder.reset()
        session.write(into: builder, settingsPool: settingsPool, traitsPool: traitsPool)
        guard document.set(Self.sessionPath, json: builder.bytes) else { return false }
        document = document.materialized()
        return true
    }

    /// Nothing is held: every event left with its session.
    public mutating func finish(into output: inout StageOutput) {}

    /// Event time reached `time` (`--watermark-end`): past sessions no late event can fall in any more are let go.
    public mutating func advance(to time: EventTime, into output: inout StageOutput) {
        advanceClock(to: time.microseconds)
    }

    private mutating func advanceClock(to time: Int64) {
        guard time > latest else { return }
        latest = time
        forgetPastSessions(before: latest &- lateness)
    }

    // MARK: - The three paths

    /// A device not tracked (new, or evicted earlier): its first session.
    private mutating func admit(_ event: Event, key: (a: UInt64, b: UInt64), time: Int64,
                                user: UInt64) -> (context: SessionContext, slot: Int32) {
        var record = DeviceRecord(keyA: key.a, keyB: key.b, start: time, last: time, user: user, number: 1, seq: 1,
                                  settings: 0, traits: 0, history: -1, newer: -1, older: -1, signedOut: false)
        applyState(of: event, to: &record)
        let slot: Int32
        if devices.count >= settings.maxDevices, let victim = devices.oldest.nonNegative {
            forgetDevice(victim)
            devices.replace(victim, with: record)
            stats.evicted += 1
            slot = victim
        } else {
            slot = devices.add(record)
            stats.devicesHighWater = max(stats.devicesHighWater, devices.count)
        }
        stats.started[StartCause.firstSeen.rawValue] += 1
        return (current(record, engagement: 1), slot)
    }

    /// An event at or after the device's latest: maybe a new session, then the next `seq`.
    private mutating func advance(_ slot: Int32, _ event: Event, time: Int64, user: UInt64) -> SessionContext {
        var record = devices[slot]
        let leavesUser = record.user != 0 && (user != 0 ? user != record.user : record.signedOut)
        let cause: StartCause?
        if event.type == .session && Self.isStart(event.document) {
            cause = .sessionMessage
        } else if leavesUser {
            cause = .userChange
        } else if time &- record.last > inactivity {
            cause = .inactivity
        } else if time &- record.start > maxLength {
            cause = .maxLength
        } else {
            cause = nil
        }
        var engagement: Int64 = 1
        if let cause {
            retire(&record, slot: slot, until: time)
            record.number &+= 1
            record.seq = 0
            record.start = time
            record.signedOut = false
            stats.started[cause.rawValue] += 1
        } else {
            engagement = max(1, (time &- record.last) / 1000)
        }
        if leavesUser {
            // Someone else now, or nobody: the previous person's traits go.
            record.user = user
            traitsPool.release(record.traits)
            record.traits = 0
        } else if user != 0 {
            record.user = user
        }
        record.seq &+= 1
        record.last = time
        applyState(of: event, to: &record)
        devices[slot] = record
        return current(record, engagement: engagement)
    }

    /// An event earlier than the device's latest: placed in the session current at
    /// its time, changing nothing but that session's `seq`; nil (no session, never a
    /// later one) when it is older than every session the device still remembers.
    private mutating func placeLate(_ slot: Int32, time: Int64) -> SessionContext? {
        let record = devices[slot]
        if time >= record.start {
            stats.latePlaced += 1
            devices[slot].seq &+= 1
            return current(devices[slot], engagement: 1)
        }
        guard let cursor = pastSession(of: record, at: time) else {
            stats.tooLate += 1
            return nil
        }
        stats.latePlaced += 1
        past[cursor].seq &+= 1
        return context(of: past[cursor], record)
    }

    /// The session of the device in `slot` current at `time`, as it is now (no `seq` taken), if it is remembered.
    private func sessionAt(_ slot: Int32, time: Int64) -> SessionContext? {
        let record = devices[slot]
        if time >= record.start { return current(record, engagement: 1) }
        return pastSession(of: record, at: time).map { context(of: past[$0], record) }
    }

    /// The newest past session of `record` that started at or before `time`.
    private func pastSession(of record: DeviceRecord, at time: Int64) -> Int32? {
        var cursor = record.history
        while cursor >= 0 {
            if past[cursor].start <= time { return cursor }
            cursor = past[cursor].older
        }
        return nil
    }

    private func context(of session: PastSession, _ record: DeviceRecord) -> SessionContext {
        SessionContext(keyA: record.keyA, keyB: record.keyB, start: session.start, number: session.number,
                       seq: session.seq, authenticated: session.authenticated, engagementMilliseconds: 1,
                       settings: session.settings, traits: session.traits)
    }

    private func current(_ record: DeviceRecord, engagement: Int64) -> SessionContext {
        SessionContext(keyA: record.keyA, keyB: record.keyB, start: record.start, number: record.number, seq: record.seq,
                       authenticated: record.user != 0, engagementMilliseconds: engagement,
                       settings: record.settings, traits: record.traits)
    }

    // MARK: - Past sessions

    /// Keeps the current session of `record` as a past one, for late events until the watermark reaches `until`.
    private mutating func retire(_ record: inout DeviceRecord, slot: Int32, until: Int64) {
        settingsPool.retain(record.settings)
        traitsPool.retain(record.traits)
        let session = PastSession(start: record.start, until: until, number: record.number, seq: record.seq,
                                  settings: record.settings, traits: record.traits, device: slot, older: -1,
                                  generation: 0, authenticated: record.user != 0)
        if let dropped = past.push(session, head: &record.history) { freePast(dropped) }
    }

    /// Lets go of the past sessions no event at or after `watermark` can belong to.
    private mutating func forgetPastSessions(before watermark: Int64) {
        while let index = past.nextDue(watermark: watermark) {
            let device = past[index].device
            past.unlink(index, head: &devices[device].history)
            freePast(index)
        }
    }

    private mutating func freePast(_ index: Int32) {
        settingsPool.release(past[index].settings)
        traitsPool.release(past[index].traits)
        past.free(index)
    }

    /// Lets go of everything an evicted device referenced.
    private mutating func forgetDevice(_ slot: Int32) {
        var cursor = devices[slot].history
        while cursor >= 0 {
            let older = past[cursor].older
            freePast(cursor)
            cursor = older
        }
        settingsPool.release(devices[slot].settings)
        traitsPool.release(devices[slot].traits)
    }
}

extension Int32 {
    /// Self, or nil when negative (-1 marks "none" in the stage's flat tables).
    fileprivate var nonNegative: Int32? { self >= 0 ? self : nil }
}
