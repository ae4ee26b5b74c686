@testable import Sluice
import Testing

/// The custom-pattern engine: syntax, matching on bytes (every stretch a match covers), and linear time.
@Suite struct PatternProgramTests {
    /// Every match of `pattern` in `text`, as strings.
    private func matches(_ pattern: String, _ text: String) throws -> [String] {
        let program = try PatternProgram(try PatternParser.parse(pattern))
        var scratch = PatternProgram.Scratch()
        let bytes = Array(text.utf8)
        var found: [String] = []
        program.forEachMatch(bytes.span, scratch: &scratch) { start, end in
            found.append(String(decoding: bytes[start..<end], as: UTF8.self))
        }
        return found
    }

    @Test(arguments: [
        ("ORD-[0-9]{8}", "ref ORD-12345678 and ORD-1234 and ORD-123456789", ["ORD-12345678", "ORD-12345678"]),
        ("a|ab|abc", "xabcx", ["abc"]),
        ("(ab)+", "abababx ab", ["ababab", "ab"]),
        ("colou?r", "color colour colouur", ["color", "colour"]),
        ("[^a-z ]+", "abc DEF ghi 123", ["DEF", "123"]),
        ("\\bid\\d{2,3}\\b", "id12 xid123 id1234 id999", ["id12", "id999"]),
        ("^start", "start start", ["start"]),
        ("end$", "end end", ["end"]),
        ("é.", "éa é漢 e", ["éa", "é漢"]),
        ("\\w+@\\w+", "a_b@c_d", ["a_b@c_d"]),
        ("x{2,}", "x xx xxxxx", ["xx", "xxxxx"]),
        ("[a\\-z]+", "a-z b", ["a-z"]),
        ("(?:ab|cd){2}", "abcd cdab abab ab", ["abcd", "cdab", "abab"]),
    ])
    func patternsMatchEveryStretchAMatchCovers(pattern: String, text: String, expected: [String]) throws {
        #expect(try matches(pattern, text) == expected)
    }

    @Test func aPatternCannotSplitACharacter() throws {
        // `.` and negated classes take whole UTF-8 characters.
        #expect(try matches("[^x]", "漢") == ["漢"])
        #expect(try matches("a.c", "a😀c") == ["a😀c"])
    }

    @Test func hostileInputTakesLinearTime() throws {
        // Exponential for a backtracking engine; steps linear in the text here.
        let text = String(repeating: "a", count: 20_000)
        #expect(try matches("(a|aa)*(a*)*b", text).isEmpty)
        #expect(try matches("(a*)*c?a", text) == [text])
    }

    @Test(arguments: [
        ("[a-z0-9._]*@intranet", "mail bob.smith@intranet now", ["bob.smith@intranet"]),
        ("(abc)?Z", "xabcZ Z", ["abcZ", "Z"]),
        ("(?:a?b?)c", "abc bc c", ["abc", "bc", "c"]),
        ("\\b(x|y*)z", "yyz xz z", ["yyz", "xz", "z"]),
    ])
    func aMatchStartsWhereItsOptionalLeadingPartStarts(pattern: String, text: String, expected: [String]) throws {
        #expect(try matches(pattern, text) == expected)
    }

    @Test func theLiteralPrefixAndFirstBytesAreKnown() throws {
        #expect(try PatternProgram(PatternParser.parse("\\bORD-[0-9]+")).prefix == Array("ORD-".utf8))
        let digits = try PatternProgram(PatternParser.parse("[0-9]{4}-x"))
        #expect(digits.prefix.isEmpty && digits.firstBytes.contains(UInt8(ascii: "7")) && !digits.firstBytes.contains(UInt8(ascii: "a")))
        #expect(digits.minLength == 6)
    }

    @Test(arguments: ["ORD-(", "a)", "[a-", "*a", "a{3,2}", "a**", "(?=x)", "\\q", "[é]", "a{1001}"])
    func badPatternsAreRejected(pattern: String) {
        #expect(throws: PatternSyntaxError.self) { _ = try PatternParser.parse(pattern) }
    }

    @Test(arguments: ["ORD-[0-9]{8}", "[a-z0-9._]*@intranet", "(a|bc|d)+x?", "\\b\\w{2,30}\\b", ".{3,}", "(ab){2,5}|c*d"])
    func theCostBoundIsTheNumberOfInstructionsTheMatcherRuns(pattern: String) throws {
        // Estimated before compiling, so an oversized pattern is refused without building it.
        let node = try PatternParser.parse(pattern)
        let program = try PatternProgram(node)
        #expect(PatternProgram.cost(of: node) == program.ops.count)
        #expect(program.costPerByte <= PatternProgram.maxCostPerByte)
    }

    @Test func aPatternThatMayCostMoreThanTheBoundPerByteIsRejectedWithItsCost() throws {
        let costly = try PatternParser.parse(String(repeating: "[a-z]{1,1000}", count: 10))
        #expect(throws: PatternProgram.CompileError.tooCostly(costPerByte: 19_991)) { _ = try PatternProgram(costly) }
        // Nested repetitions are counted without overflow.
        let nested = try PatternParser.parse(String(repeating: "(", count: 9) + "a" + String(repeating: "){1000}", count: 9))
        #expect(throws: PatternProgram.CompileError.self) { _ = try PatternProgram(nested) }
    }

    @Test func patternsThatMatchNothingAtAllAreRejected() throws {
        #expect(throws: PatternProgram.CompileError.self) { _ = try PatternProgram(PatternParser.parse("a*|b?")) }
    }
}
