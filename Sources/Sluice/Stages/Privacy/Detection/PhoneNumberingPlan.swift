/// The numbering plans of the world's calling codes, for the phone detector:
/// which digits after a `+` are a calling code, how long a national number of
/// that code can be, and whether given digits are a valid national number
/// there (libphonenumber's metadata, `PhoneNumberingPlan+Table.swift`, made by
/// `scripts/phone-plan/make_phone_plan.py`).
///
/// Calling codes are prefix-free (E.164): at most one of the first one, two
/// or three digits is a code. Each code's pattern is compiled the first time
/// a scanner checks a number with that code (`PhoneRegion.Cache`), with
/// Sluice's own linear-time pattern engine.
enum PhoneNumberingPlan {
    struct Entry {
        let code: Int
        let regions: String
        /// The national (trunk) prefix dialled before a national number (`0`, `8`, `1`), or "".
        let trunk: String
        let lengths: [Int]
        let pattern: String
    }

    /// A region's numbers (`PhoneRegion`): its trunk prefix, the possible
    /// lengths of its national numbers, and the pattern of its valid ones (every kind).
    struct RegionEntry {
        let region: String
        let code: Int
        let trunk: String
        let lengths: [Int]
        let pattern: String
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

    /// The index in `table` of each calling code (0...999), -1 for none.
    static let codeIndex: [Int16] = {
        var index = [Int16](repeating: -1, count: 1000)
        for (position, entry) in table.enumerated() { index[entry.code] = Int16(position) }
        return index
    }()

    /// Calling code `index` of `table`, compiled (`PhoneRegion.Cache` keeps each one a scanner meets).
    static func compile(_ index: Int) -> Code {
        let entry = table[index]
        guard let node = try? PatternParser.parse("^(?:\(entry.pattern))$"),
              let program = try? PatternProgram(node, maxCost: 100_000) else {
            preconditionFailure("phone plan pattern for +\(entry.code) does not compile")
        }
        return Code(code: entry.code, trunk: Array(entry.trunk.utf8),
                    lengths: entry.lengths.reduce(0) { $0 | (1 << UInt32($1)) }, program: program)
    }

    /// The index in `table` of the calling code the digits `digits[from...]` start with, and its length in digits.
    static func callingCode(_ digits: Span<UInt8>, from: Int) -> (index: Int, length: Int)? {
        var value = 0
        for length in 1...3 where from + length <= digits.count {
            value = value * 10 + Int(digits[from + length - 1] &- 0x30)
            let index = codeIndex[value]
            if index >= 0 { return (Int(index), length) }
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
}
