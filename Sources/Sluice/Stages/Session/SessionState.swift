import SluiceJSON

/// The `session` stage's part of a `--state` file: every tracked device's
/// current session, the recent past sessions late events may still fall in,
/// and the settings and traits they hold, so the next run continues each
/// device's session with the right `number` and `seq`.
///
/// Section layout (varints unless said otherwise; times are µs, as zigzag
/// differences so they stay short):
/// ```
/// latest · settings pool · traits pool          pool: count, then (id, text) per held id
/// device count, then per device, least recently active first:
///   key (2 × u64) · flags (u8: 1 signed out, 2 signed in) · [user hash u64]
///   · latest − last · last − start · number · seq · settings id · traits id
/// past-session count, then per past session, in creation order:
///   device (its place in the list above) · latest − start · latest − until
///   · number · seq · settings id · traits id · authenticated (u8)
/// ```
/// About 30 bytes a device (40 when signed in). Slots, list links and queue
/// generations are not saved: adding the devices in recency order and pushing
/// the past sessions in creation order rebuilds them. With a lowered
/// `max_devices` the least recently active devices beyond it are forgotten at
/// restore, counted `evicted`, as they would have been.
extension SessionTracking: StatefulStage {
    public var stateSignature: String {
        "{sign_out_events: [\(settings.signOutEvents.joined(separator: ", "))], "
            + "attach: {settings: \(settings.attachSettings), traits: [\(settings.attachTraits.joined(separator: ", "))]}}"
    }

    /// Every event leaves with its session: no line is ever held.
    public var heldLines: Int { 0 }

    private static let signedOutFlag: UInt8 = 1
    private static let signedInFlag: UInt8 = 2

    public func saveState(to writer: StateWriter) {
        writer.zigzag(latest)
        for pool in [settingsPool, traitsPool] {
            var held: [(UInt32, [UInt8])] = []
            pool.forEachHeld { held.append(($0, $1)) }
            writer.varint(held.count)
            for (id, text) in held {
                writer.varint(UInt64(id))
                writer.bytes(text)
            }
        }
        let order = devices.slotsByRecency
        var place = [Int32](repeating: -1, count: devices.count)
        writer.varint(order.count)
        for (index, slot) in order.enumerated() {
            place[Int(slot)] = Int32(index)
            let record = devices[slot]
            writer.u64(record.keyA)
            writer.u64(record.keyB)
            writer.u8((record.signedOut ? Self.signedOutFlag : 0) | (record.user != 0 ? Self.signedInFlag : 0))
            if record.user != 0 { writer.u64(record.user) }
            writer.zigzag(latest &- record.last)
            writer.zigzag(record.last &- record.start)
            writer.varint(UInt64(record.number))
            writer.varint(UInt64(record.seq))
            writer.varint(UInt64(record.settings))
            writer.varint(UInt64(record.traits))
        }
        var queued: [Int32] = []
        past.forEachInCreationOrder { queued.append($0) }
        writer.varint(queued.count)
        for index in queued {
            let session = past[index]
            writer.varint(UInt64(place[Int(session.device)]))
            writer.zigzag(latest &- session.start)
            writer.zigzag(latest &- session.until)
            writer.varint(UInt64(session.number))
            writer.varint(UInt64(session.seq))
            writer.varint(UInt64(session.settings))
            writer.varint(UInt64(session.traits))
            writer.bool(session.authenticated)
        }
    }

