/// One session that is no longer a device's current one, kept so that a late
/// event can still be placed in it. 48 bytes (stride).
struct PastSession {
    /// µs of event time.
    var start: Int64
    /// When the session after it started, µs: once the watermark reaches this
    /// time no event still on time can belong here, and the entry is let go.
    var until: Int64
    var number: UInt32
    var seq: UInt32
    var settings: UInt32
    var traits: UInt32
    /// The device's slot, and the next older past session of that device (-1 = none).
    var device: Int32
    var older: Int32
    /// Bumped each time the entry is freed, so stale queue items are recognised.
    var generation: UInt32
    var authenticated: Bool
}

/// The recent past sessions of every device, in one pool: per device a short
/// list from newest to oldest (at most `perDeviceLimit`), and one queue in
/// creation order from which entries leave once the watermark passes the start
/// of the session that followed them.
///
/// A device only holds entries for a short while after its session changed
/// (about `lateness` of event time), so the pool stays small whatever the
/// number of devices; a device that is not in the middle of such a change pays
/// nothing but its record's list head.
struct PastSessions {
    static let perDeviceLimit = 4

    private(set) var entries: [PastSession] = []
    private var freeEntries: [Int32] = []
    /// (entry, generation) in creation order; `queueHead` is the first live item.
    private var queue: [(entry: Int32, generation: UInt32)] = []
    private var queueHead = 0
    /// Entries in use right now.
    private(set) var count = 0

    subscript(index: Int32) -> PastSession {
        get { entries[Int(index)] }
        _modify { yield &entries[Int(index)] }
    }

    /// Makes `session` the newest past session of the device whose list starts at
    /// `head`; returns the entry that must be dropped to stay within the limit, if any.
    mutating func push(_ session: PastSession, head: inout Int32) -> Int32? {
        var session = session
        session.older = head
        let index: Int32
        if let reused = freeEntries.popLast() {
            index = reused
            session.generation = entries[Int(index)].generation
            entries[Int(index)] = session
        } else {
            index = Int32(entries.count)
            session.generation = 0
            entries.append(session)
        }
        head = index
        count += 1
        queue.append((index, session.generation))
        // Over the limit? The oldest one of this device goes.
        var length = 1
        var previous = index
        var cursor = session.older
        while cursor >= 0 {
            length += 1
            if length > Self.perDeviceLimit {
                entries[Int(previous)].older = -1
                return cursor
            }
            previous = cursor
            cursor = entries[Int(cursor)].older
        }
        return nil
    }

    /// The oldest queued entry still in use, if the watermark has reached its `until`.
    mutating func nextDue(watermark: Int64) -> Int32? {
        while queueHead < queue.count {
            let item = queue[queueHead]
            if entries[Int(item.entry)].generation != item.generation {
                queueHead += 1
                compactQueue()
                continue
            }
            return entries[Int(item.entry)].until <= watermark ? item.entry : nil
        }
        return nil
    }

    /// Calls `body` with every entry in use, in creation order (the queue's):
    /// pushing them again in this order rebuilds every device's list and the queue.
    func forEachInCreationOrder(_ body: (Int32) -> Void) {
        for item in queue[queueHead...] where entries[Int(item.entry)].generation == item.generation {
            body(item.entry)
        }
    }

    /// Takes `index` out of the list that starts at `head` (it is usually the last one).
    mutating func unlink(_ index: Int32, head: inout Int32) {
        if head == index {
            head = entries[Int(index)].older
            return
        }
        var cursor = head
        while cursor >= 0 {
            let older = entries[Int(cursor)].older
            if older == index {
                entries[Int(cursor)].older = entries[Int(index)].older
                return
            }
            cursor = older
        }
    }

    /// Returns an unlinked entry to the pool; the caller releases what it referenced.
    mutating func free(_ index: Int32) {
        entries[Int(index)].generation &+= 1
        entries[Int(index)].older = -1
        freeEntries.append(index)
        count -= 1
    }

    private mutating func compactQueue() {
        if queueHead >= 4096 && queueHead * 2 >= queue.count {
            queue.removeFirst(queueHead)
            queueHead = 0
        }
    }
}
