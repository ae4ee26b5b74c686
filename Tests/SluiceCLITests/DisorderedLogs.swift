import SluiceTestSupport

/// App logs as servers receive them from mobile SDKs: out of event-time order
/// by minutes to hours, with ties, for the tests of exact order.
enum DisorderedLogs {
    /// Where a line's `timestamp` text is.
    static func timestampRange(_ bytes: [UInt8]) -> Range<Int>? {
        let key = Array(#""timestamp":""#.utf8)
        guard let start = bytes.indices.first(where: { bytes[$0...].starts(with: key) }) else { return nil }
        let from = start + key.count
        guard let end = bytes[from...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        return from..<end
    }

    /// The line with its `timestamp` replaced by the one of `other`.
    static func withTimestamp(of other: [UInt8], _ line: [UInt8]) -> [UInt8] {
        guard let mine = timestampRange(line), let theirs = timestampRange(other) else { return line }
        var result = line
        result.replaceSubrange(mine, with: other[theirs])
        return result
    }

    /// The lines as mobile apps deliver them: each arrives after its event time by a random delay
    /// (most within minutes, one in ten up to `maxDelay`), in arrival order; one line in twenty
    /// takes the event time of the line before it (ties between devices and within one).
    static func arrivalOrder(_ lines: [[UInt8]], _ times: [Int], maxDelayMs: Int, random: inout TestRandom) -> [[UInt8]] {
        var lines = lines
        for index in lines.indices.dropFirst() where random.below(20) == 0 {
            lines[index] = withTimestamp(of: lines[index - 1], lines[index])
        }
        let arrivals = times.map { time in time + (random.below(10) == 0 ? random.below(maxDelayMs) : random.below(300_000)) }
        return lines.indices.sorted { (arrivals[$0], $0) < (arrivals[$1], $1) }.map { lines[$0] }
    }
}
