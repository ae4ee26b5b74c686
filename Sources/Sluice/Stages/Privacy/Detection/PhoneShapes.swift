import SluiceJSON

/// The shapes only phone numbers have, and the dates and years that are not
/// phone numbers: the checks `PhoneDetection.isPhone` makes of a candidate's digits.
extension PhoneDetection {
    /// Digits from `from` on as a calling code and a national number of a length
    /// that code has (a trunk prefix written in is allowed: `+44 020 …`). An
    /// unknown code written with `+` in groups is still taken: no number starts
    /// with `+` but a phone number.
    static func isInternational(_ digits: Span<UInt8>, from: Int, grouped: Bool,
                                        scratch: inout PatternProgram.Scratch) -> Bool {
        let count = digits.count - from
        guard count >= 7 && count <= 15 else { return false }
        guard let (code, length) = PhoneNumberingPlan.callingCode(digits, from: from) else { return from == 0 && grouped }
        let national = digits.extracting((from + length)...)
        if code.isPossible(length: national.count) { return true }
        let trunk = code.trunk
        if !trunk.isEmpty && national.count > trunk.count && ByteSpans.hasPrefix(national, at: 0, trunk) {
            return code.isPossible(length: national.count - trunk.count)
        }
        return false
    }

    /// Whether 11-15 digits are an international number written without its
    /// `+`: a calling code and a valid national number of it (`4915123456789`,
    /// `14155550123`), as a phone stored as a JSON number is.
    static func isInternationalNumber(_ digits: Span<UInt8>, scratch: inout PatternProgram.Scratch) -> Bool {
        guard digits.count >= 11 && digits.count <= 15, !NumberDetection.isGTIN(digits, 0, digits.count),
              let (code, length) = PhoneNumberingPlan.callingCode(digits, from: 0) else {
            return false  // a barcode stored as a number (UPC-A without its leading zero) has a GS1 check digit
        }
        return PhoneNumberingPlan.isValid(digits.extracting(length...), in: code, scratch: &scratch)
    }

    /// A trunk prefix (`0`, or `8` in Russia and its neighbours) before a valid
    /// national number of a country dialled with it.
    static func hasTrunkPrefix(_ digits: Span<UInt8>, grouped: Bool, scratch: inout PatternProgram.Scratch) -> Bool {
        guard digits.count >= (grouped ? 9 : 10) && digits.count <= 12,
              digits[0] == UInt8(ascii: "0") || digits[0] == UInt8(ascii: "8"),
              digits[1] != UInt8(ascii: "0") else {
            return false
        }
        // Written solid, an ISBN-10 (`0306406152`) or a UPC-A barcode (`020746474476`) with a valid check digit is not one.
        if !grouped && digits.count == 10 && isISBN10(digits) { return false }
        if !grouped && digits.count == 12 && NumberDetection.isGTIN(digits, 0, 12) { return false }
        let national = digits.extracting(1...)
        for code in PhoneNumberingPlan.codes(withTrunk: digits[0]) where PhoneNumberingPlan.isValid(national, in: code, scratch: &scratch) {
            return true
        }
        return false
    }

    /// A valid North American number written 3-3-4 (`1` optional): `753-775-4223`, `1-800-555-0199`.
    static func isNorthAmericanGrouped(_ groups: [Group], _ digits: Span<UInt8>,
                                               scratch: inout PatternProgram.Scratch) -> Bool {
        let first = groups.count == 4 && groups[0].digits == 1 && digits[0] == UInt8(ascii: "1") ? 1 : 0
        guard groups.count - first == 3, groups[first].digits == 3, groups[first + 1].digits == 3, groups[first + 2].digits == 4,
              let nanp = PhoneNumberingPlan.codes[1] else { return false }
        return PhoneNumberingPlan.isValid(digits.extracting((digits.count - 10)...), in: nanp, scratch: &scratch)
    }

    /// A Chinese mobile number written solid (`13812345678`): 11 digits, `1[3-9]`, valid in China's plan.
    static func isChineseMobile(_ digits: Span<UInt8>, scratch: inout PatternProgram.Scratch) -> Bool {
        guard digits.count == 11, digits[0] == UInt8(ascii: "1"), digits[1] >= UInt8(ascii: "3"),
              let china = PhoneNumberingPlan.codes[86] else { return false }
        return PhoneNumberingPlan.isValid(digits, in: china, scratch: &scratch)
    }

    /// Whether ten digits are an ISBN-10 with a valid check digit (weights 10 to 1, mod 11; no `X`).
    static func isISBN10(_ digits: Span<UInt8>) -> Bool {
        var sum = 0
        for index in digits.indices { sum += Int(digits[index] - 0x30) * (10 - index) }
        return sum % 11 == 0
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
