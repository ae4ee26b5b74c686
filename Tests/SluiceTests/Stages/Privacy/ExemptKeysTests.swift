@testable import Sluice
import SluiceJSON
import Testing

/// `ExemptKeys` looks a member's key up where it is written (length, first and
/// last eight bytes, one slot of 64): it must give what a byte-for-byte
/// comparison gives, for short, 9-16 byte and longer keys, keys that share a
/// slot, and keys that differ only in their middle.
struct ExemptKeysTests {
    /// Each top-level key of `json` looked up below the root both ways.
    private func lookUps(_ exempt: [String], _ json: String) throws -> [(key: String, inPlace: Int, byBytes: Int)] {
        let keys = ExemptKeys(exempt.map { JSONPath($0) })
        let document = try JSONDocument.parse(Array(json.utf8))
        var results: [(String, Int, Int)] = []
        document.withView { view in
            var key = 1
            while key < view.after(0) {
                let name = String(decoding: view.decodedString(key), as: UTF8.self)
                let inPlace = keys.child(of: 0, keyAt: key, in: view)
                let byBytes = view.withStringBody(key) { keys.child(of: 0, $0) }
                results.append((name, inPlace, byBytes))
                key = view.after(key + 1)
            }
        }
        return results
    }

    @Test func aKeyLookedUpInPlaceMatchesTheByteComparison() throws {
        let exempt = ["type", "messageId", "anonymousId", "originalTimestamp", "context.app.version", "sentAt", "a", ""]
        let json = """
            {"type":1,"typo":1,"messageId":1,"messageIx":1,"messagXId":1,"anonymousId":1,"anonymousIt":1,
             "originalTimestamp":1,"originalTimeXtamp":1,"context":{},"contexts":1,"sentAt":1,"userId":1,
             "a":1,"b":1,"":1,"properties":1}
            """
        for result in try lookUps(exempt, json) {
            #expect(result.inPlace == result.byBytes, "key \(result.key)")
        }
        let found = Dictionary(try lookUps(exempt, json).map { ($0.key, $0.inPlace) }, uniquingKeysWith: { a, _ in a })
        #expect(found["type"] == ExemptKeys.skip)
        #expect(found["messageId"] == ExemptKeys.skip)
        #expect(found["messagXId"] == ExemptKeys.none)
        #expect(found["anonymousIt"] == ExemptKeys.none)
        #expect(found["originalTimestamp"] == ExemptKeys.skip)
        #expect(found["originalTimeXtamp"] == ExemptKeys.none)
        #expect(found["context"].map { $0 >= 0 } == true)
        #expect(found["userId"] == ExemptKeys.none)
        #expect(found["a"] == ExemptKeys.skip)
        #expect(found[""] == ExemptKeys.skip)
    }

    @Test func keysThatShareASlotAreStillToldApart() throws {
        // Enough keys of one length that some fall in the same one of 64 slots.
        let exempt = (0..<80).map { "k\($0 / 10)\($0 % 10)x" }
        let json = "{" + (0..<100).map { "\"k\($0 / 10)\($0 % 10)x\":1" }.joined(separator: ",") + "}"
        let results = try lookUps(exempt, json)
        #expect(results.count == 100)
        for (index, result) in results.enumerated() {
            #expect(result.inPlace == result.byBytes, "key \(result.key)")
            #expect(result.inPlace == (index < 80 ? ExemptKeys.skip : ExemptKeys.none), "key \(result.key)")
        }
    }

    @Test func anEscapedKeyIsComparedAsWritten() throws {
        let results = try lookUps(["type"], #"{"typ\u0065":1,"type":2}"#)
        #expect(results.map(\.inPlace) == results.map(\.byBytes))
        #expect(results.map(\.inPlace) == [ExemptKeys.none, ExemptKeys.skip])
    }
}
