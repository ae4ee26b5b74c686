// Unsafe code: `parseISO8601` reads the `timestamp` as an
// `UnsafeRawBufferPointer` into the event's bytes (or a String's UTF-8), so
// every event's time is parsed without a copy on the reading thread. Reads
// stay below `count` (at least 20 bytes checked first, later digits each
// checked; the common 24-byte form as three unaligned 8-byte loads, only when
// `count` is 24); the pointer is not kept.

/// An instant of event time, in microseconds since the Unix epoch (UTC).
///
/// Parsed from the message's ISO 8601 `timestamp`; never the wall clock.
/// Microseconds because GA4 wants `timestamp_micros`; Mixpanel and Amplitude
/// take `milliseconds`.
public struct EventTime: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var microseconds: Int64

    public init(microseconds: Int64) { self.microseconds = microseconds }

    public init(milliseconds: Int64) { self.microseconds = milliseconds * 1000 }

    public var milliseconds: Int64 { microseconds >= 0 ? microseconds / 1000 : (microseconds - 999) / 1000 }

    public static func < (lhs: EventTime, rhs: EventTime) -> Bool { lhs.microseconds < rhs.microseconds }

    public static let epoch = EventTime(microseconds: 0)

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM|±HHMM)`; a zone is required
    /// (docs/input-format.md). Fractions past microseconds are truncated.
    public static func parseISO8601(_ text: UnsafeRawBufferPointer) -> EventTime? {
        if text.count == 24, let base = text.baseAddress, let time = parseMillisecondsUTC(base) { return time }
        return parseGeneral(text)
    }

    /// `parseISO8601` for every form: what the common form's reading in place is held to.
    static func parseGeneral(_ text: UnsafeRawBufferPointer) -> EventTime? {
        let count = text.count
        guard count >= 20 else { return nil }
        @inline(__always) func digit(_ at: Int) -> Int? {
            guard at < count else { return nil }
            let value = Int(text[at]) - 48
            return value >= 0 && value <= 9 ? value : nil
        }
        @inline(__always) func number(_ at: Int, _ length: Int) -> Int? {
            var value = 0
            for offset in 0..<length {
                guard let d = digit(at + offset) else { return nil }
                value = value * 10 + d
            }
            return value
        }
        guard let year = number(0, 4), text[4] == UInt8(ascii: "-"),
              let month = number(5, 2), text[7] == UInt8(ascii: "-"),
              let day = number(8, 2),
              text[10] == UInt8(ascii: "T") || text[10] == UInt8(ascii: "t") || text[10] == UInt8(ascii: " "),
              let hour = number(11, 2), text[13] == UInt8(ascii: ":"),
              let minute = number(14, 2), text[16] == UInt8(ascii: ":"),
              let second = number(17, 2)
        else { return nil }
        var index = 19
        var micros = 0
        if index < count && (text[index] == UInt8(ascii: ".") || text[index] == UInt8(ascii: ",")) {
            index += 1
            var digits = 0
            while let d = digit(index) {
                if digits < 6 { micros = micros * 10 + d }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 6) { micros *= 10 }
        }
        guard index < count else { return nil }
        var offsetSeconds = 0
        switch text[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = text[index] == UInt8(ascii: "-") ? -1 : 1
            guard let zoneHour = number(index + 1, 2) else { return nil }
            var zoneMinute = 0
            if index + 3 < count && text[index + 3] == UInt8(ascii: ":") {
                guard let m = number(index + 4, 2) else { return nil }
                zoneMinute = m
                index += 6
            } else if index + 3 < count {
                guard let m = number(index + 3, 2) else { return nil }
                zoneMinute = m
                index += 5
            } else {
                index += 3
            }
            guard zoneHour <= 23, zoneMinute <= 59 else { return nil }
            offsetSeconds = sign * (zoneHour * 3600 + zoneMinute * 60)
        default:
            return nil
        }
        guard index == count else { return nil }
        return fromFields(year: year, month: month, day: day, hour: hour, minute: minute, second: second,
                          micros: micros, offsetSeconds: offsetSeconds)
    }

    /// The time of a timestamp's fields, nil when they are out of range: a month, a day of that
    /// month, an hour, a minute, a second up to a leap second's 60.
    @inline(__always)
    private static func fromFields(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int,
                                   micros: Int, offsetSeconds: Int) -> EventTime? {
        guard let days = days(year: year, month: month, day: day) else { return nil }
        return fromDays(days, hour: hour, minute: minute, second: second, micros: micros, offsetSeconds: offsetSeconds)
    }

    /// Days since 1970-01-01 of a date, nil for a month or a day of that month that does not exist.
    @inline(__always)
    private static func days(year: Int, month: Int, day: Int) -> Int? {
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month) else { return nil }
        return daysFromCivil(year: year, month: month, day: day)
    }

    @inline(__always)
    private static func fromDays(_ days: Int, hour: Int, minute: Int, second: Int, micros: Int, offsetSeconds: Int) -> EventTime? {
        guard hour <= 23, minute <= 59, second <= 60 else { return nil }
        // A leap second (:60) is folded onto the next second.
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetSeconds)
        let microseconds = seconds * 1_000_000 + Int64(micros)
        // Years 0001-9999 in UTC, as dates in paths and records are written
        // (`0000-01-01T00:00:00+23:59` would be year -1, filed under `00-1-12-31`).
        guard microseconds >= firstMicroseconds && microseconds < endMicroseconds else { return nil }
        return EventTime(microseconds: microseconds)
    }

    /// The last date `parseMillisecondsUTC` read and its day number: lines read in time order share
    /// their date, so most need no calendar arithmetic. Zero, no date's, before the first.
    struct DateMemo {
        var date: UInt64 = 0
        var days = 0
    }

    /// `parseMillisecondsUTC` without a date remembered.
    @inline(__always)
    static func parseMillisecondsUTC(_ text: UnsafeRawPointer) -> EventTime? {
        var memo = DateMemo()
        return parseMillisecondsUTC(text, memo: &memo)
    }

    /// The form nearly every SDK writes, `YYYY-MM-DDTHH:MM:SS.mmmZ` (24 bytes at `text`), read as
    /// three 8-byte words: every digit and separator checked at once, then the fields taken out.
    /// Nil for anything else (another form, or a field out of range), which the general parse
    /// then reads: what this takes, it reads as that parse does. `memo` holds the last date read.
    @inline(__always)
    static func parseMillisecondsUTC(_ text: UnsafeRawPointer, memo: inout DateMemo) -> EventTime? {
        let first = UInt64(littleEndian: text.loadUnaligned(as: UInt64.self))
        let second = UInt64(littleEndian: text.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        let third = UInt64(littleEndian: text.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
        // Byte i of a word is bits 8i..8i+7: digits where the mask has 0xFF, separators elsewhere.
        guard isDigits(first, mask: 0x00FF_FF00_FFFF_FFFF, separators: 0x2D00_002D_0000_0000),     // "YYYY-MM-"
              isDigits(second, mask: 0xFFFF_00FF_FF00_FFFF, separators: 0x0000_3A00_0054_0000),    // "DDTHH:MM"
              isDigits(third, mask: 0x00FF_FFFF_00FF_FF00, separators: 0x5A00_0000_2E00_003A)      // ":SS.mmmZ"
        else { return nil }
        @inline(__always) func digit(_ word: UInt64, _ at: Int) -> Int { Int((word >> (8 * at)) & 0x0F) }
        // The date's eight digits in one word: the day's two in place of the first word's two dashes.
        let date = first & 0x00FF_FF00_FFFF_FFFF | (second & 0xFF) << 32 | (second & 0xFF00) << 48
        if date != memo.date {
            let year = digit(first, 0) * 1000 + digit(first, 1) * 100 + digit(first, 2) * 10 + digit(first, 3)
            guard let days = days(year: year, month: digit(first, 5) * 10 + digit(first, 6), day: digit(second, 0) * 10 + digit(second, 1))
            else { return nil }
            memo = DateMemo(date: date, days: days)
        }
        return fromDays(memo.days, hour: digit(second, 3) * 10 + digit(second, 4), minute: digit(second, 6) * 10 + digit(second, 7),
                        second: digit(third, 1) * 10 + digit(third, 2),
                        micros: (digit(third, 4) * 100 + digit(third, 5) * 10 + digit(third, 6)) * 1000, offsetSeconds: 0)
    }

    /// Whether `word` has an ASCII digit in every byte `mask` marks and, in every other byte, the byte
    /// `separators` has there: digits are 0x30-0x39, so their high nibble is 3 and stays 3 with 6 added.
    @inline(__always)
    private static func isDigits(_ word: UInt64, mask: UInt64, separators: UInt64) -> Bool {
        let highs = mask & 0xF0F0_F0F0_F0F0_F0F0, threes = mask & 0x3030_3030_3030_3030
        return word & ~mask == separators && word & highs == threes && (word &+ (mask & 0x0606_0606_0606_0606)) & highs == threes
    }

    /// 0001-01-01T00:00:00Z (day -719,162 of the epoch), and 10000-01-01T00:00:00Z (day 2,932,897),
    /// just past the last time taken. Literals, so that every parse does not pass a lazy global's
    /// initialisation check; `EventTimeTests` checks them against `daysFromCivil`.
    static let firstMicroseconds: Int64 = -719_162 * 86_400_000_000
    static let endMicroseconds: Int64 = 2_932_897 * 86_400_000_000

    public static func parseISO8601(_ text: String) -> EventTime? {
        var text = text
        return text.withUTF8 { parseISO8601(UnsafeRawBufferPointer($0)) }
    }

    /// A time given on the command line (`--watermark-end`): RFC 3339 with a
    /// zone, as event timestamps are (`2026-11-20T09:00:00Z`,
    /// `2026-11-20T10:00:00.250+01:00`), or whole milliseconds since the Unix
    /// epoch (`1795683600000`, what `System.currentTimeMillis` and Spark's
    /// `unix_millis` give). Nil for anything else.
    public static func parseArgument(_ text: String) -> EventTime? {
        let digits = text.utf8
        if !digits.isEmpty, digits.count <= 15, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            return Int64(text).map { EventTime(milliseconds: $0) }
        }
        return parseISO8601(text)
    }

    static func isLeapYear(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let monthIndex = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * monthIndex + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The UTC calendar fields of this instant.
    public var utc: (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, microsecond: Int) {
        var seconds = microseconds / 1_000_000
        var micro = microseconds % 1_000_000
        if micro < 0 { micro += 1_000_000; seconds -= 1 }
        var days = seconds / 86_400
        var secondOfDay = seconds % 86_400
        if secondOfDay < 0 { secondOfDay += 86_400; days -= 1 }
        let z = Int(days) + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        let s = Int(secondOfDay)
        return (year, month, day, s / 3600, (s / 60) % 60, s % 60, Int(micro))
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`, the form the inputs use.
    public var iso8601: String {
        let f = utc
        return "\(pad(f.year, 4))-\(pad(f.month, 2))-\(pad(f.day, 2))T\(pad(f.hour, 2)):\(pad(f.minute, 2)):\(pad(f.second, 2)).\(pad(f.microsecond / 1000, 3))Z"
    }

    public var description: String { iso8601 }
}

/// Zero-pads a non-negative number to `width` digits.
func pad(_ value: Int, _ width: Int) -> String {
    let digits = String(value)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}
