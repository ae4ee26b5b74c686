import SluiceJSON

/// The country an event comes from, for reading national phone numbers, as
/// libphonenumber reads them with a default region: `612 345 678` is a phone
/// number in a Spanish event and nothing in particular elsewhere.
///
/// An event names its country in `context.locale` (`cs-CZ`, `pt_BR`,
/// `zh-Hans-CN`: the first two-letter subtag after the language), in
/// `context.location.country` (`DE`, `Germany`, `Deutschland`) and in a
/// top-level `locale`; it is read in up to two of them, the first two that
/// name different countries in that order (a device set to `en-US` in a
/// German location). A number is valid in a country as libphonenumber's
/// `is_valid_number_for_region` has it: a number of one of its kinds
/// (fixed-line, mobile, toll-free, ...), written with or without the trunk
/// prefix, or after the calling code.
struct PhoneRegion: Sendable {
    let code: Int
    let trunk: [UInt8]
    /// Bit n set: a national number of n digits is possible here.
    let lengths: UInt32
    /// Valid national numbers (without the trunk prefix).
    let valid: PatternProgram

    /// The regions an event names, as one number: -1 for none, else the first
    /// region's index plus `pairBase` times one more than the second's (0: no second).
    static let pairBase = 1024

    /// The first and second region (-1 for none) of an event's regions `pair`.
    static func regions(ofPair pair: Int) -> (first: Int, second: Int) {
        pair < 0 ? (-1, -1) : (pair % pairBase, pair / pairBase - 1)
    }

    /// Region `index` of `PhoneNumberingPlan.regionTable`, compiled.
    init(index: Int) {
        let entry = PhoneNumberingPlan.regionTable[index]
        guard let node = try? PatternParser.parse("^(?:\(entry.pattern))$"),
              let program = try? PatternProgram(node, maxCost: 100_000) else {
            preconditionFailure("phone plan pattern for \(entry.region) does not compile")
        }
        code = entry.code
        trunk = Array(entry.trunk.utf8)
        lengths = entry.lengths.reduce(0) { $0 | (1 << UInt32($1)) }
        valid = program
    }

    /// The regions and calling codes one scanner has met, each compiled the
    /// first time an event names it or a number starts with it.
    struct Cache {
        private var compiled: [PhoneRegion?] = []
        private var codes: [PhoneNumberingPlan.Code?] = []

        mutating func region(_ index: Int) -> PhoneRegion {
            if compiled.isEmpty { compiled = Array(repeating: nil, count: PhoneNumberingPlan.regionTable.count) }
            if let region = compiled[index] { return region }
            let region = PhoneRegion(index: index)
            compiled[index] = region
            return region
        }

        /// Calling code `index` of `PhoneNumberingPlan.table`.
        mutating func code(_ index: Int) -> PhoneNumberingPlan.Code {
            if codes.isEmpty { codes = Array(repeating: nil, count: PhoneNumberingPlan.table.count) }
            if let code = codes[index] { return code }
            let code = PhoneNumberingPlan.compile(index)
            codes[index] = code
            return code
        }
    }

    /// Region indexes into `PhoneNumberingPlan.regionTable` by their two letters (`A`-`Z` twice), -1 for none.
    private static let index: [Int16] = {
        var index = [Int16](repeating: -1, count: 26 * 26)
        for (position, entry) in PhoneNumberingPlan.regionTable.enumerated() {
            let letters = Array(entry.region.utf8)
            index[Int(letters[0] - 0x41) * 26 + Int(letters[1] - 0x41)] = Int16(position)
        }
        return index
    }()

    /// The index in `PhoneNumberingPlan.regionTable` of the region a locale names (`en-US`, `cs_CZ`, `zh-Hans-CN`), or nil.
    static func named(byLocale locale: Span<UInt8>) -> Int? {
        var start = 0
        var first = true
        while start <= locale.count {
            var end = start
            while end < locale.count && locale[end] != UInt8(ascii: "-") && locale[end] != UInt8(ascii: "_") { end += 1 }
            if !first && end - start == 2 {
                let a = locale[start] & 0xDF, b = locale[start + 1] & 0xDF
                guard a >= 0x41 && a <= 0x5A && b >= 0x41 && b <= 0x5A else { return nil }
                let found = index[Int(a - 0x41) * 26 + Int(b - 0x41)]
                return found >= 0 ? Int(found) : nil
            }
            first = false
            start = end + 1
        }
        return nil
    }

