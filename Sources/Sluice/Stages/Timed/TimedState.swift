import SluiceJSON

/// The `timed` stage's part of a `--state` file: its clock and every open
/// start and held stop, so a timer started in one run is stopped in the next.
///
/// Section layout (varints unless said otherwise):
/// ```
/// latest (zigzag µs) · arrivals · entry count
/// per entry, least recently touched first:
///   kind (u8: 1 start, 2 held stop) · time (zigzag µs) · seq · origin · key length
///   · bytes (key + payload, length-prefixed) · timestamp, properties, marker ranges (6 offsets into bytes)
///   · consent mark: word count (0: none), then its reason (string) and each 64-bit word (varint)
/// ```
/// Entries keep their arrival `seq` (the tie-breaker) and go back in recency
/// order, so eviction and release order are as if the run had not stopped.
/// Table hashes are not saved (Swift's `Hasher` is seeded per process); they
/// are computed again from each key. Deadlines follow from the entry's time
/// and the current `expire_after`. The consent mark (`Event.withheld`) goes
/// with its line, so a start carried to the next run still keeps its event
/// from the destinations its consent denied. An entry is its line's bytes plus about 16:
/// about 450 bytes for a generated event.
extension TimedEventPairing: StatefulStage {
    public var stateSignature: String {
        "{marker: \(settings.marker), correlate: [\(settings.correlate.map(\.description).joined(separator: ", "))], "
            + "on_abandoned: \(settings.onAbandoned.rawValue)}"
    }

    public var heldLines: Int { table.count }

    public func saveState(to writer: StateWriter) {
        writer.zigzag(latest)
        writer.varint(arrivals)
        writer.varint(table.count)
        for slot in table.slotsByRecency {
            let entry = table[slot]
            writer.u8(entry.kind.rawValue)
            writer.zigzag(entry.time.microseconds)
            writer.varint(entry.seq)
            writer.origin(entry.origin)
            writer.varint(UInt64(entry.keyLength))
            writer.bytes(entry.bytes)
            for offset in [entry.timestampStart, entry.timestampEnd, entry.propertiesStart, entry.propertiesEnd,
                           entry.markerStart, entry.markerEnd] {
                writer.varint(UInt64(offset))
            }
            let words = entry.withheld?.words ?? []
            writer.varint(words.count)
            if let withheld = entry.withheld, !words.isEmpty {
                writer.string(withheld.reason.rawValue)
                for word in words { writer.varint(word) }
            }
        }
    }

    public mutating func restoreState(from reader: inout StateReader) throws(StateError) {
        precondition(table.isEmpty && latest == Int64.min, "state is restored into a fresh stage")
        latest = try reader.zigzag()
        watermark = latest > Int64.min + lateness ? latest - lateness : Int64.min
        arrivals = try reader.varint()
        let count = try reader.count("the timed stage's entry count", minimumBytes: 12)
        for _ in 0..<count {
            let entryAt = reader.position
            let kindByte = try reader.u8()
            guard let kind = OpenTimerTable.Kind(rawValue: kindByte), kind != .free else {
                throw reader.corrupt("a timed entry has kind \(kindByte)")
            }
            let time = try reader.zigzag()
            let seq = try reader.varint()
            let origin = try reader.origin()
            let keyLength = try reader.varint()
            let bytes = try reader.bytes()
            guard keyLength <= UInt64(bytes.count), bytes.count < Int(UInt32.max) else {
                throw reader.corrupt("a timed entry's key is longer than its bytes")
            }
            var ranges: [UInt32] = []
            for _ in 0..<3 {
                let start = try reader.int(in: Int(keyLength)...bytes.count, "a timed entry's offset")
                let end = try reader.int(in: start...bytes.count, "a timed entry's offset")
                ranges += [UInt32(start), UInt32(end)]
            }
            // A kept line (every held stop; a start unless on_abandoned: drop) is let out marked: it needs its marker.
            if (kind == .heldStop || settings.onAbandoned == .emit) && (ranges[4] == ranges[5] || bytes.last != UInt8(ascii: "}")) {
                throw reader.corrupt("a timed entry keeps a line without its marker")
            }
            try checkStoredLine(kind: kind, bytes: bytes, keyLength: Int(keyLength), ranges: ranges.map(Int.init),
                                entryAt: entryAt, reader)
            var withheld: WithheldDestinations?
            let words = try reader.count("a timed entry's consent mark")
            if words > 0 {
                let name = try reader.string()
                guard let reason = DropReason(rawValue: name) else {
                    throw reader.corrupt("a timed entry's consent mark has the unknown reason \"\(name)\"")
                }
                var bits: [UInt64] = []
                for _ in 0..<words { bits.append(try reader.varint()) }
                withheld = WithheldDestinations(reason: reason, words: bits)
            }
            let hash = TimerKeyBuilder.hash(bytes.span.extracting(0..<Int(keyLength)))
            let entry = OpenTimerTable.Entry(
                bytes: bytes, time: EventTime(microseconds: time), seq: seq, line: origin.line, source: origin.source,
                hash: hash, keyLength: UInt32(keyLength), heapIndex: -1, newer: -1, older: -1,
                timestampStart: ranges[0], timestampEnd: ranges[1], propertiesStart: ranges[2], propertiesEnd: ranges[3],
                markerStart: ranges[4], markerEnd: ranges[5], kind: kind, withheld: withheld)
            table.insert(entry, deadline: deadline(of: kind, at: time))
        }
        // Beyond a lowered max_open or max_open_bytes, the least recently touched go (evicted) at the next insert.
        stats.openHighWater = table.count
        stats.openBytesHighWater = table.footprint
    }

