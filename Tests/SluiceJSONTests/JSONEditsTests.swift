import Testing
@testable import SluiceJSON
import SluiceTestSupport

@Suite struct JSONEditsTests {
    private func edited(_ text: String, _ change: (inout JSONDocument) -> Void) throws -> String {
        var document = try JSONDocument.parse(Array(text.utf8))
        change(&document)
        return String(decoding: document.canonicalJSON, as: UTF8.self)
    }

    @Test func replacingAValueKeepsKeyOrder() throws {
        let out = try edited(#"{"a":1,"b":{"c":"x"},"d":2}"#) { $0.set(JSONPath("b.c"), string: "y") }
        #expect(out == #"{"a":1,"b":{"c":"y"},"d":2}"#)
    }

    @Test func settingAMissingPathCreatesTheObjectsAtTheEnd() throws {
        let out = try edited(#"{"a":1,"context":{"ip":"x"}}"#) { $0.set(JSONPath("context.session.seq"), integer: 3) }
        #expect(out == #"{"a":1,"context":{"ip":"x","session":{"seq":3}}}"#)
    }

    @Test func settingTheSameAddedKeyTwiceKeepsTheLastValue() throws {
        let out = try edited(#"{}"#) {
            $0.set(JSONPath("x"), integer: 1)
            $0.set(JSONPath("x"), integer: 2)
        }
        #expect(out == #"{"x":2}"#)
    }

    @Test func removingMembersLeavesValidJSON() throws {
        let out = try edited(#"{"a":1,"b":2,"c":{"d":3,"e":4}}"#) {
            let removedA = $0.remove(JSONPath("a"))
            let removedE = $0.remove(JSONPath("c.e"))
            let removedMissing = $0.remove(JSONPath("zz"))
            #expect(removedA && removedE && !removedMissing)
        }
        #expect(out == #"{"b":2,"c":{"d":3}}"#)
    }

    @Test func settingThroughANonObjectFails() throws {
        var document = try JSONDocument.parse(Array(#"{"a":5}"#.utf8))
        let changed = document.set(JSONPath("a.b"), integer: 1)
        #expect(!changed)
        #expect(!document.isModified)
    }

    @Test func stringsAreEscapedWhenSet() throws {
        let out = try edited(#"{"a":1}"#) { $0.set(JSONPath("s"), string: "q\"\\\n\u{01}") }
        #expect(out == #"{"a":1,"s":"q\"\\\n\u0001"}"#)
        _ = try JSONDocument.parse(Array(out.utf8))
    }
}
