import SluiceJSON

/// Finds phone numbers: digit groups joined by spaces, dashes, dots, slashes or
/// parentheses, standing alone as a token, with an extension if one follows
/// (`x65859`, `ext. 12`, `#7`), checked against the numbering plans of the
/// world (`PhoneNumberingPlan`).
///
/// Taken without further context:
/// - international numbers: `+` (or `00`) and a calling code whose national
///   numbers can have the length that follows (`+44 (0)20 7946 0958`,
///   `+1-292-457-2462x93346`, `00420 601 123 456`, `(+49 1515 7222662)`);
/// - 10 to 12 digits (9 to 12 in groups) starting with a trunk prefix that are a valid national
///   number of a country dialled with it (`0450096137`, `030 1234 5678`,
///   `8 (912) 345-67-89`);
/// - an area code in brackets (`(753)775-4223`), a valid North American number
///   written 3-3-4 (`415.555.0123`), three or more groups of 2-4 digits
///   (`090-1234-5678`, `12 34 56 78`), a Chinese mobile number (`13812345678`),
///   and any number with an extension.
/// Any other run of 7-12 digits (`612345678`, `4155550123`, `1234-5678`,
/// `612 345 678`) is a phone only when the field's name or the words just
/// before it say so (`PhoneContext`), or when it is a fixed-line or mobile
/// number of the country the event's `context.locale` names, written as
/// people there write it (`PhoneRegion`: `612 345 678` in `es-ES`,
/// `030 1234567` in `de-DE`, `420601123456` in `cs-CZ`).
///
/// Never phones: dates, times and their fractions, year ranges, decimals and
/// prices (`12 345,50`, `€ 1 234 567`), negative numbers and coordinates
/// (`POINT(-101.36380 -39.11030)`), versions and lists (a one-digit group
/// after the first but for a `(0)` trunk and the area code after a calling
/// code: `3.2.1`, ISBNs `0-306-40615-2`), numbers grouped in thousands with
/// dots (`540.732.154`), separators of different kinds mixed with dots, and
/// runs the words before call something else (`order 4155550123`,
/// `ISBN 0306406152`).
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
        case UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "$"), UInt8(ascii: "/"):
            return false
        case UInt8(ascii: "."), UInt8(ascii: ","), UInt8(ascii: ":"):
            return !(index >= 2 && TextBytes.isDigit(text[index - 2]))
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
        for (index, group) in groups.enumerated() where index != candidate.trunkGroup {
            for position in group.start..<group.end { scratch.digits.append(text[position]) }
            if index > 0 && !(candidate.international && index == 1 && group.separator == UInt8(ascii: " ")) {
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
                && !(candidate.international && (index == 1 || index - 1 == candidate.trunkGroup)) {
                oneDigitGroup = true
            }
        }
        // Dots do not mix with other separators in a phone number (`33.951944-05`, `101.36380 -39.11030`).
        if separators & 4 != 0 && separators != 4 { return false }
        let digitCount = scratch.digits.count
        // Held in a local while the checks run, so their use of `scratch.pattern` does not overlap it.
        var held: [UInt8] = []
        swap(&held, &scratch.digits)
        defer { swap(&held, &scratch.digits) }
        let digits = held.span
        do {
            if candidate.international {
                if oneDigitGroup { return false }
                return isInternational(digits, from: 0, grouped: groups.count > 1, scratch: &scratch.pattern)
            }
            // `00` and a calling code: `00420 601 123 456`, `001-415-555-0123`; not a UPC-A written solid
            // (`004892737150`, its check digit valid) nor in a field named for something else (`ean`).
            if digitCount >= 10 && digits[0] == UInt8(ascii: "0") && digits[1] == UInt8(ascii: "0")
                && isInternational(digits, from: 2, grouped: groups.count > 1, scratch: &scratch.pattern)
                && !(groups.count == 1 && digitCount >= 12 && NumberDetection.isGTIN(digits, 0, digitCount))
                && fieldHint() != .notPhone {
                return true
            }
            guard digitCount >= 7 && digitCount <= 12 else { return false }
            if groups.count == 2 && separators & 3 != 0 && groups.allSatisfy({ $0.digits == 4 && isYear(text, $0.start) }) {
                return false  // `2019-2024`
            }
            // Grouped in thousands with dots: never; with spaces (`346 308 041`): only with context.
            let thousands = groups.count >= 3 && groups[0].digits <= 3 && !groups[0].parenthesized
                && groups.dropFirst().allSatisfy { $0.digits == 3 }
            if thousands && separators == 4 { return false }
            let near = PhoneContext.wordsBefore(text, candidate.start)
            if near == .notPhone { return false }
            if near == .phone { return true }
            let hint = fieldHint()
            if hint == .phone { return true }
            if oneDigitGroup { return false }
            // Without context, a shape only phone numbers have.
            if candidate.hasExtension || hasTrunkPrefix(digits, grouped: groups.count > 1, scratch: &scratch.pattern) { return true }
            // The last resort for a run no shape says is a phone: a person's number in the event's own country.
            // A barcode's check digit vetoes it; an ISBN-10's does not, since one number in 11 passes it and
            // a valid number of the event's country is likelier a phone (an ISBN comes with `ISBN` or a field named so).
            func regional() -> Bool {
                scratch.regionRead = true
                if scratch.region == -2 { scratch.region = scratch.event.flatMap(PhoneRegion.ofEvent) ?? -1 }
                guard scratch.region >= 0, hint != .notPhone, separators & 4 == 0 else { return false }
                if groups.count == 1 && ((digitCount == 8 || digitCount >= 12) && NumberDetection.isGTIN(digits, 0, digitCount)) {
                    return false  // written solid with a check digit: a barcode or an ISBN
                }
                let region = scratch.regions.region(scratch.region)
                return region.isNational(digits, scratch: &scratch.pattern) || region.isInternational(digits, scratch: &scratch.pattern)
            }
            if groups.count == 1 { return isChineseMobile(digits, scratch: &scratch.pattern) || regional() }  // `612345678`
            if thousands { return regional() }  // `601 461 055`
            // An area code in parentheses (`(0113) 496 0123`, `8 (912) 345-67-89`) is how phone numbers are written.
            if groups.indices.contains(where: { groups[$0].parenthesized && $0 != candidate.trunkGroup }) { return true }
            if isNorthAmericanGrouped(groups, digits, scratch: &scratch.pattern) { return true }
            // Three or more groups of 2-4 digits (`090-1234-5678`, `12 34 56 78`) joined by spaces or dashes, not
            // ending in a short group after a long one (`2790-7742-16`), in a field not named for something else:
            // not ids like `30-89837-14828`, nor versions `12.20.51.10`.
            guard hint != .notPhone, separators & 4 == 0 else { return false }
            if groups.count >= 3 && groups[groups.count - 1].digits < 3 && groups[groups.count - 2].digits >= 4 { return false }
            if groups.count >= 3 && digitCount >= 8 && groups.dropFirst().allSatisfy({ $0.digits >= 2 && $0.digits <= 4 }) {
                return true
            }
            return regional()
        }
    }
}
