/// The numbering plans of the world's calling codes, for the phone detector:
/// which digits after a `+` are a calling code, how long a national number of
/// that code can be, and whether given digits are a valid national number
/// there (libphonenumber's metadata, `PhoneNumberingPlan+Table.swift`, made by
/// `scripts/phone-plan/make_phone_plan.py`).
///
/// Calling codes are prefix-free (E.164): at most one of the first one, two
/// or three digits is a code. Each code's pattern is compiled the first time
/// any candidate is checked, with Sluice's own linear-time pattern engine.
enum PhoneNumberingPlan {
    struct Entry {
        let code: Int
        let regions: String
        /// The national (trunk) prefix dialled before a national number (`0`, `8`, `1`), or "".
        let trunk: String
        let lengths: [Int]
        let pattern: String
    }

    /// A region's people's numbers (`PhoneRegion`): the possible lengths of its
    /// national numbers, and the patterns of its fixed-line and mobile numbers
    /// written without the trunk prefix in national format, and of those
    /// written with it ("" for none).
    struct RegionEntry {
        let region: String
        let code: Int
        let trunk: String
        let lengths: [Int]
        let bare: String
        let trunked: String
    }

    /// One calling code, ready to check digits against.
    struct Code: Sendable {
        let code: Int
        let trunk: [UInt8]
        /// Bit n set: a national number of n digits is possible.
        let lengths: UInt32
        let program: PatternProgram

        func isPossible(length: Int) -> Bool { length < 32 && lengths & (1 << UInt32(length)) != 0 }
    }

    /// The codes by calling code (index 0...999).
    static let codes: [Code?] = {
        var codes = [Code?](repeating: nil, count: 1000)
        for entry in table {
            guard let node = try? PatternParser.parse("^(?:\(entry.pattern))$"),
                  let program = try? PatternProgram(node, maxCost: 100_000) else {
                preconditionFailure("phone plan pattern for +\(entry.code) does not compile")
            }
            codes[entry.code] = Code(code: entry.code, trunk: Array(entry.trunk.utf8),
                                     lengths: entry.lengths.reduce(0) { $0 | (1 << UInt32($1)) }, program: program)
        }
        return codes
    }()

    /// The calling code the digits `digits[from...]` start with, and its length in digits.
    static func callingCode(_ digits: Span<UInt8>, from: Int) -> (code: Code, length: Int)? {
        var value = 0
        for length in 1...3 where from + length <= digits.count {
            value = value * 10 + Int(digits[from + length - 1] &- 0x30)
            if let code = codes[value] { return (code, length) }
        }
        return nil
    }

    /// Whether `national` (digits only) is a valid national number of `code`.
    static func isValid(_ national: Span<UInt8>, in code: Code, scratch: inout PatternProgram.Scratch) -> Bool {
        guard code.isPossible(length: national.count) else { return false }
        var whole = false
        code.program.forEachMatch(national, scratch: &scratch) { start, end in
            whole = whole || (start == 0 && end == national.count)
        }
        return whole
    }

    /// The codes whose national numbers are dialled with a trunk prefix starting with `first` (`0`, `8`).
    static func codes(withTrunk first: UInt8) -> [Code] {
        switch first {
        case UInt8(ascii: "0"): return trunkZero
        case UInt8(ascii: "8"): return trunkEight
        default: return []
        }
    }

    private static let trunkZero: [Code] = codes.compactMap { $0 }.filter { $0.trunk == [UInt8(ascii: "0")] }
    private static let trunkEight: [Code] = codes.compactMap { $0 }.filter { $0.trunk == [UInt8(ascii: "8")] }
}
