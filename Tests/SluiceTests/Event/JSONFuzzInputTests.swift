import Foundation
@testable import Sluice
@testable import SluiceJSON
import Testing

/// The inputs of the `fuzz-json` target (`scripts/fuzz`): its seeds
/// (`Fuzz/corpus/json`) and any input that once broke something
/// (`Fuzz/regressions/json`), held to the same checks the fuzz target makes.
@Suite struct JSONFuzzInputTests {
    static let inputs: [String] = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz").path
        return ["corpus/json", "regressions/json"].flatMap { folder -> [String] in
            let names = (try? FileManager.default.contentsOfDirectory(atPath: root + "/" + folder)) ?? []
            return names.sorted().map { root + "/" + folder + "/" + $0 }
        }
    }()

    @Test func thereAreInputsToReplay() {
        #expect(Self.inputs.count >= 10)
    }

    @Test(arguments: inputs)
    func anInputIsAcceptedWholeOrRejectedWithAReason(path: String) throws {
        let line = Array(try #require(FileManager.default.contents(atPath: path)))
        guard let document = try? JSONDocument.parse(line) else {
            let result = line.withUnsafeBufferPointer { Event.decode($0, origin: Origin(source: 0, line: 1)) }
            guard case .failure(let rejection) = result else { Issue.record("decoded what does not parse"); return }
            #expect(!rejection.detail.isEmpty)
            return
        }
        #expect(line.withUnsafeBufferPointer { UTF8Validation.isValid($0) })
        for (index, node) in document.tape.enumerated() {
            #expect(node.start <= node.end && Int(node.end) <= line.count)
            #expect(Int(node.next) > index && Int(node.next) <= document.tape.count)
        }
        let canonical = document.canonicalJSON
        let again = try JSONDocument.parse(canonical)
        #expect(again.canonicalJSON == canonical, "the canonical text is a fixed point")
    }

    @Test func thirtyDigitNumbersAndEscapedNULsPassThroughUnchanged() throws {
        let path = try #require(Self.inputs.first { $0.hasSuffix("/numbers.json") })
        let document = try JSONDocument.parse(Array(FileManager.default.contents(atPath: path)!))
        let text = String(decoding: document.canonicalJSON, as: UTF8.self)
        #expect(text.contains(#""big":123456789012345678901234567890"#))
        #expect(text.contains(#""max":9223372036854775808"#))
        let nul = try #require(Self.inputs.first { $0.hasSuffix("/nul.json") })
        let event = try JSONDocument.parse(Array(FileManager.default.contents(atPath: nul)!))
        #expect(event.string(at: JSONPath("event")) == "t\u{0}ap")
    }
}
