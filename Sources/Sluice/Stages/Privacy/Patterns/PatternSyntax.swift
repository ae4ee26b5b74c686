/// The custom patterns of the `privacy` stage (`patterns: {order_ref: "ORD-[0-9]{8}"}`):
/// a small regular-expression language, parsed once at configuration time.
///
/// Supported: literals (UTF-8), `.` (one character), classes `[a-z0-9_-]` and
/// `[^…]` (ASCII members), `\d \D \w \W \s \S`, escaped metacharacters (`\.`,
/// `\-`, `\\`, ...), groups `( )` and `(?: )`, alternation `|`, quantifiers
/// `* + ? {n} {n,} {n,m}` (greedy; at most 1000), anchors `^ $` and word
/// boundaries `\b \B`. Not supported (a configuration error, not a surprise):
/// backreferences, lookaround, lazy quantifiers, flags. Matching is on bytes,
/// every stretch a match covers, in time linear in the text (`PatternProgram`).
indirect enum PatternNode: Equatable {
    case bytes(ByteSet)
    case sequence([PatternNode])
    case alternation([PatternNode])
    case repetition(PatternNode, min: Int, max: Int?)
    case assertion(PatternAssertion)
}

enum PatternAssertion: Equatable {
    case start, end, wordBoundary, notWordBoundary
}

/// A pattern that does not parse: what is wrong, and at which character.
struct PatternSyntaxError: Error, Equatable {
    var message: String
    var offset: Int
}

/// Parses pattern text into a `PatternNode`.
struct PatternParser {
    private let bytes: [UInt8]
    private var index = 0
    static let maxRepeat = 1000

    init(_ text: String) { bytes = Array(text.utf8) }

    static func parse(_ text: String) throws(PatternSyntaxError) -> PatternNode {
        var parser = PatternParser(text)
        let node = try parser.alternation()
        if parser.index < parser.bytes.count {
            throw PatternSyntaxError(message: "unbalanced ')'", offset: parser.index)
        }
        return node
    }

