/// Finds payment card numbers: digit groups joined by separators, standing
/// alone as a token (see `TextBytes.startsToken`). Phone numbers, which share
/// the digit groups, are `PhoneDetection`'s.
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

    /// Card numbers: 12-19 digits that pass the Luhn check and belong to an
    /// issuer range with that length (`CardIssuers`), written solid or in the
    /// groups cards are printed in (fours; Amex and Diners 4-6-5 and 4-6-4),
    /// joined by single spaces or dashes. The number must be the whole token:
    /// a card-like window inside a longer digit group (`111-3393611-7262358`)
    /// is not a card. Within a run of space-separated groups
    /// (`qty 2 4111 1111 1111 1111 12 29`), a window of whole groups printed as
    /// a card is, a solid number among them too: two cards with a space
    /// between them (`4111111111111111 5500000000000004`) are two cards.
    static func scanCards(_ text: Span<UInt8>, groups: inout [Group], _ found: (Int, Int) -> Void) {
        var index = 0
        let count = text.count
        while index < count {
            guard TextBytes.isDigit(text[index]), TextBytes.startsToken(text, index),
                  index == 0 || (text[index - 1] != UInt8(ascii: "+") && text[index - 1] != UInt8(ascii: "-")) else {
                index += 1
                continue
            }
            groups.removeAll(keepingCapacity: true)
            var position = index
            var dashed = false
            while true {
                let start = position
                while position < count && TextBytes.isDigit(text[position]) { position += 1 }
                groups.append(Group(start: start, end: position, separator: start > index ? text[start - 1] : 0))
                guard position + 1 < count, text[position] == UInt8(ascii: " ") || text[position] == UInt8(ascii: "-"),
                      TextBytes.isDigit(text[position + 1]), groups.count < 24 else { break }
                if text[position] == UInt8(ascii: "-") { dashed = true }
                position += 1
            }
            let runEnd = position
            if TextBytes.endsToken(text, runEnd) {
                if isPrintedCard(groups[...]) && isCard(text, groups[0].start, runEnd) {
                    found(groups[0].start, runEnd)
                } else if !dashed && groups.count >= 2 {
                    claimWindows(text, groups: groups, found)
                } else if dashed {
                    // A space ends a number written with dashes: each part between spaces is read alone
                    // (`+1 201-256-9912 4526730847394813`, `4111-1111-1111-1111 12-29`).
                    var partStart = 0
                    for index in 1...groups.count where index == groups.count || groups[index].separator == UInt8(ascii: " ") {
                        if partStart > 0 || index < groups.count, isPrintedCard(groups[partStart..<index]),
                           isCard(text, groups[partStart].start, groups[index - 1].end) {
                            found(groups[partStart].start, groups[index - 1].end)
                        }
                        partStart = index
                    }
                }
            }
            index = runEnd
        }
    }

    /// Whether groups are written as cards are printed: one group, fours (the
    /// last may be from 1 to 5: 19 digits as 4-4-4-4-3, 13 as 4-4-5), or 4-6-4 / 4-6-5.
    private static func isPrintedCard(_ groups: ArraySlice<Group>) -> Bool {
        let first = groups.startIndex, last = groups.endIndex - 1
        if groups.count == 1 { return true }
        if groups.count == 3 && groups[first].digits == 4 && groups[first + 1].digits == 6 && (4...5).contains(groups[last].digits) {
            return true
        }
        for index in groups.indices where groups[index].digits != 4 && !(index == last && (1...5).contains(groups[index].digits)) {
            return false
        }
        return true
    }

    /// Reports the windows of whole groups inside a longer space-separated run
    /// that are cards printed as cards (one solid group, or groups as
    /// `isPrintedCard` says), longest first, none overlapping.
    private static func claimWindows(_ text: Span<UInt8>, groups: [Group], _ found: (Int, Int) -> Void) {
        var windows: [(first: Int, last: Int, digits: Int)] = []
        for first in groups.indices {
            var digits = 0
            for last in first..<groups.count {
                digits += groups[last].digits
                if digits > 19 { break }
                if digits >= 12 && isPrintedCard(groups[first...last])
                    && isCard(text, groups[first].start, groups[last].end) {
                    windows.append((first, last, digits))
                }
            }
        }
        guard !windows.isEmpty else { return }
        windows.sort { ($0.digits, -$0.first) > ($1.digits, -$1.first) }
        var taken: [(first: Int, last: Int)] = []
        for window in windows where !taken.contains(where: { $0.first <= window.last && window.first <= $0.last }) {
            taken.append((window.first, window.last))
        }
        for window in taken.sorted(by: { $0.first < $1.first }) { found(groups[window.first].start, groups[window.last].end) }
    }

    /// Whether the digits in `text[start..<end]` (separators skipped) are a card
    /// number: an issuer's range and length, and the Luhn check.
    static func isCard(_ text: Span<UInt8>, _ start: Int, _ end: Int) -> Bool {
        // The issuer first: most numbers (times, ids) fail it in a few steps, before the Luhn sum.
        var digits = 0
        var prefix = 0
        for position in start..<end where TextBytes.isDigit(text[position]) {
            if digits < 6 { prefix = prefix * 10 + Int(text[position] - 0x30) }
            digits += 1
        }
        guard digits >= 12 && digits <= 19, CardIssuers.accepts(prefix: prefix, length: digits) else { return false }
        // A 13- or 14-digit number whose last digit is a GTIN check digit (EAN-13, GTIN-14) is a barcode, but
        // for the lengths only cards have there: Visa's 13 digits and Diners Club's 14 (`30`, `36`, `38`, `39`).
        if (digits == 13 && prefix / 100_000 != 4) || (digits == 14 && !isDiners(prefix)) {
            if isGTIN(text, start, end) { return false }
        }
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

    /// Whether six digits are in a Diners Club range (`300`-`305`, `3095`, `36`, `38`, `39`).
    private static func isDiners(_ prefix: Int) -> Bool {
        (300_000...305_999).contains(prefix) || (309_500...309_599).contains(prefix) || (360_000...369_999).contains(prefix)
            || (380_000...399_999).contains(prefix)
    }

    /// Whether the digits in `text[start..<end]` end in a GS1 check digit (weights 3 and 1 from the right).
    static func isGTIN(_ text: Span<UInt8>, _ start: Int, _ end: Int) -> Bool {
        var sum = 0
        var weight = 1
        var position = end - 1
        while position >= start {
            if TextBytes.isDigit(text[position]) {
                sum += Int(text[position] - 0x30) * weight
                weight = weight == 1 ? 3 : 1
            }
            position -= 1
        }
        return sum % 10 == 0
    }
}
