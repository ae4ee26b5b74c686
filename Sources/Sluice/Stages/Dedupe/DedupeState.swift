/// The `dedupe` stage's part of a `--state` file: the remembered ids, so a
/// message re-sent across a cron boundary is still dropped.
///
/// Section layout:
/// ```
/// latest (zigzag µs) · positions (varint)
/// per ring position, oldest first: id (u64; 0 = a position whose id was taken out)
///   · payload (u64, live ids only) · with a window: first-seen time (zigzag µs, delta from the previous position's)
/// ```
/// Taken-out positions are kept so the ring fills, evicts and expires exactly
/// as it would have without the break: 16 bytes an id (17–20 with a window).
/// With a lowered `max_ids` the oldest positions beyond it are let go at
/// restore, counted `evicted` as they would have been.
extension MessageDeduplication: StatefulStage {
    public var stateSignature: String {
        "{ignore_fields: [\(settings.ignoreFields.joined(separator: ", "))], window: \(settings.window == nil ? "none" : "set")}"
    }

    /// The stage keeps ids, never lines.
    public var heldLines: Int { 0 }

    public func saveState(to writer: StateWriter) {
        writer.zigzag(latest)
        writer.varint(table.usedPositions)
        let timed = table.keepsTimes
        var previous: Int64 = 0
        table.forEachPosition { id, payload, time in
            writer.u64(id)
            guard id != 0 else { return }
            writer.u64(payload)
            if timed {
                writer.zigzag(time &- previous)
                previous = time
            }
        }
    }

    public mutating func restoreState(from reader: inout StateReader) throws(StateError) {
        precondition(table.count == 0 && latest == Int64.min, "state is restored into a fresh stage")
        latest = try reader.zigzag()
        let positions = try reader.count("the dedupe stage's id count", minimumBytes: 8)
        let skip = max(0, positions - table.capacity)
        var previous: Int64 = 0
        for index in 0..<positions {
            let id = try reader.u64()
            var payload: UInt64 = 0
            var time: Int64 = 0
            if id != 0 {
                payload = try reader.u64()
                if table.keepsTimes {
                    time = previous &+ (try reader.zigzag())
                    previous = time
                }
            }
            if index < skip {
                if id != 0 { stats.evicted += 1 }
                continue
            }
            if id != 0 && table.find(id) != nil { throw reader.corrupt("the dedupe stage holds id \(id) twice") }
            table.appendRestored(id: id, payload: payload, time: time)
        }
        stats.highWater = table.count
    }
}
