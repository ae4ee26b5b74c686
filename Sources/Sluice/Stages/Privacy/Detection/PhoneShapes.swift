import SluiceJSON

/// The shapes only phone numbers have, and the dates and years that are not
/// phone numbers: the checks `PhoneDetection.isPhone` makes of a candidate's digits.
extension PhoneDetection {
    /// How digits from `from` on read as a calling code and a national number
    /// of it (a trunk prefix written in is allowed: `+44 020 …`): valid when
    /// the national number is valid there, possible when it has a length the
    /// code's numbers have, none otherwise (an unknown code among them: no
    /// numbering plan allows such a number).
    static func internationalReading(_ digits: Span<UInt8>, from: Int, codes: inout PhoneRegion.Cache,
                                     scratch: inout PatternProgram.Scratch) -> PhoneRegion.Reading {
        let count = digits.count - from
        guard count >= 7 && count <= 17, let (index, length) = PhoneNumberingPlan.callingCode(digits, from: from) else {
            return .none
        }
        let code = codes.code(index)
        let national = digits.extracting((from + length)...)
        if PhoneNumberingPlan.isValid(national, in: code, scratch: &scratch) { return .valid }
        var reading: PhoneRegion.Reading = code.isPossible(length: national.count) ? .possible : .none
        let trunk = code.trunk
        if !trunk.isEmpty && national.count > trunk.count && ByteSpans.hasPrefix(national, at: 0, trunk) {
            let rest = national.extracting(trunk.count...)
            if PhoneNumberingPlan.isValid(rest, in: code, scratch: &scratch) { return .valid }
            if code.isPossible(length: rest.count) { reading = .possible }
        }
        return reading
    }

    /// When the first three groups read as a date (`YYYY-MM-DD`, `DD.MM.YYYY`,
    /// `MM-DD-YYYY`, one separator kind), how many groups it spans (3); else nil.
    static func dateGroups(_ groups: [Group], _ text: Span<UInt8>) -> Int? {
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

    static func isYear(_ text: Span<UInt8>, _ start: Int) -> Bool {
        (text[start] == UInt8(ascii: "1") && text[start + 1] == UInt8(ascii: "9"))
            || (text[start] == UInt8(ascii: "2") && text[start + 1] == UInt8(ascii: "0"))
    }
}
