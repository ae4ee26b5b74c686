import SluiceJSON

/// Finds phone numbers: digit groups joined by spaces, dashes, dots, slashes or
/// parentheses, standing alone as a token, with an extension if one follows
/// (`x65859`, `ext. 12`, `#7`), checked against the numbering plans of the
/// world (`PhoneNumberingPlan`).
///
/// The rule: a digit string no numbering plan allows is not any person's
/// phone number. A phone is
/// 1. a number libphonenumber's metadata calls valid: written international
///    (`+` or `00` and a calling code: `+44 20 7946 0958`, `00420 601 123 456`),
///    or a person's number (fixed-line, mobile) of the country the event
///    names (`PhoneRegion`: `context.locale`, `context.location.country`, a
///    top-level `locale`) as people there write it (`612 345 678` in `es-ES`,
///    `030 1234567` in `de-DE`, `420601123456` in `cs-CZ`);
/// 2. a number of a length possible for such a country when its placement
///    names a phone: the field's name (`phone`, `mobileNumber`), a phone word
///    just before it in any of the stage's languages (`tel.`, `Mobil:`,
///    `телефон`, `電話`, `טלפון`, with a preposition glued to the number as
///    Hebrew writes `ב-`), or right after it (`0612345678 (mobile)`: `PhoneContext`).
/// Nothing else. Identifier context (a field named `order_id`, `sku`, `model`;
/// `order`, `P/N`, `Art.`, `ISBN`, `SKU` just before it) vetoes a run, but
/// for a valid number that a phone word or a phone field also names.
///
/// Never phones: dates, times and their fractions, year ranges, decimals and
/// prices (`12 345,50`, `€ 1 234 567`), negative numbers and coordinates
/// (`POINT(-101.36380 -39.11030)`), versions and lists (a one-digit group
/// after the first but for a `(0)` trunk and the area code after a calling
/// code: `3.2.1`, ISBNs `0-306-40615-2`), numbers grouped in thousands with
/// dots (`540.732.154`), dotted quads, separators of different kinds mixed
/// with dots, and runs written solid with a barcode's check digit unless
/// their placement says phone.
enum PhoneDetection {
    typealias Group = NumberDetection.Group

    /// The reusable memory of a scan.
    struct Scratch {
        var groups: [Group] = []
        var digits: [UInt8] = []
        var pattern = PatternProgram.Scratch()
        /// The event's region (an index into `PhoneNumberingPlan.regionTable`), -1 for none, -2 when it is
        /// yet to be read from `event` (the first ambiguous run of an event reads it).
        var region = -1
        var event: JSONDocument?
        /// Set when a run's reading depended on the event's region (`CleanScanMemo` keys on it then).
        var regionRead = false
        var regions = PhoneRegion.Cache()
        /// A failed candidate's groups while its parts are tried (`splitAtSpace`).
        var whole: [Group] = []
    }

