// Unsafe code: reads the line buffer `LineReader` hands out, by index within
// its count and eight bytes at a time (unaligned loads inside the count; a
// timestamp's 24 bytes only when its closing quote is inside the count), while
// that buffer is valid (the call).
/// The event time of a line without parsing it, for exact order's first read
/// of files (`OrderSurvey`): the value of its top-level `timestamp` member,
/// read as `Event.decode` reads it (`EventTime.parseISO8601` on the string).
///
/// Only what is plain is read here: a key or a value written with an escape,
/// a value that is not a string, a line that does not start as an object, or
/// one where no top-level `timestamp` turns up, gives nil, and the caller
/// parses the line. It answers for lines the decoder would reject for another
/// reason too (no `type`, invalid JSON after the timestamp): the survey then
/// counts a time the second read does not, which can only widen the window.
enum QuickTimestamp {
    /// One line's time, no date remembered from a line before.
    static func read(_ line: UnsafeBufferPointer<UInt8>) -> Int64? {
        var memo = EventTime.DateMemo()
        return read(line, memo: &memo)
    }

    /// `memo`: the date the last line read was at (lines in time order mostly share theirs).
    static func read(_ line: UnsafeBufferPointer<UInt8>, memo: inout EventTime.DateMemo) -> Int64? {
        let count = line.count
        var index = 0
        while index < count, isSpace(line[index]) { index += 1 }
        guard index < count, line[index] == UInt8(ascii: "{") else { return nil }
        index += 1
        var depth = 1
        var expectKey = true
        while index < count {
            let byte = line[index]
            switch byte {
            case UInt8(ascii: "\""):
                let start = index + 1
                var end = start
                while true {
                    end = quoteOrEscape(line, from: end)
                    guard end < count else { return nil }
                    if line[end] == UInt8(ascii: "\"") { break }
                    // An escaped key at the top level may be "timestamp": leave the line to the parser.
                    if depth == 1 && expectKey { return nil }
                    end += 2
                }
                index = end + 1
                if depth == 1 && expectKey {
                    expectKey = false
                    if end - start == 9, matches(line, from: start) { return value(line, after: index, memo: &memo) }
                }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { return nil }
                index += 1
            case UInt8(ascii: ","):
                if depth == 1 { expectKey = true }
                index += 1
            default:
                index += 1
            }
        }
        return nil
    }

    /// The index of the first `"` or `\\` at or after `from` (`line.count` or past it when there is none):
    /// eight bytes a step, the lowest byte that matches found as zero-byte tests find it.
    private static func quoteOrEscape(_ line: UnsafeBufferPointer<UInt8>, from: Int) -> Int {
        var at = from
        if let base = line.baseAddress {
            let raw = UnsafeRawPointer(base)
            let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
            while at + 8 <= line.count {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self))
                let quotes = word ^ 0x2222_2222_2222_2222, escapes = word ^ 0x5C5C_5C5C_5C5C_5C5C
                let found = ((quotes &- ones) & ~quotes | (escapes &- ones) & ~escapes) & highs
                if found != 0 { return at + found.trailingZeroBitCount / 8 }
                at += 8
            }
        }
        while at < line.count, line[at] != UInt8(ascii: "\""), line[at] != UInt8(ascii: "\\") { at += 1 }
        return at
    }

    /// Whether the 9 bytes at `start` are `timestamp` (compared in place: no table to look up).
    private static func matches(_ line: UnsafeBufferPointer<UInt8>, from start: Int) -> Bool {
        line[start] == UInt8(ascii: "t") && line[start + 1] == UInt8(ascii: "i") && line[start + 2] == UInt8(ascii: "m")
            && line[start + 3] == UInt8(ascii: "e") && line[start + 4] == UInt8(ascii: "s") && line[start + 5] == UInt8(ascii: "t")
            && line[start + 6] == UInt8(ascii: "a") && line[start + 7] == UInt8(ascii: "m") && line[start + 8] == UInt8(ascii: "p")
    }

    /// The time in the string value after a key ending at `index`; nil for anything else.
    private static func value(_ line: UnsafeBufferPointer<UInt8>, after index: Int, memo: inout EventTime.DateMemo) -> Int64? {
        var at = index
        while at < line.count, isSpace(line[at]) { at += 1 }
        guard at < line.count, line[at] == UInt8(ascii: ":") else { return nil }
        at += 1
        while at < line.count, isSpace(line[at]) { at += 1 }
        guard at < line.count, line[at] == UInt8(ascii: "\"") else { return nil }
        let start = at + 1
        // The common form, its closing quote where it must be: read in place (anything else in those
        // bytes, an escape or a control character among them, is not that form and is read below).
        if start + 24 < line.count, line[start + 24] == UInt8(ascii: "\""), let base = line.baseAddress,
           let time = EventTime.parseMillisecondsUTC(UnsafeRawPointer(base + start), memo: &memo) {
            return time.microseconds
        }
        var end = start
        while end < line.count, line[end] != UInt8(ascii: "\"") {
            if line[end] == UInt8(ascii: "\\") || line[end] < 0x20 { return nil }
            end += 1
        }
        guard end < line.count else { return nil }
        return EventTime.parseISO8601(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: line[start..<end])))?.microseconds
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
