@testable import SluiceJSON
import SluiceTestSupport
import Testing

/// `JSONSplice` against two oracles: the pending-edits writer (what the text
/// must be) and the parser (what the tape must be).
@Suite struct JSONSpliceTests {
    /// A small deterministic PRNG (SplitMix64).
    typealias Random = TestRandom

    static func value(_ random: inout Random, depth: Int, spaces: Bool) -> String {
        let gap = spaces && random.below(3) == 0 ? " " : ""
        switch depth > 3 ? random.below(4) : random.below(6) {
        case 0: return "\"s\(random.below(100))\""
        case 1: return String(random.below(100_000))
        case 2: return ["true", "false", "null", "\"a\\\"b\"", "-0.0", "1e21"][random.below(6)]
        case 3: return "\"é漢\(random.below(10))\""
        case 4:
            let members = (0..<random.below(5)).map { "\(gap)\"k\($0)\"\(gap):\(gap)" + value(&random, depth: depth + 1, spaces: spaces) }
            return "{" + members.joined(separator: ",\(gap)") + "\(gap)}"
        default:
            let elements = (0..<random.below(4)).map { _ in value(&random, depth: depth + 1, spaces: spaces) }
            return "[" + elements.joined(separator: ",\(gap)") + "]"
        }
    }

    @Test func splicedDocumentsEqualTheEditedTextAndParseToTheSameTape() throws {
        var random = Random(state: 42)
        for round in 0..<600 {
            let spaces = round % 3 == 0
            let members = (0..<(1 + random.below(6))).map { "\"m\($0)\":" + Self.value(&random, depth: 0, spaces: spaces) }
            let text = "{" + members.joined(separator: spaces ? ", " : ",") + "}"
            let document = try JSONDocument.parse(Array(text.utf8))
            var splice = JSONSplice()
            var expected = document
            // Remove some members of some objects, then replace scalars outside what goes.
            var gone: [Range<Int>] = []
            for (index, node) in document.tape.enumerated() where node.kind == .object && random.below(3) == 0 {
                let keys = document.members(of: index).map(\.key).filter { _ in random.below(2) == 0 }
                    .filter { key in !gone.contains { $0.contains(key) } }
                guard !keys.isEmpty else { continue }
                splice.removeMembers(keys, of: index, in: document)
                for key in keys {
                    expected.edits.removed.append(Int32(key))
                    gone.append(key..<Int(document.tape[key + 1].next))
                }
            }
            // Values only: the edits writer (the oracle) does not replace keys; `aReplacedKeyIsWrittenAndIndexed` covers them.
            let keys = Set(document.tape.indices.filter { document.tape[$0].kind == .object }.flatMap { document.members(of: $0).map(\.key) })
            for (index, node) in document.tape.enumerated()
            where node.kind != .object && node.kind != .array && !keys.contains(index) && random.below(4) == 0
                && !gone.contains(where: { $0.contains(index) }) {
                let replacement = ["", "x", "[email]", "a\\\"q", "éé", String(repeating: "z", count: 40)][random.below(6)]
                splice.replaceString(index, in: document) { $0.append(contentsOf: replacement.utf8) }
                expected.edits.replaced.append((Int32(index), Array("\"\(replacement)\"".utf8)))
            }
            let result = splice.applied(to: document)
            let context = "round \(round): \(text)"
            #expect(String(decoding: result.canonicalJSON, as: UTF8.self) == String(decoding: expected.canonicalJSON, as: UTF8.self), "\(context)")
            let reparsed = try JSONDocument.parse(result.bytes)
            #expect(reparsed.tape.elementsEqual(result.tape), "\(context)")
            #expect(!result.isModified)
        }
    }

    @Test func aReplacedKeyIsWrittenAndIndexed() throws {
        let document = try JSONDocument.parse(Array(#"{"a":1,"jane@x.com":{"b":"c"},"d":2}"#.utf8))
        var splice = JSONSplice()
        let value = try #require(document.member("jane@x.com"))
        splice.replaceString(value - 1, in: document) { $0.append(contentsOf: "[email]".utf8) }
        let result = splice.applied(to: document)
        #expect(String(decoding: result.bytes, as: UTF8.self) == #"{"a":1,"[email]":{"b":"c"},"d":2}"#)
        #expect(try JSONDocument.parse(result.bytes).tape.elementsEqual(result.tape))
        #expect(result.string(at: JSONPath("[email].b")) == "c")
    }

    @Test func aDocumentWithoutChangesIsReturnedAsItIs() throws {
        let document = try JSONDocument.parse(Array(#"{"a":"b"}"#.utf8))
        var splice = JSONSplice()
        let result = splice.applied(to: document)
        #expect(result.storage === document.storage)
    }

    @Test func removingEveryMemberLeavesAnEmptyObject() throws {
        let document = try JSONDocument.parse(Array(#"{"a":{"x":1, "y":[2], "z":"3"},"b":true}"#.utf8))
        var splice = JSONSplice()
        let inner = try #require(document.member("a"))
        splice.removeMembers(document.members(of: inner).map(\.key), of: inner, in: document)
        let result = splice.applied(to: document)
        #expect(String(decoding: result.bytes, as: UTF8.self) == #"{"a":{},"b":true}"#)
        #expect(try JSONDocument.parse(result.bytes).tape.elementsEqual(result.tape))
    }
}