    public mutating func restoreState(from reader: inout StateReader) throws(StateError) {
        precondition(devices.count == 0 && latest == Int64.min, "state is restored into a fresh stage")
        latest = try reader.zigzag()
        let (settingsIDs, settingsRead) = try Self.readPool(&reader, into: &settingsPool, what: "settings")
        let (traitsIDs, traitsRead) = try Self.readPool(&reader, into: &traitsPool, what: "traits")

        let count = try reader.count("the session stage's device count", minimumBytes: 22)
        let skip = max(0, count - settings.maxDevices)
        for index in 0..<count {
            let keyA = try reader.u64()
            let keyB = try reader.u64()
            let flags = try reader.u8()
            guard flags & ~(Self.signedOutFlag | Self.signedInFlag) == 0 else { throw reader.corrupt("a device has flags \(flags)") }
            let user = flags & Self.signedInFlag != 0 ? try reader.u64() : 0
            let last = latest &- (try reader.zigzag())
            let start = last &- (try reader.zigzag())
            let number = try reader.int(in: 0...Int(UInt32.max), "a session number")
            let seq = try reader.int(in: 0...Int(UInt32.max), "a session seq")
            let settingsID = try Self.pooled(&reader, settingsIDs, what: "settings")
            let traitsID = try Self.pooled(&reader, traitsIDs, what: "traits")
            guard index >= skip else {
                stats.evicted += 1
                continue
            }
            guard devices.find(keyA: keyA, keyB: keyB) == nil else { throw reader.corrupt("a device is listed twice") }
            settingsPool.retain(settingsID)
            traitsPool.retain(traitsID)
            _ = devices.add(DeviceRecord(keyA: keyA, keyB: keyB, start: start, last: last, user: user, number: UInt32(number),
                                         seq: UInt32(seq), settings: settingsID, traits: traitsID, history: -1,
                                         newer: -1, older: -1, signedOut: flags & Self.signedOutFlag != 0))
        }

        let pastCount = try reader.count("the session stage's past-session count", minimumBytes: 8)
        for _ in 0..<pastCount {
            let place = try reader.int(in: 0...max(0, count - 1), "a past session's device")
            let start = latest &- (try reader.zigzag())
            let until = latest &- (try reader.zigzag())
            let number = try reader.int(in: 0...Int(UInt32.max), "a session number")
            let seq = try reader.int(in: 0...Int(UInt32.max), "a session seq")
            let settingsID = try Self.pooled(&reader, settingsIDs, what: "settings")
            let traitsID = try Self.pooled(&reader, traitsIDs, what: "traits")
            let authenticated = try reader.bool()
            guard place >= skip else { continue }
            let slot = Int32(place - skip)
            settingsPool.retain(settingsID)
            traitsPool.retain(traitsID)
            let session = PastSession(start: start, until: until, number: UInt32(number), seq: UInt32(seq),
                                      settings: settingsID, traits: traitsID, device: slot, older: -1,
                                      generation: 0, authenticated: authenticated)
            if past.push(session, head: &devices[slot].history) != nil {
                throw reader.corrupt("a device has more than \(PastSessions.perDeviceLimit) past sessions")
            }
        }
        // Each pool text was interned once on reading; the holders now hold it.
        // (In reading order: which ids are free next must not depend on hashing.)
        for id in settingsRead { settingsPool.release(id) }
        for id in traitsRead { traitsPool.release(id) }
        stats.devicesHighWater = devices.count
    }

    /// Reads a pool into `pool`; returns the saved id → the new id, and the new ids in reading order.
    private static func readPool(_ reader: inout StateReader, into pool: inout InternedJSON,
                                 what: String) throws(StateError) -> ([UInt32: UInt32], [UInt32]) {
        let count = try reader.count("the \(what) pool's size", minimumBytes: 2)
        var ids: [UInt32: UInt32] = [:]
        var order: [UInt32] = []
        ids.reserveCapacity(count)
        order.reserveCapacity(count)
        for _ in 0..<count {
            let saved = try reader.int(in: 1...Int(UInt32.max), "a \(what) id")
            let text = try reader.bytes()
            guard InternedJSON.isOneValue(text) else { throw reader.corrupt("a \(what) value is not one JSON value") }
            guard ids[UInt32(saved)] == nil else { throw reader.corrupt("the \(what) pool lists id \(saved) twice") }
            let id = pool.intern(text)
            ids[UInt32(saved)] = id
            order.append(id)
        }
        return (ids, order)
    }

    /// A saved pool id (0 = none), as this run's id.
    private static func pooled(_ reader: inout StateReader, _ ids: [UInt32: UInt32], what: String) throws(StateError) -> UInt32 {
        let saved = try reader.int(in: 0...Int(UInt32.max), "a \(what) id")
        guard saved != 0 else { return 0 }
        guard let id = ids[UInt32(saved)] else { throw reader.corrupt("a \(what) id \(saved) is not in its pool") }
        return id
    }
}
