import Foundation
import Sluice
@testable import SluiceJSON
import SluiceTestSupport
import Testing

/// `JSONParser` (stage 1's string index, then the grammar) against
/// `ReferenceJSONParser` (the byte scanner it replaced): for every input the
/// same outcome, the tape (kind, flags, start, end, next of every node) and
/// the whitespace flag of an accepted text, or the same error, kind and
/// offset, for a refused one. Inputs: generated events of several seeds, the
/// fuzz seeds and regressions, and those texts mutated, truncated and built to
/// put escapes, non-ASCII bytes and control characters at every offset around
/// stage 1's 64-byte blocks and 64 KiB chunks. Seeds are fixed.
@Suite struct JSONParserDifferentialTests {
    enum Outcome: Equatable {
        case parsed(tape: [JSONNode], whitespace: Bool)
        case failed(JSONError)
    }

    static func reference(_ line: [UInt8]) -> Outcome {
        line.withUnsafeBufferPointer { buffer in
            let scratch = JSONParseScratch(capacity: 16)
            return withExtendedLifetime(scratch) {
                var parser = ReferenceJSONParser(buffer: buffer, scratch: scratch)
                do throws(JSONError) {
                    try parser.parseValue()
                    return .parsed(tape: parser.tape, whitespace: parser.sawWhitespace)
                } catch {
                    return .failed(error)
                }
            }
        }
    }