    /// The index in `PhoneNumberingPlan.regionTable` of the region a country
    /// names: its two letters (`DE`, `gb`) or its name in one of the stage's
    /// languages, any case (`Germany`, `Deutschland`, `Allemagne`, `Россия`), or nil.
    static func named(byCountry country: Span<UInt8>) -> Int? {
        if country.count == 2 {
            let a = country[0] & 0xDF, b = country[1] & 0xDF
            guard a >= 0x41 && a <= 0x5A && b >= 0x41 && b <= 0x5A else { return nil }
            let found = index[Int(a - 0x41) * 26 + Int(b - 0x41)]
            return found >= 0 ? Int(found) : nil
        }
        guard country.count >= 3 && country.count <= 80 else { return nil }
        let name = String(decoding: Array(copying: country), as: UTF8.self).lowercased()
        return names[name].map(Int.init)
    }

    /// `PhoneNumberingPlan.countryNames` by name.
    private static let names: [String: Int16] = {
        var names: [String: Int16] = [:]
        for (name, region) in PhoneNumberingPlan.countryNames {
            let letters = Array(region.utf8)
            let found = index[Int(letters[0] - 0x41) * 26 + Int(letters[1] - 0x41)]
            if found >= 0 { names[name] = found }
        }
        return names
    }()

    /// The regions the event `document` names (`context.locale`,
    /// `context.location.country`, a top-level `locale`), as a pair
    /// (`regions(ofPair:)`), or nil for none.
    static func ofEvent(_ document: JSONDocument) -> Int? {
        var first = -1, second = -1
        func add(_ node: Int?, _ read: (Span<UInt8>) -> Int?) {
            guard second < 0, let node, document.kind(node) == .string, document.rawLength(node) <= 80,
                  let region = document.withSpan(of: node, { read($0.extracting(1..<($0.count - 1))) }) else { return }
            if first < 0 { first = region } else if region != first { second = region }
        }
        if let context = document.member("context", of: 0), document.kind(context) == .object {
            add(document.member("locale", of: context), named(byLocale:))
            if let location = document.member("location", of: context), document.kind(location) == .object {
                add(document.member("country", of: location), named(byCountry:))
            }
        }
        add(document.member("locale", of: 0), named(byLocale:))
        guard first >= 0 else { return nil }
        return first + pairBase * (second + 1)
    }

    /// How a run of digits reads in a country: as a valid number of it, as one
    /// of a possible length only, or as neither.
    enum Reading: Comparable { case none, possible, valid }

    /// How `digits` read in this region: valid when they are a valid national
    /// number, the trunk prefix and one, or the calling code and one; possible
    /// when such a national number has a length the region's numbers have.
    func reading(_ digits: Span<UInt8>, scratch: inout PatternProgram.Scratch) -> Reading {
        if isNational(digits, scratch: &scratch) || isInternational(digits, scratch: &scratch) { return .valid }
        return isPossible(digits) ? .possible : .none
    }

    /// Whether `digits` have a possible length here, written nationally (with or
    /// without the trunk prefix) or after the calling code.
    func isPossible(_ digits: Span<UInt8>) -> Bool {
        func possible(_ length: Int) -> Bool { length > 0 && length < 32 && lengths & (1 << UInt32(length)) != 0 }
        if possible(digits.count) { return true }
        if !trunk.isEmpty && digits.count > trunk.count && ByteSpans.hasPrefix(digits, at: 0, trunk)
            && possible(digits.count - trunk.count) { return true }
        var value = 0
        for length in 1...3 where length < digits.count {
            value = value * 10 + Int(digits[length - 1] &- 0x30)
            if value == code { return possible(digits.count - length) }
        }
        return false
    }

    /// Whether `digits` are a valid national number here, written with or
    /// without the trunk prefix (`030123456` and `30123456` in Germany).
    func isNational(_ digits: Span<UInt8>, scratch: inout PatternProgram.Scratch) -> Bool {
        if PhoneRegion.matchesWhole(valid, digits, scratch: &scratch) { return true }
        guard !trunk.isEmpty, digits.count > trunk.count, ByteSpans.hasPrefix(digits, at: 0, trunk) else { return false }
        return PhoneRegion.matchesWhole(valid, digits.extracting(trunk.count...), scratch: &scratch)
    }

    /// Whether `digits` are this region's calling code and then a valid
    /// national number of it: an international number without its `+`
    /// (`420601123456` in a Czech event, `8222125341` in a Korean one).
    func isInternational(_ digits: Span<UInt8>, scratch: inout PatternProgram.Scratch) -> Bool {
        var code = 0
        var length = 0
        while length < 3 && length < digits.count {
            code = code * 10 + Int(digits[length] &- 0x30)
            length += 1
            if code == self.code { break }
        }
        guard code == self.code, digits.count - length >= 6 else { return false }
        return PhoneRegion.matchesWhole(valid, digits.extracting(length...), scratch: &scratch)
    }

    private static func matchesWhole(_ program: PatternProgram, _ digits: Span<UInt8>,
                                     scratch: inout PatternProgram.Scratch) -> Bool {
        var whole = false
        program.forEachMatch(digits, scratch: &scratch) { start, end in
            whole = whole || (start == 0 && end == digits.count)
        }
        return whole
    }
}
