/// Finds payment card numbers and phone numbers: digit groups joined by
/// separators, standing alone as a token (see `TextBytes.startsToken`).
enum NumberDetection {
    /// One run of digits inside a candidate.
    struct Group {
        var start: Int
        var end: Int
        var digits: Int { end - start }
        /// Written in parentheses: `(415)`.
        var parenthesized = false
        /// The separator before it (0 for the first group or none).
        var separator: UInt8 = 0
    }

    // MARK: - Cards

    /// Card numbers: 13-19 digits, contiguous or in groups joined by single spaces
    /// or dashes, starting with 2-6 (the card networks' major industry
    /// identifiers: Mastercard 2/5, Amex, Diners and JCB 3, Visa 4, Discover and
    /// UnionPay 6) and passing the Luhn check, so order numbers, timestamps in
    /// milliseconds (`1795161600040`) and most ids survive. Within a longer run of
    /// groups (`qty 2 4111 1111 1111 1111 12 29`) any window of whole groups counts.
    static func scanCards(_ text: UnsafeBufferPointer<UInt8>, groups: inout [Group], _ found: (Int, Int) -> Void) {
        var index = 0
        let count = text.count
        while index < count {
            guard TextBytes.isDigit(text[index]), TextBytes.startsToken(text, index),
                  index == 0 || text[index - 1] != UInt8(ascii: "+") else {
                index += 1
                continue
            }
            groups.removeAll(keepingCapacity: true)
            var position = index
            while true {
                let start = position
                while position < count && TextBytes.isDigit(text[position]) { position += 1 }
                groups.append(Group(start: start, end: position, separator: start > index ? text[start - 1] : 0))
                guard position + 1 < count, text[position] == UInt8(ascii: " ") || text[position] == UInt8(ascii: "-"),
                      TextBytes.isDigit(text[position + 1]), groups.count < 24 else { break }
                position += 1
            }
            let runEnd = position
            if TextBytes.endsToken(text, runEnd) || groups.count > 1 {
                claimCards(text, groups: groups, runEnd: runEnd, found)
            }
            index = runEnd
        }
    }

    /// Card lengths, most common first: a run that holds several valid windows
    /// (`4111 1111 1111 1111 12`) gives the one of the most usual length.
    private static let lengthRank: [Int: Int] = [16: 0, 15: 1, 19: 2, 14: 3, 13: 4, 17: 5, 18: 6]

    /// Reports the windows of whole groups that are card numbers, best first, none overlapping.
    private static func claimCards(_ text: UnsafeBufferPointer<UInt8>, groups: [Group], runEnd: Int, _ found: (Int, Int) -> Void) {
        var windows: [(first: Int, last: Int, rank: Int)] = []
        for first in groups.indices {
            var digits = 0
            for last in first..<groups.count {
                digits += groups[last].digits
                if digits > 19 { break }
                // A window ending inside the run is cut at a separator; one ending the run must end the token.
                if digits >= 13 && (last < groups.count - 1 || TextBytes.endsToken(text, runEnd))
                    && isCard(text, groups[first].start, groups[last].end) {
                    windows.append((first, last, lengthRank[digits] ?? 9))
                }
            }
        }
        guard !windows.isEmpty else { return }
        windows.sort { ($0.rank, $0.first) < ($1.rank, $1.first) }
        var taken: [(first: Int, last: Int)] = []
        for window in windows where !taken.contains(where: { $0.first <= window.last && window.first <= $0.last }) {
            taken.append((window.first, window.last))
        }
        for window in taken.sorted(by: { $0.first < $1.first }) { found(groups[window.first].start, groups[window.last].end) }
    }

    /// Whether the digits in `text[start..<end]` (separators skipped) are a card number.
    static func isCard(_ text: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        let lead = text[start]
        guard lead >= UInt8(ascii: "2") && lead <= UInt8(ascii: "6") else { return false }
        var sum = 0
        var double = false
        var position = end - 1
        while position >= start {
            let byte = text[position]
            if TextBytes.isDigit(byte) {
                var digit = Int(byte - 0x30)
                if double {
                    digit *= 2
                    if digit > 9 { digit -= 9 }
                }
                sum += digit
                double.toggle()
            }
            position -= 1
        }
        return sum % 10 == 0
    }

    // MARK: - Phones