    /// Checks that what an entry keeps is what the stage would have kept, so
    /// letting it out later cannot fail: a whole line (a held stop; a start
    /// unless `on_abandoned: drop`) must parse as an object whose `timestamp`,
    /// `properties` and marker values lie at the saved offsets; a start kept
    /// for its completed event only (`on_abandoned: drop`) must hold its
    /// `timestamp`, `properties` and `context.session` values one after another,
    /// each one JSON value. A checksum cannot catch a writer's bug or a file
    /// crafted and resealed; this catches it before the run writes anything.
    private func checkStoredLine(kind: OpenTimerTable.Kind, bytes: [UInt8], keyLength: Int, ranges: [Int],
                                 entryAt: Int, _ reader: StateReader) throws(StateError) {
        let problem: String?
        if kind == .start && settings.onAbandoned == .drop {
            problem = Self.keptPartsProblem(bytes: bytes, keyLength: keyLength, ranges: ranges)
        } else {
            problem = keptLineProblem(bytes: bytes, keyLength: keyLength, ranges: ranges)
        }
        if let problem { throw reader.corrupt("the timed entry at byte \(entryAt) \(problem)") }
    }

    private func keptLineProblem(bytes: [UInt8], keyLength: Int, ranges: [Int]) -> String? {
        guard let line = try? JSONDocument.parse(Array(bytes[keyLength...])), line.kind(0) == .object else {
            return "keeps a line that is not a JSON object"
        }
        func range(_ node: Int?) -> [Int] {
            guard let node else { return [keyLength, keyLength] }
            return [keyLength + Int(line.start(node)), keyLength + Int(line.end(node))]
        }
        guard Array(ranges[0..<2]) == range(line.member("timestamp")), Array(ranges[2..<4]) == range(line.member("properties")) else {
            return "keeps a line whose timestamp or properties are not where it says"
        }
        let marker = line.find(settings.marker)
        guard marker != nil, Array(ranges[4..<6]) == range(marker) else {
            return "keeps a line whose marker is not where it says"
        }
        return nil
    }

    private static func keptPartsProblem(bytes: [UInt8], keyLength: Int, ranges: [Int]) -> String? {
        guard ranges[0] == keyLength, ranges[2] == ranges[1], ranges[4] == keyLength, ranges[5] == keyLength else {
            return "keeps a start's parts at offsets that do not follow each other"
        }
        for part in [bytes[ranges[0]..<ranges[1]], bytes[ranges[2]..<ranges[3]], bytes[ranges[3]...]] where !part.isEmpty {
            // One value, as a member's value (a document is an object).
            guard (try? JSONDocument.parse(Array("{\"v\":".utf8) + part + [UInt8(ascii: "}")])) != nil else {
                return "keeps a start's timestamp, properties or session that is not one JSON value"
            }
        }
        return nil
    }
}
