@testable import Sluice
import SluiceJSON
import Testing

/// `ExemptKeys` tells a member's key by its length, then its bytes a word at a
/// time: short keys, keys of 9-16 and over 16 bytes, many keys of one length,
/// and keys that differ only in their middle or last byte are told apart exactly.
struct ExemptKeysTests {
    /// Each top-level key of `json` looked up below the root, by its name.
    private func lookUps(_ exempt: [String], _ json: String) throws -> [(key: String, child: Int)] {
        let keys = ExemptKeys(exempt.map { JSONPath($0) })
        let document = try JSONDocument.parse(Array(json.utf8))
        var results: [(String, Int)] = []
        document.withView { view in
            var key = 1
            while key < view.after(0) {
                let name = view.withStringBody(key) { String(decoding: Array(copying: $0), as: UTF8.self) }
                results.append((name, view.withStringBody(key) { $0.withUnsafeBufferPointer { keys.child(of: 0, $0) } }))
                key = view.after(key + 1)
            }
        }
        return results
    }

    @Test func aKeyIsExemptExactlyWhenItIsAnExemptName() throws {
        let exempt = ["type", "messageId", "anonymousId", "originalTimestamp", "context.app.version", "sentAt", "a", ""]
        let json = """
            {"type":1,"typo":1,"messageId":1,"messageIx":1,"messagXId":1,"anonymousId":1,"anonymousIt":1,
             "originalTimestamp":1,"originalTimeXtamp":1,"originalTimestamX":1,"context":{},"contexts":1,
             "sentAt":1,"userId":1,"a":1,"b":1,"":1,"properties":1}
            """
        for (key, child) in try lookUps(exempt, json) {
            switch key {
            case "type", "messageId", "anonymousId", "originalTimestamp", "sentAt", "a", "":
                #expect(child == ExemptKeys.skip, "key \(key)")
            case "context":
                #expect(child >= 0, "key \(key): a path continues below it")
            default:
                #expect(child == ExemptKeys.none, "key \(key)")
            }
        }
    }

    @Test func manyKeysOfOneLengthAreToldApart() throws {
        let exempt = (0..<80).map { "k\($0 / 10)\($0 % 10)x" }
        let json = "{" + (0..<100).map { "\"k\($0 / 10)\($0 % 10)x\":1" }.joined(separator: ",") + "}"
        let results = try lookUps(exempt, json)
        #expect(results.count == 100)
        for (index, result) in results.enumerated() {
            #expect(result.child == (index < 80 ? ExemptKeys.skip : ExemptKeys.none), "key \(result.key)")
        }
    }

    @Test func anEscapedKeyIsComparedAsWritten() throws {
        // The key's text as written is compared (as the walk has always done): an escape is not the name.
        #expect(try lookUps(["type"], #"{"typ\u0065":1}"#).map(\.child) == [ExemptKeys.none])
        #expect(try lookUps(["type"], #"{"type":1}"#).map(\.child) == [ExemptKeys.skip])
    }
}