    static func scan(_ text: Span<UInt8>, fieldHint: () -> PhoneContext.Hint, scratch: inout Scratch,
                     _ found: (Int, Int) -> Void) {
        var index = 0
        let count = text.count
        while index < count {
            // Most bytes start nothing: one test before the call.
            let byte = text[index]
            guard TextBytes.isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "("),
                  startsCandidate(text, index) else {
                index += 1
                continue
            }
            guard let candidate = parse(text, from: index, groups: &scratch.groups) else {
                index += 1
                continue
            }
            if candidate.digits < 7 {
                // Too few digits for any phone number (most digit runs: counts, versions, times).
                index = Swift.max(candidate.numberEnd, index + 1)
                continue
            }
            if let date = dateGroups(scratch.groups, text) {
                // Skip the date, look again after it: `2026-11-20 4155550100` still has a phone.
                index = scratch.groups[date - 1].end
                continue
            }
            if candidate.endsToken && !looksLikeAmount(text, candidate)
                && isPhone(candidate, text, fieldHint: fieldHint, scratch: &scratch) {
                let only = scratch.groups.count == 1 && scratch.groups[0].parenthesized && !candidate.hasExtension
                // A number written whole in brackets, `(512775005)`: the brackets stay.
                found(only ? scratch.groups[0].start : index, only ? scratch.groups[0].end : candidate.end)
                index = candidate.end
            } else if let next = splitAtSpace(candidate, text, fieldHint: fieldHint, scratch: &scratch, found) {
                index = next
            } else {
                // A candidate that is not a phone is skipped whole: its tail is not tried as one.
                index = Swift.max(candidate.numberEnd, index + 1)
            }
        }
    }

    /// Two numbers written one after the other with a space between them
    /// (`415-555-0142 415-555-0143`, `+44 20 7946 0958 4111111111111111`,
    /// `4155550142 4155550143`) read as one candidate that is no phone. When
    /// the space clearly ends a number, the part before it is tried alone
    /// (longest first), as it would be with a comma there; the part after it
    /// is read as a candidate of its own. A space ends a number after or
    /// before a solid run of 7 or more digits, after a number written with
    /// dashes, dots or slashes, or inside a number written with a `+`. A run
    /// grouped one way throughout (`9400 1000 0000 0000 0000 00`,
    /// `5 585 170 304`) is not cut. Returns where to read on (the found
    /// part's end, or the first part after a space that ends a number), or
    /// nil when no space does.
    private static func splitAtSpace(_ candidate: Candidate, _ text: Span<UInt8>, fieldHint: () -> PhoneContext.Hint,
                                     scratch: inout Scratch, _ found: (Int, Int) -> Void) -> Int? {
        guard scratch.groups.count >= 2 else { return nil }
        // The whole candidate's groups stay in `whole` while `groups` holds the part tried.
        swap(&scratch.groups, &scratch.whole)
        let groups = scratch.whole
        func ends(_ split: Int) -> Bool {
            let before = groups[split - 1], after = groups[split]
            let space = before.parenthesized ? before.end + 1 : before.end
            guard after.separator == UInt8(ascii: " "), space < text.count, text[space] == UInt8(ascii: " ") else { return false }
            if (!before.parenthesized && before.digits >= 7) || (!after.parenthesized && after.digits >= 7) { return true }
            if candidate.international { return true }
            return split >= 2 && groups[1..<split].allSatisfy { $0.separator != UInt8(ascii: " ") }
        }
        guard let first = (1..<groups.count).first(where: ends) else { return nil }
        // A space that leaves fewer than 7 digits before it ends no number (`01016 9975153`: one number, or none).
        var before = 0
        for group in groups[..<first] { before += group.digits }
        guard before >= 7 || (first + 1..<groups.count).contains(where: { split in
            ends(split) && groups[..<split].reduce(0) { $0 + $1.digits } >= 7
        }) else { return nil }
        var split = groups.count - 1
        while split >= first {
            defer { split -= 1 }
            guard ends(split) else { continue }
            var digits = 0
            for group in groups[..<split] { digits += group.digits }
            guard digits >= 7 else { continue }
            let last = groups[split - 1]
            let numberEnd = last.parenthesized ? last.end + 1 : last.end
            let part = Candidate(start: candidate.start, numberEnd: numberEnd, end: numberEnd, international: candidate.international,
                                 hasExtension: false, trunkGroup: candidate.trunkGroup.flatMap { $0 < split ? $0 : nil },
                                 endsToken: true, digits: digits)
            scratch.groups.removeAll(keepingCapacity: true)
            scratch.groups.append(contentsOf: groups[..<split])
            if !looksLikeAmount(text, part) && isPhone(part, text, fieldHint: fieldHint, scratch: &scratch) {
                found(candidate.start, numberEnd)
                return numberEnd
            }
        }
        let next = groups[first]
        return next.parenthesized ? next.start - 1 : next.start
    }

    /// What one candidate is made of; its groups are in the scratch.
    struct Candidate {
        var start: Int
        /// The end of the number's digits (a closing parenthesis included).
        var numberEnd: Int
        /// The end of the match: `numberEnd`, or the extension's end.
        var end: Int
        var international: Bool
        var hasExtension: Bool
        /// A `(0)` group: the trunk prefix written after a calling code.
        var trunkGroup: Int?
        var endsToken: Bool
        /// The digits of its groups.
        var digits: Int
    }

    /// Where a candidate may begin: a digit, `+` or `(` then a digit (or `(+`),
    /// as a token of its own, not the tail of a decimal, a time, a range or a
    /// negative number, and not after a currency sign.
    @inline(__always)
    private static func startsCandidate(_ text: Span<UInt8>, _ index: Int) -> Bool {
        let byte = text[index]
        let count = text.count
        if byte == UInt8(ascii: "+") || byte == UInt8(ascii: "(") {
            guard index + 1 < count else { return false }
            let next = text[index + 1]
            guard TextBytes.isDigit(next) || (byte == UInt8(ascii: "(") && next == UInt8(ascii: "+")) else { return false }
        } else if !TextBytes.isDigit(byte) {
            return false
        }
        guard TextBytes.startsToken(text, index), index > 0 else { return index == 0 }
        let previous = text[index - 1]
        switch previous {
        case UInt8(ascii: "("):
            return true  // `(+49 1515 7222662)`, `(019-232-0873)`: the number inside the brackets
        case UInt8(ascii: "-"):
            // A preposition glued to the number (Hebrew `ב-050…`, a Hebrew or Arabic letter before the dash);
            // not a negative number, a range or `SKU-…`.
            return index >= 3 && text[index - 3] >= 0xD7 && text[index - 3] <= 0xDB && text[index - 2] & 0xC0 == 0x80
        case UInt8(ascii: "%"):
            return false  // the digits of an escape (`%2012…`), read decoded (`FormDecoding`)
        case UInt8(ascii: "+"), UInt8(ascii: "$"), UInt8(ascii: "/"):
            return false
        case UInt8(ascii: "."), UInt8(ascii: ","), UInt8(ascii: ":"):
            return !(index >= 2 && TextBytes.isDigit(text[index - 2]))
        case _ where index >= 2 && text[index - 2] == UInt8(ascii: "%") && TextBytes.isHexDigit(previous):
            return false  // `%A0…`: the escape's second digit is a hex letter
        case UInt8(ascii: " "):
            return !(index >= 2 && isCurrencyEnd(text, index - 1))
        default:
            return !isCurrencyEnd(text, index)
        }
    }

    /// Whether a currency sign (`€ £ ¥ ₹ ₽ $`) ends just before `end`.
    private static func isCurrencyEnd(_ text: Span<UInt8>, _ end: Int) -> Bool {
        guard end >= 1 else { return false }
        if text[end - 1] == UInt8(ascii: "$") { return true }
        if end >= 2 && text[end - 2] == 0xC2 && (text[end - 1] == 0xA3 || text[end - 1] == 0xA5) { return true }
        if end >= 3 && text[end - 3] == 0xE2 && text[end - 2] == 0x82 {
            return text[end - 1] == 0xAC || text[end - 1] == 0xB9 || text[end - 1] == 0xBD
        }
        return false
    }

    /// A decimal or a price: followed by `,` or `.` and digits, by `%`, or by a currency sign.
    private static func looksLikeAmount(_ text: Span<UInt8>, _ candidate: Candidate) -> Bool {
        if candidate.hasExtension { return false }
        var end = candidate.numberEnd
        let count = text.count
        guard end < count else { return false }
        if (text[end] == UInt8(ascii: ",") || text[end] == UInt8(ascii: ".")) && end + 1 < count && TextBytes.isDigit(text[end + 1]) {
            return true
        }
        if text[end] == UInt8(ascii: " ") { end += 1 }
        guard end < count else { return false }
        if text[end] == UInt8(ascii: "%") || text[end] == UInt8(ascii: "$") { return true }
        if end + 1 < count && text[end] == 0xC2 && (text[end + 1] == 0xA3 || text[end + 1] == 0xA5) { return true }
        if end + 2 < count && text[end] == 0xE2 && text[end + 1] == 0x82 {
            return text[end + 2] == 0xAC || text[end + 2] == 0xB9 || text[end + 2] == 0xBD
        }
        return false
    }

    /// Reads the groups of the candidate at `index` into `groups`.
    private static func parse(_ text: Span<UInt8>, from index: Int, groups: inout [Group]) -> Candidate? {
        let count = text.count
        groups.removeAll(keepingCapacity: true)
        var international = text[index] == UInt8(ascii: "+")
        var position = international ? index + 1 : index
        var separator: UInt8 = 0
        var trunkGroup: Int?
        while position < count {
            let parenthesized = text[position] == UInt8(ascii: "(")
            var start = parenthesized ? position + 1 : position
            if parenthesized && groups.isEmpty && !international && start < count && text[start] == UInt8(ascii: "+") {
                // `(+358) 40 1234567`: a calling code in brackets; `(+358 40 1234567)` is a number in brackets, read from the `+`.
                var close = start + 1
                while close < count && TextBytes.isDigit(text[close]) { close += 1 }
                guard close - start - 1 <= 3, close < count, text[close] == UInt8(ascii: ")") else { return nil }
                international = true
                start += 1
            }
            var end = start
            while end < count && TextBytes.isDigit(text[end]) { end += 1 }
            if end == start || (parenthesized && (end == count || text[end] != UInt8(ascii: ")"))) { break }
            if parenthesized && end - start == 1 && text[start] == UInt8(ascii: "0") && !groups.isEmpty { trunkGroup = groups.count }
            groups.append(Group(start: start, end: end, parenthesized: parenthesized, separator: separator))
            position = parenthesized ? end + 1 : end
            // Up to two separators (`) `, ` - `), then a digit or `(`; none needed after `)`.
            var look = position
            separator = 0
            while look < count && look - position < 2, isSeparator(text[look]) {
                if separator == 0 || text[look] != UInt8(ascii: " ") { separator = text[look] }
                look += 1
            }
            guard look < count, TextBytes.isDigit(text[look]) || text[look] == UInt8(ascii: "(") else { break }
            if look == position && !parenthesized && text[look] != UInt8(ascii: "(") { break }
            if separator == 0 { separator = UInt8(ascii: " ") }
            position = look
            if groups.count >= 12 { break }
        }
        guard let last = groups.last else { return nil }
        let numberEnd = last.parenthesized ? last.end + 1 : last.end
        var digits = 0
        for group in groups { digits += group.digits }
        var candidate = Candidate(start: index, numberEnd: numberEnd, end: numberEnd, international: international,
                                  hasExtension: false, trunkGroup: trunkGroup, endsToken: false, digits: digits)
        guard digits >= 7 else { return candidate }
        if let extensionEnd = extensionEnd(text, from: numberEnd) {
            candidate.end = extensionEnd
            candidate.hasExtension = true
        }
        candidate.endsToken = TextBytes.endsToken(text, candidate.end)
        return candidate
    }

    @inline(__always)
    private static func isSeparator(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "/")
    }

    /// The end of an extension right after a number: `x123`, ` x 123`, `ext. 123`,
    /// `extension 123`, `#123`, `доб. 123` (1-6 digits), or nil.
    private static func extensionEnd(_ text: Span<UInt8>, from start: Int) -> Int? {
        let count = text.count
        var position = start
        if position < count && text[position] == UInt8(ascii: " ") { position += 1 }
        var matched = false
        for marker in extensionMarkers where position + marker.count <= count {
            var same = true
            for offset in 0..<marker.count where text[position + offset] | (marker[offset] < 0x80 ? 0x20 : 0) != marker[offset] {
                same = false
                break
            }
            if same {
                position += marker.count
                matched = true
                break
            }
        }
        guard matched else { return nil }
        if position < count && text[position] == UInt8(ascii: ".") { position += 1 }
        if position < count && (text[position] == UInt8(ascii: " ") || text[position] == UInt8(ascii: ":")) { position += 1 }
        let digitsStart = position
        while position < count && TextBytes.isDigit(text[position]) && position - digitsStart < 7 { position += 1 }
        let digits = position - digitsStart
        guard digits >= 1 && digits <= 6, TextBytes.endsToken(text, position) else { return nil }
        return position
    }

    /// Longest first, so `extension` is not read as `ext` and `ension`.
    private static let extensionMarkers: [[UInt8]] = ["extension", "ext", "x", "#", "доб"].map { Array($0.utf8) }

    private static func isPhone(_ candidate: Candidate, _ text: Span<UInt8>, fieldHint: () -> PhoneContext.Hint,
                                scratch: inout Scratch) -> Bool {
        let groups = scratch.groups
        scratch.digits.removeAll(keepingCapacity: true)
        var separators: UInt8 = 0  // bits: 1 space, 2 dash, 4 dot, 8 slash
        var oneDigitGroup = false
        // `00` and a calling code is international form too (`0031 6 12355293`: the one-digit area code after it).
        let first = groups[0]
        let international = candidate.international
            || (first.digits >= 3 && first.digits <= 5 && text[first.start] == UInt8(ascii: "0") && text[first.start + 1] == UInt8(ascii: "0"))
        for (index, group) in groups.enumerated() where index != candidate.trunkGroup {
            for position in group.start..<group.end { scratch.digits.append(text[position]) }
            if index > 0 && !(international && index == 1 && group.separator == UInt8(ascii: " ")) {
                switch group.separator {
                case UInt8(ascii: " "): separators |= 1
                case UInt8(ascii: "-"): separators |= 2
                case UInt8(ascii: "."): separators |= 4
                case UInt8(ascii: "/"): separators |= 8
                default: break
                }
            }
            // After the first group, groups of one digit are versions or lists, except a `(0)` trunk and,
            // after a `+` and country code, a one-digit area code (`+33 6 12 34 56 78`).
            if index > 0 && group.digits < 2 && index != candidate.trunkGroup
                && !(international && (index == 1 || index - 1 == candidate.trunkGroup)) {
                oneDigitGroup = true
            }
        }
        // Dots do not mix with other separators in a phone number (`33.951944-05`, `101.36380 -39.11030`).
        if separators & 4 != 0 && separators != 4 { return false }
        // Two groups joined by a dot are a decimal (`3434832.18`, `26.412737`).
        if separators == 4 && groups.count == 2 { return false }
        let digitCount = scratch.digits.count
        // Held in a local while the checks run, so their use of `scratch.pattern` does not overlap it.
        var held: [UInt8] = []
        swap(&held, &scratch.digits)
        defer { swap(&held, &scratch.digits) }
        let digits = held.span
        do {
            // After the first group, a group of one digit makes a version or a list (`3.2.1`, `795 6 732`,
            // `1-4743-6613-9`), unless the field's name says phone (`"phone":"030 6 970"`).
            if oneDigitGroup {
                guard fieldHint() == .phone else { return false }
                if candidate.international { return internationalReading(digits, from: 0, codes: &scratch.regions, scratch: &scratch.pattern) != .none }
                return digitCount <= 13 && regionalReading(digits, scratch: &scratch) != .none
            }
            if candidate.international {
                switch internationalReading(digits, from: 0, codes: &scratch.regions, scratch: &scratch.pattern) {
                case .valid: return true
                case .possible: return saysPhone(candidate, text, fieldHint: fieldHint)
                case .none: return false
                }
            }
            guard digitCount <= 17 else { return false }
            if groups.count == 2 && separators & 3 != 0 && groups.allSatisfy({ $0.digits == 4 && isYear(text, $0.start) }) {
                return false  // `2019-2024`
            }
            // Grouped in thousands with dots (`540.732.154`) or a dotted quad (`93.184.216.34`): a number or an address.
            if separators == 4 && groups.count >= 3 && groups[0].digits <= 3 && !groups[0].parenthesized
                && groups.dropFirst().allSatisfy({ $0.digits == 3 }) { return false }
            if separators == 4 && groups.count == 4 && groups.allSatisfy({ $0.digits <= 3 }) { return false }
            // A run written solid with a check digit is a barcode or an ISBN unless the placement says phone.
            let checkDigit = groups.count == 1 && (digitCount == 8 || digitCount >= 12) && NumberDetection.isGTIN(digits, 0, digitCount)
            var reading = PhoneRegion.Reading.none
            // `00` and a calling code: `00420 601 123 456`, `001-415-555-0123`.
            if digitCount >= 10 && digits[0] == UInt8(ascii: "0") && digits[1] == UInt8(ascii: "0") {
                reading = internationalReading(digits, from: 2, codes: &scratch.regions, scratch: &scratch.pattern)
            }
            if reading == .none {
                guard digitCount <= 13 else { return false }
                reading = regionalReading(digits, scratch: &scratch)
            }
            guard reading != .none else { return false }
            return placementAllows(reading, checkDigit: checkDigit, candidate, text, fieldHint: fieldHint)
        }
    }

    /// How `digits`, written without a `+`, read in the country (or the two)
    /// the event names; with none named, any run of 7-12 digits is of a
    /// possible length somewhere and none is valid.
    private static func regionalReading(_ digits: Span<UInt8>, scratch: inout Scratch) -> PhoneRegion.Reading {
        scratch.regionRead = true
        if scratch.region == -2 { scratch.region = scratch.event.flatMap(PhoneRegion.ofEvent) ?? -1 }
        let (first, second) = PhoneRegion.regions(ofPair: scratch.region)
        guard first >= 0 else { return digits.count <= 12 ? .possible : .none }
        var reading = scratch.regions.region(first).reading(digits, scratch: &scratch.pattern)
        if reading != .valid && second >= 0 {
            reading = Swift.max(reading, scratch.regions.region(second).reading(digits, scratch: &scratch.pattern))
        }
        return reading
    }

    /// The rule, given how a run reads: a valid number is a phone; one of a
    /// possible length only when its placement names a phone (the field's
    /// name, a phone word just before it or right after it). Identifier
    /// context (a field named `order_id`, `sku`, `model` or `order`, `P/N`,
    /// `Art.`, `ISBN` just before it) vetoes the run, but for a valid number
    /// that a phone word or field also names. A solid run with a barcode's
    /// check digit is a phone only when the placement says so.
    private static func placementAllows(_ reading: PhoneRegion.Reading, checkDigit: Bool, _ candidate: Candidate,
                                        _ text: Span<UInt8>, fieldHint: () -> PhoneContext.Hint) -> Bool {
        let near = PhoneContext.wordsAround(text, candidate.start, candidate.end)
        if near == .phone {
            return reading == .valid || fieldHint() != .notPhone
        }
        let hint = fieldHint()
        if near == .notPhone { return reading == .valid && hint == .phone }
        switch hint {
        case .phone: return true
        case .notPhone: return false
        case .none: return reading == .valid && !checkDigit
        }
    }

    /// Whether the placement of a number names a phone: a phone word just
    /// before it or right after it (and the field's name not something else),
    /// or the field's name.
    private static func saysPhone(_ candidate: Candidate, _ text: Span<UInt8>, fieldHint: () -> PhoneContext.Hint) -> Bool {
        let near = PhoneContext.wordsAround(text, candidate.start, candidate.end)
        if near == .notPhone { return false }
        let hint = fieldHint()
        if near == .phone { return hint != .notPhone }
        return hint == .phone
    }
}
