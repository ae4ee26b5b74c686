@testable import Sluice
import Testing

/// Custom patterns run in time linear in the text, whatever the pattern and the
/// text: hostile inputs of 1 MB, where a quadratic search (10^12 steps) could
/// never finish, and a step count checked against a linear bound.
@Suite struct PatternLinearTimeTests {
    static let size = 1 << 20

    /// The stretches of `text` the pattern redacts, and the VM steps it took.
    static func spans(_ pattern: String, _ text: [UInt8]) throws -> (spans: [Range<Int>], steps: Int, ops: Int) {
        let program = try PatternProgram(try PatternParser.parse(pattern))
        var scratch = PatternProgram.Scratch()
        var found: [Range<Int>] = []
        program.forEachMatch(text.span, scratch: &scratch) { found.append($0..<$1) }
        return (found, scratch.steps, program.ops.count)
    }

    static func repeated(_ unit: String, toSize size: Int = PatternLinearTimeTests.size) -> [UInt8] {
        let bytes = Array(unit.utf8)
        return Array((0..<(size / bytes.count)).flatMap { _ in bytes })
    }

    @Test func aLiteralPrefixFollowedByALongRunIsNotSearchedForAgainAtEveryByte() throws {
        let text = Array("ID-".utf8) + Self.repeated("7")
        let result = try Self.spans("ID-\\d+Z", text)
        #expect(result.spans.isEmpty)
        #expect(result.steps <= 4 * result.ops * text.count)
    }

    @Test func aShortMatchBesideALongerAlternativeIsNotFollowedToTheEndOnceAMatch() throws {
        let text = Self.repeated("ax")
        let result = try Self.spans("a|a.*b", text)
        #expect(result.spans.count == text.count / 2)
        #expect(result.steps <= 4 * result.ops * text.count)
    }

    @Test(arguments: [
        ("\\w+@\\w+\\.com", "aaaa@"),
        ("((a+)+)+b", "a"),
        ("(a|aa)*(a*)*b", "a"),
        ("\\d{3}-\\d{4}|\\d+x", "1"),
        ("[0-9 ]{13,19}z", "4111 "),
    ])
    func hostileTextsAndNestedRepetitionsTakeLinearSteps(pattern: String, unit: String) throws {
        let text = Self.repeated(unit)
        let result = try Self.spans(pattern, text)
        #expect(result.spans.isEmpty)
        #expect(result.steps <= 4 * result.ops * text.count)
    }
}

/// Settling a detector's matches against the ones claimed before costs a pass
/// over both lists, not a pass over the claimed ones for each new match.
@Suite struct MatchClaimsLinearTests {
    @Test func aStringWithAHundredThousandMatchesIsScannedWithoutRescanningEarlierMatches() throws {
        // 1 MiB of `[^a]` matches, one byte each, every other byte: 512 Ki matches.
        let text = Array(PatternLinearTimeTests.repeated("xa"))
        let program = try PatternProgram(try PatternParser.parse("[^a]"))
        var scanner = PIIScanner(enabled: [.ip], patterns: [program])
        var matches: [PIIMatch] = []
        scanner.scan(text.span, into: &matches)
        #expect(matches.count == text.count / 2)
        #expect(zip(matches, matches.dropFirst()).allSatisfy { $0.end <= $1.start })
        // A few passes over the matches per detector; quadratic settling reads 10^11 here.
        #expect(scanner.claimSteps <= 4 * matches.count)
    }

    @Test func laterDetectorsKeepOnlyTheBytesNoEarlierMatchClaimedInOnePass() {
        var claims = MatchClaims()
        var matches = [PIIMatch(start: 0, end: 2, detector: 0), PIIMatch(start: 4, end: 6, detector: 0)]
        // Overlapping offers of one detector, in start order.
        for (start, end) in [(1, 5), (3, 8), (9, 10)] { claims.offer(PIIMatch(start: start, end: end, detector: 2)) }
        claims.settle(into: &matches, from: 0)
        #expect(matches == [
            PIIMatch(start: 0, end: 2, detector: 0), PIIMatch(start: 2, end: 4, detector: 2),
            PIIMatch(start: 4, end: 6, detector: 0), PIIMatch(start: 6, end: 8, detector: 2),
            PIIMatch(start: 9, end: 10, detector: 2),
        ])
    }
}