    static func parse(_ line: [UInt8], scratch: JSONParseScratch) -> Outcome {
        line.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(buffer: buffer, scratch: scratch)
            do throws(JSONError) {
                try parser.parseValue()
                return .parsed(tape: Array(UnsafeBufferPointer(start: scratch.base, count: parser.nodeCount)),
                               whitespace: parser.sawWhitespace)
            } catch {
                return .failed(error)
            }
        }
    }

    /// Compares the two parsers on many texts, with one scratch reused across
    /// them as a reader does, once with each stage 1 implementation this CPU
    /// can run (portable C, SSE2, AVX2: `JSONParseScratch.scanLevel`), not only
    /// the one the dispatch picks; records the first few differences.
    struct Comparison {
        let scratches: [JSONParseScratch] = JSONStringScanTests.levels.map { level in
            let scratch = JSONParseScratch(capacity: 16)
            scratch.scanLevel = level
            return scratch
        }
        var compared = 0, accepted = 0, differences = 0

        mutating func check(_ line: [UInt8], _ label: @autoclosure () -> String = "") {
            compared += 1
            let expected = JSONParserDifferentialTests.reference(line)
            if case .parsed = expected { accepted += 1 }
            for scratch in scratches {
                let actual = JSONParserDifferentialTests.parse(line, scratch: scratch)
                guard actual != expected else { continue }
                differences += 1
                if differences <= 5 {
                    let text = line.count <= 400 ? String(decoding: line, as: UTF8.self).debugDescription : "\(line.count) bytes"
                    Issue.record("\(label()) \(text), stage 1 level \(scratch.scanLevel): expected \(Self.summary(expected)), got \(Self.summary(actual))")
                }
            }
        }

        static func summary(_ outcome: Outcome) -> String {
            switch outcome {
            case .parsed(let tape, let whitespace): return "\(tape.count) nodes, whitespace \(whitespace)"
            case .failed(let error): return "\(error.kind) at \(error.offset)"
            }
        }
    }

    static func generatedLines(seed: UInt64, events: Int, malformed: Double = 0) -> [[UInt8]] {
        var options = GeneratorOptions()
        options.events = events
        options.seed = seed
        options.malformed = malformed
        var generator = EventGenerator(options: options)
        var stream: [UInt8] = []
        generator.run { stream.append(contentsOf: $0) }
        return stream.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast().map(Array.init)
    }

    static let fuzzInputs: [[UInt8]] = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz").path
        return ["corpus/json", "regressions/json", "corpus/lines", "regressions/lines"].flatMap { folder -> [[UInt8]] in
            let names = (try? FileManager.default.contentsOfDirectory(atPath: root + "/" + folder)) ?? []
            return names.sorted().compactMap { FileManager.default.contents(atPath: root + "/" + folder + "/" + $0).map(Array.init) }
        }
    }()

    @Test func generatedEventsOfSeveralSeeds() {
        var comparison = Comparison()
        for seed: UInt64 in [1, 2, 3, 42] {
            for (number, line) in Self.generatedLines(seed: seed, events: 2500, malformed: seed == 3 ? 0.05 : 0).enumerated() {
                comparison.check(line, "seed \(seed) line \(number + 1)")
            }
        }
        #expect(comparison.differences == 0)
        #expect(comparison.accepted > 9000)
    }

    @Test func fuzzSeedsAndRegressionsWholeAndTruncatedAtEveryByte() {
        #expect(Self.fuzzInputs.count >= 14)
        var comparison = Comparison()
        for input in Self.fuzzInputs {
            comparison.check(input, "fuzz input")
            // Each line of an input (the `lines` target's inputs hold several), whole and cut short.
            for line in input.split(separator: UInt8(ascii: "\n")).prefix(3).map(Array.init) where line.count <= 4096 {
                for cut in 0...line.count { comparison.check(Array(line[..<cut]), "cut at \(cut)") }
            }
        }
        for line in Self.generatedLines(seed: 5, events: 40) {
            for cut in 0...line.count { comparison.check(Array(line[..<cut]), "cut at \(cut)") }
        }
        #expect(comparison.differences == 0)
    }

    /// Bytes a mutation inserts: the ones that change strings and structure.
    static let insertions: [[UInt8]] = [
        [0x22], [0x5C], [0x5C, 0x22], [0x5C, 0x5C], [0x5C, 0x5C, 0x5C, 0x22], [0x00], [0x01], [0x09], [0x0A], [0x1F],
        [0x20], [0x7F], [0x80], [0xBF], [0xC0], [0xC3, 0xA9], [0xE2, 0x82, 0xAC], [0xF0, 0x9F, 0x98, 0x80], [0xED, 0xA0, 0x80],
        [0xF4, 0x90, 0x80, 0x80], [0xFF], Array("{".utf8), Array("}".utf8), Array("[".utf8), Array("]".utf8),
        Array(":".utf8), Array(",".utf8), Array("\\u".utf8), Array("\\ud83d\\ude00".utf8), Array("\\ud800".utf8),
        Array("1".utf8), Array("-".utf8), Array("e".utf8), Array(".".utf8), Array("true".utf8), Array("nul".utf8),
        Array(#""a":1,"#.utf8), Array(#"{"a":"#.utf8),
    ]

    static func mutate(_ line: [UInt8], _ random: inout TestRandom) -> [UInt8] {
        var text = line
        for _ in 0...random.below(3) {
            let at = text.isEmpty ? 0 : random.below(text.count + 1)
            switch random.below(6) {
            case 0 where !text.isEmpty && at < text.count:
                text[at] = UInt8(truncatingIfNeeded: random.next())
            case 1 where !text.isEmpty && at < text.count:
                text.remove(at: at)
            case 2:
                text = Array(text[..<at])
            case 3 where !text.isEmpty:
                let from = random.below(text.count)
                let piece = text[from..<min(text.count, from + random.below(80) + 1)]
                text.insert(contentsOf: piece, at: min(at, text.count))
            default:
                text.insert(contentsOf: insertions[random.below(insertions.count)], at: min(at, text.count))
            }
        }
        return text
    }

    @Test func randomlyMutatedLines() {
        var random = TestRandom(state: 0x5EED_0819)
        let bases = Self.generatedLines(seed: 7, events: 300) + Self.fuzzInputs.filter { $0.count < 4096 }
        var comparison = Comparison()
        for round in 0..<30_000 {
            let line = Self.mutate(bases[random.below(bases.count)], &random)
            comparison.check(line, "mutation \(round)")
        }
        #expect(comparison.differences == 0)
        #expect(comparison.accepted > 1000)
    }

    /// Pieces placed in a string at every offset around the first two 64-byte
    /// block boundaries: escapes (backslash runs ending on either side of a
    /// boundary), multi-byte UTF-8 split by one, and things that must be refused.
    static let pieces: [String] = [
        #"\\"#, #"\""#, #"\\\""#, #"\\\\"#, #"\\\\\""#, #"\\\\\\\\\\\\\""#, #"\/"#, #"\n"#, #"\u00e9"#, #"\ud83d\ude00"#,
        "é", "漢", "😀", "\u{7F}", #"\x"#, #"\u12"#, #"\ud800x"#, "\u{1}", "\t", #"\"#, "\"", "\"\"",
    ]

    @Test func escapesAndSpecialBytesAtEveryOffsetAroundBlockBoundaries() {
        var comparison = Comparison()
        for piece in Self.pieces.map({ Array($0.utf8) }) + [[0xC3], [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xFF]] {
            for padding in 0..<140 {
                let filler = Array(repeating: UInt8(ascii: "a"), count: padding)
                // In a value, in a key, and with a plain string after it (the next entry must be its own).
                comparison.check(Array(#"{"k":""#.utf8) + filler + piece + Array(#"b","z":"c"}"#.utf8), "value, padding \(padding)")
                comparison.check(Array(#"{""#.utf8) + filler + piece + Array(#"":1,"z":"c"}"#.utf8), "key, padding \(padding)")
                comparison.check(Array(#"["#.utf8) + filler.map { _ in UInt8(ascii: " ") } + Array(#"""#.utf8) + piece + Array(#"",""]"#.utf8), "spaces, padding \(padding)")
            }
        }
        #expect(comparison.differences == 0)
    }

    @Test func backslashRunsOfEveryLengthInAndOutOfStrings() {
        var comparison = Comparison()
        for run in 0..<150 {
            let backslashes = Array(repeating: UInt8(ascii: "\\"), count: run)
            for padding in [0, 1, 30, 57, 58, 59, 63, 64, 65] {
                let filler = Array(repeating: UInt8(ascii: "x"), count: padding)
                comparison.check(Array(#"{"a":""#.utf8) + filler + backslashes + Array(#"","b":"c"}"#.utf8), "run \(run) + quote")
                comparison.check(Array(#"{"a":""#.utf8) + filler + backslashes + Array(#"n","b":"c"}"#.utf8), "run \(run) + n")
                comparison.check(Array(#"{"a":"#.utf8) + filler + backslashes + Array(#""x"}"#.utf8), "run \(run) outside")
            }
        }
        #expect(comparison.differences == 0)
    }

    @Test func longStringsAndLinesAcrossStageOneChunks() {
        var comparison = Comparison()
        for length in [0, 1, 7, 8, 62, 63, 64, 65, 127, 128, 129, 1000, 5000] {
            let body = Array(repeating: UInt8(ascii: "s"), count: length)
            comparison.check(Array(#"{"s":""#.utf8) + body + Array(#""}"#.utf8), "length \(length)")
            comparison.check(Array(#"{"s":""#.utf8) + body + Array(#"\n"}"#.utf8), "length \(length), escape last")
            comparison.check(Array(#"{"s":""#.utf8) + body, "length \(length), unterminated")
            comparison.check(Array(#"{"s":""#.utf8) + body + [0xC3], "length \(length), unterminated, non-ASCII")
        }
        // Lines longer than a chunk (64 KiB), with strings, escapes and errors around its ends.
        let chunk = JSONParser.chunkBytes
        for offset in [-70, -64, -7, -2, -1, 0, 1, 2, 63, 64, 65] {
            for piece: [UInt8] in [[], Array(#"\""#.utf8), Array(#"\\"#.utf8), [0xC3, 0xA9], [0x01], [0xC3], Array(#"""#.utf8)] {
                var members: [UInt8] = Array(#"{"pad":""#.utf8)
                members += Array(repeating: UInt8(ascii: "p"), count: chunk + offset - members.count)
                members += piece + Array(#"","after":[1,"two",{"3":"four"}],"#.utf8)
                members += Array(repeating: Array(#""k":"v","#.utf8), count: chunk / 8).joined()
                members += Array(#""end":true}"#.utf8)
                comparison.check(members, "chunk edge \(offset), piece \(piece)")
            }
        }
        // Many strings: more entries than one chunk holds, and a string open across chunks.
        var many: [UInt8] = Array("[".utf8)
        for index in 0..<50_000 { many += Array(#""\#(index)","#.utf8) }
        comparison.check(many + Array(#""last"]"#.utf8), "50,000 strings")
        comparison.check(many + Array(#""last]"#.utf8), "50,000 strings, the last unterminated")
        var open: [UInt8] = Array(#"{"long":""#.utf8) + Array(repeating: UInt8(ascii: "o"), count: 3 * chunk)
        comparison.check(open + Array(#""}"#.utf8), "a string over three chunks")
        open[2 * chunk] = 0x5C
        comparison.check(open + Array(#""}"#.utf8), "a string over three chunks, escape in the third")
        #expect(comparison.differences == 0)
    }

    /// Lines of several chunks made of generated events, mutated at random
    /// offsets near stage 1's 64 KiB chunk edges and 64-byte block edges, and
    /// cut there: the entries carried from chunk to chunk (in a string or not,
    /// after a backslash or not, a string with an escape or not) must stay in
    /// step with the grammar whatever the bytes.
    @Test func randomMutationsAroundChunkEdgesOfLongLines() {
        var random = TestRandom(state: 0x0819_C4E0)
        let events = Self.generatedLines(seed: 9, events: 400)
        var long: [UInt8] = Array("[".utf8)
        for (index, event) in events.enumerated() {
            if index > 0 { long.append(UInt8(ascii: ",")) }
            long += event
        }
        long += Array("]".utf8)
        let chunk = JSONParser.chunkBytes
        #expect(long.count > 2 * chunk + 1000)
        var comparison = Comparison()
        comparison.check(long, "whole")
        for round in 0..<300 {
            var text = long
            let edge = chunk * (1 + random.below(2)) + 64 * (random.below(5)) - 128
            for _ in 0...random.below(3) {
                let at = max(0, min(text.count - 1, edge + random.below(160) - 80))
                let piece = Self.insertions[random.below(Self.insertions.count)]
                switch random.below(3) {
                case 0: text[at] = piece[0]
                case 1: text.insert(contentsOf: piece, at: at)
                default: text.remove(at: at)
                }
            }
            comparison.check(text, "round \(round)")
            if round % 10 == 0 { comparison.check(Array(text[..<(edge + random.below(130) - 1)]), "round \(round), cut") }
        }
        #expect(comparison.differences == 0)
    }

    @Test func utf8SequencesOfEveryLengthValidOrNot() {
        var comparison = Comparison()
        let continuations: [UInt8] = [0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0x41, 0x22, 0x5C]
        for lead in UInt8(0x80)...UInt8(0xFF) {
            for second in 0...UInt8.max {
                comparison.check(Array(#"{"a":""#.utf8) + [lead, second] + Array(#""}"#.utf8), "2 bytes")
            }
            if lead >= 0xE0 {
                for second in continuations {
                    for third in continuations {
                        comparison.check(Array(#"{"a":""#.utf8) + [lead, second, third] + Array(#""}"#.utf8), "3 bytes")
                        for fourth in continuations where lead >= 0xF0 {
                            comparison.check(Array(#"{"a":""#.utf8) + [lead, second, third, fourth] + Array(#""}"#.utf8), "4 bytes")
                        }
                    }
                }
            }
            // At the very end of the text.
            comparison.check(Array(#"{"a":""#.utf8) + [lead], "lead at the end")
            comparison.check(Array(#"{"a":""#.utf8) + [lead, 0x80], "lead and one at the end")
        }
        #expect(comparison.differences == 0)
    }

    @Test func nestingAroundTheLimit() {
        var comparison = Comparison()
        for depth in 58...70 {
            let arrays = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            let objects = String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)
            let mixed = String(repeating: #"{"a":["#, count: depth / 2) + #""x""# + String(repeating: "]}", count: depth / 2)
            let spaced = String(repeating: "[ ", count: depth) + String(repeating: " ]", count: depth)
            for text in [arrays, objects, mixed, spaced, "{\"a\":" + arrays + "}", String(arrays.dropLast()), arrays + "]",
                         String(repeating: "[", count: depth) + String(repeating: "}", count: depth)] {
                comparison.check(Array(text.utf8), "depth \(depth)")
            }
        }
        #expect(comparison.differences == 0)
    }

    @Test func duplicateKeysSmallLargeAndEscaped() {
        var comparison = Comparison()
        let texts = [
            #"{"a":1,"a":2}"#, #"{"a":1,"\u0061":2}"#, #"{"ab":1,"ba":2,"a\u0062":3}"#, #"{"":1,"":2}"#, #"{"x":{"a":1},"y":{"a":1,"a":2}}"#,
            "{" + (0..<40).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + "}",
            "{" + (0..<40).map { #""k\#($0 % 39)":\#($0)"# }.joined(separator: ",") + "}",
            "{" + (0..<33).map { #""\u006b\#($0)":\#($0)"# }.joined(separator: ",") + #","k7":0}"#,
            "{" + (0..<64).map { #""u\#($0)":\#($0)"# }.joined(separator: ",") + #","u63":0}"#,
        ]
        for text in texts { comparison.check(Array(text.utf8), "keys") }
        #expect(comparison.differences == 0)
    }

    @Test func wholeDocumentsThroughJSONDocumentParseMatchToo() throws {
        // The public entry points (a scratch of their own, and one reused) give the same tape.
        let scratch = JSONParseScratch()
        for line in Self.generatedLines(seed: 11, events: 200) {
            guard case .parsed(let tape, let whitespace) = Self.reference(line) else { continue }
            let once = try JSONDocument.parse(line)
            let reused = try line.withUnsafeBufferPointer { try JSONDocument.parse($0, scratch: scratch) }
            for document in [once, reused] {
                #expect(document.hasInsignificantWhitespace == whitespace)
                #expect((0..<document.tape.count).map { document.tape[$0] } == tape)
            }
        }
    }
}