    private mutating func alternation() throws(PatternSyntaxError) -> PatternNode {
        var branches = [try sequence()]
        while index < bytes.count && bytes[index] == UInt8(ascii: "|") {
            index += 1
            branches.append(try sequence())
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func sequence() throws(PatternSyntaxError) -> PatternNode {
        var items: [PatternNode] = []
        while index < bytes.count && bytes[index] != UInt8(ascii: "|") && bytes[index] != UInt8(ascii: ")") {
            var atom = try self.atom()
            atom = try quantified(atom)
            items.append(atom)
        }
        return items.count == 1 ? items[0] : .sequence(items)
    }

    private mutating func quantified(_ atom: PatternNode) throws(PatternSyntaxError) -> PatternNode {
        guard index < bytes.count else { return atom }
        let at = index
        var result: PatternNode
        switch bytes[index] {
        case UInt8(ascii: "*"): index += 1; result = .repetition(atom, min: 0, max: nil)
        case UInt8(ascii: "+"): index += 1; result = .repetition(atom, min: 1, max: nil)
        case UInt8(ascii: "?"): index += 1; result = .repetition(atom, min: 0, max: 1)
        case UInt8(ascii: "{"):
            index += 1
            let low = try number()
            var high: Int? = low
            if index < bytes.count && bytes[index] == UInt8(ascii: ",") {
                index += 1
                high = index < bytes.count && bytes[index] == UInt8(ascii: "}") ? nil : try number()
            }
            guard index < bytes.count && bytes[index] == UInt8(ascii: "}") else {
                throw PatternSyntaxError(message: "a repetition is written {n}, {n,} or {n,m}", offset: at)
            }
            index += 1
            if let high, high < low { throw PatternSyntaxError(message: "{\(low),\(high)}: the maximum is below the minimum", offset: at) }
            result = .repetition(atom, min: low, max: high)
        default:
            return atom
        }
        if case .assertion = atom { throw PatternSyntaxError(message: "an anchor cannot be repeated", offset: at) }
        if index < bytes.count, [UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "?"), UInt8(ascii: "{")].contains(bytes[index]) {
            throw PatternSyntaxError(message: "lazy or stacked quantifiers are not supported", offset: index)
        }
        return result
    }

    private mutating func number() throws(PatternSyntaxError) -> Int {
        let start = index
        var value = 0
        while index < bytes.count && TextBytes.isDigit(bytes[index]) {
            value = value * 10 + Int(bytes[index] - 0x30)
            index += 1
            if value > PatternParser.maxRepeat {
                throw PatternSyntaxError(message: "repetitions go up to \(PatternParser.maxRepeat)", offset: start)
            }
        }
        if index == start { throw PatternSyntaxError(message: "a number is expected", offset: start) }
        return value
    }

    private mutating func atom() throws(PatternSyntaxError) -> PatternNode {
        let at = index
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "("):
            if index + 1 < bytes.count && bytes[index] == UInt8(ascii: "?") {
                guard bytes[index + 1] == UInt8(ascii: ":") else {
                    throw PatternSyntaxError(message: "lookaround and flags are not supported", offset: at)
                }
                index += 2
            }
            let inner = try alternation()
            guard index < bytes.count && bytes[index] == UInt8(ascii: ")") else {
                throw PatternSyntaxError(message: "unclosed '('", offset: at)
            }
            index += 1
            return inner
        case UInt8(ascii: "["): return try characterClass(at: at)
        case UInt8(ascii: "."): return PatternParser.anyCharacter(except: ByteSet([0x0A]))
        case UInt8(ascii: "^"): return .assertion(.start)
        case UInt8(ascii: "$"): return .assertion(.end)
        case UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "?"), UInt8(ascii: "{"):
            throw PatternSyntaxError(message: "nothing to repeat", offset: at)
        case UInt8(ascii: "\\"):
            guard index < bytes.count else { throw PatternSyntaxError(message: "a trailing backslash", offset: at) }
            let escaped = bytes[index]
            index += 1
            switch escaped {
            case UInt8(ascii: "b"): return .assertion(.wordBoundary)
            case UInt8(ascii: "B"): return .assertion(.notWordBoundary)
            case UInt8(ascii: "d"): return .bytes(.digits)
            case UInt8(ascii: "w"): return .bytes(.word)
            case UInt8(ascii: "s"): return .bytes(.space)
            case UInt8(ascii: "D"): return PatternParser.anyCharacter(except: .digits)
            case UInt8(ascii: "W"): return PatternParser.anyCharacter(except: .word)
            case UInt8(ascii: "S"): return PatternParser.anyCharacter(except: .space)
            default:
                guard !TextBytes.isASCIIAlnum(escaped) else {
                    throw PatternSyntaxError(message: "unknown escape '\\\(Character(Unicode.Scalar(escaped)))'", offset: at)
                }
                return .bytes(ByteSet([escaped]))
            }
        default:
            // A literal character: its UTF-8 bytes in sequence.
            guard byte >= 0x80 else { return .bytes(ByteSet([byte])) }
            var sequence: [PatternNode] = [.bytes(ByteSet([byte]))]
            while index < bytes.count && bytes[index] & 0xC0 == 0x80 {
                sequence.append(.bytes(ByteSet([bytes[index]])))
                index += 1
            }
            return .sequence(sequence)
        }
    }

    private mutating func characterClass(at: Int) throws(PatternSyntaxError) -> PatternNode {
        var negated = false
        if index < bytes.count && bytes[index] == UInt8(ascii: "^") {
            negated = true
            index += 1
        }
        var set = ByteSet()
        var first = true
        while true {
            guard index < bytes.count else { throw PatternSyntaxError(message: "unclosed '['", offset: at) }
            var byte = bytes[index]
            if byte == UInt8(ascii: "]") && !first { index += 1; break }
            first = false
            index += 1
            if byte == UInt8(ascii: "\\") {
                guard index < bytes.count else { throw PatternSyntaxError(message: "unclosed '['", offset: at) }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "d"): set.formUnion(.digits); continue
                case UInt8(ascii: "w"): set.formUnion(.word); continue
                case UInt8(ascii: "s"): set.formUnion(.space); continue
                default: byte = escaped
                }
            }
            guard byte < 0x80 else {
                throw PatternSyntaxError(message: "a character class holds ASCII characters only", offset: index - 1)
            }
            if index + 1 < bytes.count && bytes[index] == UInt8(ascii: "-") && bytes[index + 1] != UInt8(ascii: "]") {
                let high = bytes[index + 1]
                guard high < 0x80, high >= byte else {
                    throw PatternSyntaxError(message: "a range in a class must go up, in ASCII", offset: index)
                }
                index += 2
                set.formUnion(ByteSet(range: byte...high))
            } else {
                set.insert(byte)
            }
        }
        return negated ? PatternParser.anyCharacter(except: set) : .bytes(set)
    }

    /// One whole UTF-8 character not in `excluded` (an ASCII set), so a match never splits a character.
    static func anyCharacter(except excluded: ByteSet) -> PatternNode {
        let continuation = PatternNode.bytes(ByteSet(range: 0x80...0xBF))
        return .alternation([
            .bytes(excluded.asciiComplement),
            .sequence([.bytes(ByteSet(range: 0xC2...0xDF)), continuation]),
            .sequence([.bytes(ByteSet(range: 0xE0...0xEF)), continuation, continuation]),
            .sequence([.bytes(ByteSet(range: 0xF0...0xF4)), continuation, continuation, continuation]),
        ])
    }
}
