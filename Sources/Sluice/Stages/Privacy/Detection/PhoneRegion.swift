import SluiceJSON

/// The country an event comes from, for reading national phone numbers, as
/// libphonenumber reads them with a default region: `612 345 678` is a phone
/// number in a Spanish event and nothing in particular elsewhere.
///
/// The region is the one `context.locale` names (`cs-CZ`, `pt_BR`,
/// `zh-Hans-CN`: the first two-letter subtag after the language). Its
/// fixed-line and mobile numbers (`PhoneNumberingPlan.regionTable`) are those
/// a person has; toll-free and premium numbers are businesses'.
struct PhoneRegion: Sendable {
    let code: Int
    let trunk: [UInt8]
    /// Fixed-line and mobile numbers written without the trunk prefix in national format.
    let bare: PatternProgram?
    /// Those written with it (Germany's `030 …`, India's `098…`), matched after it.
    let trunked: PatternProgram?

    /// Region `index` of `PhoneNumberingPlan.regionTable`, compiled.
    init(index: Int) {
        let entry = PhoneNumberingPlan.regionTable[index]
        func compile(_ pattern: String) -> PatternProgram? {
            guard !pattern.isEmpty else { return nil }
            guard let node = try? PatternParser.parse("^(?:\(pattern))$"),
                  let program = try? PatternProgram(node, maxCost: 100_000) else {
                preconditionFailure("phone plan pattern for \(entry.region) does not compile")
            }
            return program
        }
        code = entry.code
        trunk = Array(entry.trunk.utf8)
        bare = compile(entry.bare)
        trunked = compile(entry.trunked)
    }

    /// The regions one scanner has met, each compiled the first time an event names it.
    struct Cache {
        private var compiled: [PhoneRegion?] = []

        mutating func region(_ index: Int) -> PhoneRegion {
            if compiled.isEmpty { compiled = Array(repeating: nil, count: PhoneNumberingPlan.regionTable.count) }
            if let region = compiled[index] { return region }
            let region = PhoneRegion(index: index)
            compiled[index] = region
            return region
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

    /// The region of the event `document` (its `context.locale`), or nil.
    static func ofEvent(_ document: JSONDocument) -> Int? {
        guard let context = document.member("context", of: 0), document.kind(context) == .object,
              let locale = document.member("locale", of: context), document.kind(locale) == .string,
              document.rawLength(locale) <= 40 else { return nil }
        return document.withSpan(of: locale) { named(byLocale: $0.extracting(1..<($0.count - 1))) }
    }

    /// Whether `digits` are a number of a person in this region as written in
    /// it: a fixed-line or mobile number written without the trunk prefix, or
    /// the trunk prefix and one written with it (`030 1234567` in Germany).
    func isNational(_ digits: Span<UInt8>, scratch: inout PatternProgram.Scratch) -> Bool {
        if let bare, PhoneRegion.matchesWhole(bare, digits, scratch: &scratch) { return true }
        guard let trunked, !trunk.isEmpty, digits.count > trunk.count, ByteSpans.hasPrefix(digits, at: 0, trunk) else { return false }
        return PhoneRegion.matchesWhole(trunked, digits.extracting(trunk.count...), scratch: &scratch)
    }

    /// Whether `digits` are this region's calling code and then a fixed-line or
    /// mobile number of it: an international number without its `+`
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
        let national = digits.extracting(length...)
        if let bare, PhoneRegion.matchesWhole(bare, national, scratch: &scratch) { return true }
        if let trunked, PhoneRegion.matchesWhole(trunked, national, scratch: &scratch) { return true }
        return false
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