    /// Phone numbers: international (`+` and 7-15 digits, `+1 (415) 555-0100`,
    /// `+442079460958`) and national (7-15 digits in groups joined by spaces,
    /// dashes, dots or parentheses: `(415) 555-0100`, `555-0100`, `030 1234 5678`).
    ///
    /// Not phones: dates (`2026-11-20`, `20.11.2026`, `2026-11-20 08:00`), year
    /// ranges (`2019-2024`), decimals (`52.520008`), versions (a group of one
    /// digit after the first: `3.2.1 (3210)`, `1.2.3.4`), dotted numbers in fewer
    /// than three groups. A bare run of digits is a phone only in a national
    /// format that has no other common reading: 10 digits starting 2-9 (North
    /// America), 11 starting `1` then 2-9, or 10-11 starting with a trunk `0`; so
    /// order numbers, unix times (`1732000000`) and short ids survive.
    static func scanPhones(_ text: UnsafeBufferPointer<UInt8>, groups: inout [Group], _ found: (Int, Int) -> Void) {
        var index = 0
        let count = text.count
        while index < count {
            let byte = text[index]
            let opensWithSign = byte == UInt8(ascii: "+") || byte == UInt8(ascii: "(")
            guard (TextBytes.isDigit(byte) || (opensWithSign && index + 1 < count && TextBytes.isDigit(text[index + 1])))
                    && TextBytes.startsToken(text, index)
                    && (index == 0 || (text[index - 1] != UInt8(ascii: "+") && text[index - 1] != UInt8(ascii: "(")))
            else {
                index += 1
                continue
            }
            let international = byte == UInt8(ascii: "+")
            var position = international ? index + 1 : index
            groups.removeAll(keepingCapacity: true)
            var separator: UInt8 = 0
            while position < count {
                let parenthesized = text[position] == UInt8(ascii: "(")
                let start = parenthesized ? position + 1 : position
                var end = start
                while end < count && TextBytes.isDigit(text[end]) { end += 1 }
                if end == start || (parenthesized && (end == count || text[end] != UInt8(ascii: ")"))) { break }
                groups.append(Group(start: start, end: end, parenthesized: parenthesized, separator: separator))
                position = parenthesized ? end + 1 : end
                // Up to two separators (`) `, ` - `), then a digit or `(`; none needed after `)`.
                var look = position
                separator = 0
                while look < count && look - position < 2,
                      text[look] == UInt8(ascii: " ") || text[look] == UInt8(ascii: "-") || text[look] == UInt8(ascii: ".") {
                    if separator == 0 || text[look] != UInt8(ascii: " ") { separator = text[look] }
                    look += 1
                }
                guard look < count, TextBytes.isDigit(text[look]) || text[look] == UInt8(ascii: "(") else { break }
                if look == position && !parenthesized && text[look] != UInt8(ascii: "(") { break }
                if separator == 0 { separator = UInt8(ascii: " ") }
                position = look
                if groups.count >= 12 { break }
            }
            guard let last = groups.last else {
                index += 1
                continue
            }
            let end = last.parenthesized ? last.end + 1 : last.end
            if let date = dateGroups(groups, text) {
                // Skip the date, look again after it: `2026-11-20 4155550100` still has a phone.
                index = groups[date - 1].end
                continue
            }
            if TextBytes.endsToken(text, end) && isPhone(groups, text, international: international) {
                found(index, end)
            }
            // A candidate that is not a phone is skipped whole: its tail is not tried as one.
            index = end
        }
    }

    private static func isPhone(_ groups: [Group], _ text: UnsafeBufferPointer<UInt8>, international: Bool) -> Bool {
        let digits = groups.reduce(0) { $0 + $1.digits }
        guard digits >= 7 && digits <= 15 else { return false }
        if groups.count == 1 {
            if international { return true }
            let lead = text[groups[0].start]
            let second = text[groups[0].start + 1]
            switch digits {
            case 10: return lead != UInt8(ascii: "1")
            case 11: return lead == UInt8(ascii: "0") || (lead == UInt8(ascii: "1") && second >= UInt8(ascii: "2"))
            default: return false
            }
        }
        var dots = 0
        for (index, group) in groups.enumerated() {
            if group.separator == UInt8(ascii: ".") { dots += 1 }
            // After the first group, groups of one digit are versions or lists, except a `(0)` trunk
            // and, after a `+` and country code, a one-digit area code (`+33 6 12 34 56 78`).
            if index > 0 && group.digits < 2 && !(group.parenthesized && text[group.start] == UInt8(ascii: "0"))
                && !(international && index == 1) { return false }
        }
        if dots > 0 && groups.count < 3 { return false }
        if groups.count == 2 && !international && groups.allSatisfy({ $0.digits == 4 && isYear(text, $0.start) }) { return false }
        return true
    }

    /// When the first three groups read as a date (`YYYY-MM-DD`, `DD.MM.YYYY`,
    /// `MM-DD-YYYY`, one separator kind), how many groups it spans (3); else nil.
    private static func dateGroups(_ groups: [Group], _ text: UnsafeBufferPointer<UInt8>) -> Int? {
        guard groups.count >= 3, groups[1].separator == groups[2].separator,
              groups[1].separator == UInt8(ascii: "-") || groups[1].separator == UInt8(ascii: ".") || groups[1].separator == UInt8(ascii: "/")
        else { return nil }
        func value(_ group: Group) -> Int {
            var result = 0
            for position in group.start..<group.end { result = result * 10 + Int(text[position] - 0x30) }
            return result
        }
        let sizes = (groups[0].digits, groups[1].digits, groups[2].digits)
        let (a, b, c) = (value(groups[0]), value(groups[1]), value(groups[2]))
        if sizes.0 == 4 && sizes.1 <= 2 && sizes.2 <= 2 && (1...12).contains(b) && (1...31).contains(c) { return 3 }
        if sizes.0 <= 2 && sizes.1 <= 2 && sizes.2 == 4 && (1...31).contains(a) && (1...31).contains(b) && (a <= 12 || b <= 12) {
            return 3
        }
        return nil
    }

    private static func isYear(_ text: UnsafeBufferPointer<UInt8>, _ start: Int) -> Bool {
        (text[start] == UInt8(ascii: "1") && text[start + 1] == UInt8(ascii: "9"))
            || (text[start] == UInt8(ascii: "2") && text[start + 1] == UInt8(ascii: "0"))
    }
}
