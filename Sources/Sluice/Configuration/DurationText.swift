/// Durations as the pipeline file and the command line write them: one or
/// more numbers, each with its unit (`d`, `h`, `m`, `s`, `ms`), added up:
/// `500ms`, `30s`, `1h30m`, `1.5s`, `2d12h`. A number may have a fraction
/// (`1.5s`, `0.25h`); the whole is kept to the nanosecond.
extension ConfigReader {
    /// The longest duration a setting takes: 100 years. Durations are added
    /// to event times and clocks in micro- and nanoseconds; this keeps every
    /// such sum far from overflowing 64 bits.
    public static let maxDuration = Duration.seconds(36_500 * 86_400)
    public static let maxDurationText = "36500d"

    /// A duration, or nil when it is malformed or longer than `maxDuration`.
    public static func parseDuration(_ text: String) -> Duration? {
        if case .value(let value) = readDuration(text) { return value }
        return nil
    }

    public static func readDuration(_ text: String) -> Reading<Duration> {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return .invalid }
        let limit = maxDuration.nanoseconds
        var total: Int64 = 0
        var tooLarge = false
        var index = 0
        while index < bytes.count {
            // The number: digits, then maybe a fraction.
            var whole: Int64 = 0
            var digits = 0
            var wholeOverflow = false
            while index < bytes.count, let digit = bytes[index].decimalDigit {
                let (times, overflow1) = whole.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times.addingReportingOverflow(Int64(digit))
                if overflow1 || overflow2 { wholeOverflow = true } else { whole = sum }
                digits += 1
                index += 1
            }
            var fraction: Int64 = 0          // in units of 10^-18
            var scale: Int64 = 100_000_000_000_000_000
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                var fractionDigits = 0
                while index < bytes.count, let digit = bytes[index].decimalDigit {
                    fraction += Int64(digit) * scale
                    scale /= 10
                    fractionDigits += 1
                    index += 1
                }
                if fractionDigits == 0 { return .invalid }
            }
            guard digits > 0 else { return .invalid }
            // The unit.
            let unitStart = index
            while index < bytes.count, bytes[index].decimalDigit == nil, bytes[index] != UInt8(ascii: ".") { index += 1 }
            let nanosPerUnit: Int64
            switch String(decoding: bytes[unitStart..<index], as: UTF8.self) {
            case "ms": nanosPerUnit = 1_000_000
            case "s": nanosPerUnit = 1_000_000_000
            case "m": nanosPerUnit = 60_000_000_000
            case "h": nanosPerUnit = 3_600_000_000_000
            case "d": nanosPerUnit = 86_400_000_000_000
            default: return .invalid
            }
            if tooLarge || wholeOverflow { tooLarge = true; continue }
            let (wholeNanos, overflow) = whole.multipliedReportingOverflow(by: nanosPerUnit)
            // fraction / 10^18 of a unit, in nanoseconds (billionths of a unit times
            // the unit's milliseconds, less than 10^17: no overflow).
            let fractionNanos = (fraction / 1_000_000_000) * (nanosPerUnit / 1_000_000) / 1000
            let (part, overflow2) = wholeNanos.addingReportingOverflow(fractionNanos)
            let (sum, overflow3) = total.addingReportingOverflow(part)
            if overflow || overflow2 || overflow3 || sum > limit { tooLarge = true } else { total = sum }
        }
        return tooLarge ? .tooLarge : .value(.nanoseconds(total))
    }

    /// Why a duration's text is refused, for a message: "must be positive" for
    /// a negative one, the grammar otherwise.
    public static func durationProblem(_ text: String) -> String {
        switch readDuration(text) {
        case .value: return ""
        case .tooLarge: return "is too long: at most \(maxDurationText) (100 years)"
        case .invalid:
            return text.hasPrefix("-") ? "must be positive: a duration such as 500ms, 30s, 1h30m or 1.5s"
                : "is not a duration such as 500ms, 30s, 1h30m or 1.5s"
        }
    }
}

extension UInt8 {
    /// The value of an ASCII digit, or nil.
    fileprivate var decimalDigit: Int? {
        self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") ? Int(self - UInt8(ascii: "0")) : nil
    }
}
