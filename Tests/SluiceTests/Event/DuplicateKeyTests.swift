@testable import Sluice
@testable import SluiceJSON
import Testing

/// A line whose object repeats a key (at any depth) is rejected `duplicate_key`:
/// one reader would scrub the first value while another reads the last.
@Suite struct DuplicateKeyTests {
    private func reason(_ text: String) -> RejectReason? {
        Array(text.utf8).withUnsafeBufferPointer { line in
            if case .failure(let rejection) = Event.decode(line, origin: Origin(source: 0, line: 1)) { return rejection.reason }
            return nil
        }
    }

    private static let head = #""type":"track","event":"e","anonymousId":"a","timestamp":"2026-11-20T08:00:00Z""#

    @Test(arguments: [
        #"{\#(head),"event":"f"}"#,
        #"{\#(head),"properties":{"email":"[email]","email":"jane@example.com"}}"#,
        #"{\#(head),"properties":{"a":{"b":[{"x":1,"y":2,"x":3}]}}}"#,
        #"{\#(head),"properties":{"em\u0061il":"jane@example.com","email":"[email]"}}"#,
        #"{\#(head),"properties":{"\u00e9":1,"é":2}}"#,
    ])
    func aRepeatedKeyAtAnyDepthIsRejected(line: String) {
        #expect(reason(line) == .duplicateKey)
    }

    @Test func manyMembersAreCheckedToo() {
        let members = (0..<100).map { #""k\#($0)":\#($0)"# }.joined(separator: ",")
        #expect(reason(#"{\#(Self.head),"properties":{\#(members)}}"#) == nil)
        #expect(reason(#"{\#(Self.head),"properties":{\#(members),"k57":0}}"#) == .duplicateKey)
    }

    /// Keys are compared only when their digests meet (see `JSONParser.keyDigestBit`): objects of
    /// random short keys, some repeated, must be refused exactly when a plain set of the keys says so.
    @Test func objectsOfRandomKeysAreRefusedExactlyWhenAKeyRepeats() {
        var random = SystemRandomNumberGenerator()
        let alphabet = Array("ab$_".utf8)
        var refused = 0
        for _ in 0..<3000 {
            let count = Int.random(in: 0...40, using: &random)
            var keys: [String] = []
            for _ in 0..<count {
                let length = Int.random(in: 0...4, using: &random)
                keys.append(String(decoding: (0..<length).map { _ in alphabet.randomElement(using: &random)! }, as: UTF8.self))
            }
            let members = keys.enumerated().map { #""\#($1)":\#($0)"# }.joined(separator: ",")
            let expected: RejectReason? = Set(keys).count == keys.count ? nil : .duplicateKey
            if expected != nil { refused += 1 }
            #expect(reason(#"{\#(Self.head),"properties":{\#(members)}}"#) == expected, "keys \(keys)")
        }
        #expect(refused > 100 && refused < 2900)
    }

    @Test func anEmptyKeyRepeatedIsRefused() {
        #expect(reason(#"{\#(Self.head),"properties":{"":1,"a":2,"":3}}"#) == .duplicateKey)
        #expect(reason(#"{\#(Self.head),"properties":{"":1,"a":2}}"#) == nil)
    }

    @Test func theSameKeyInDifferentObjectsIsFine() {
        #expect(reason(#"{\#(Self.head),"properties":{"email":1,"x":{"email":2},"l":[{"email":3},{"email":4}]},"traits":{"email":5}}"#) == nil)
        #expect(reason(#"{\#(Self.head),"properties":{"ab":1,"a":2,"b":3,"a\\b":4}}"#) == nil)
    }

    @Test func theRejectSaysWhere() throws {
        let text = #"{\#(Self.head),"event":"f"}"#
        var caught: JSONError?
        do { _ = try JSONDocument.parse(Array(text.utf8)) } catch { caught = error }
        let error = try #require(caught)
        #expect(error.kind == .duplicateKey)
        #expect(error.message == "duplicate key at byte \(text.utf8.count - 12)")
    }

    @Test func anAbandonedStartWithItsOwnEscapedAbandonReasonGetsItReplacedNotDuplicated() {
        let line = #"{"type":"track","event":"v","anonymousId":"d1","abandon\u005freason":"mine","timestamp":"2026-11-20T08:00:00Z","timed":"start"}"#
        #expect(TimedHarness.run([line]).lines == [
            #"{"type":"track","event":"v","anonymousId":"d1","abandon\u005freason":"end_of_input","timestamp":"2026-11-20T08:00:00Z","timed":"abandoned"}"#,
        ])
    }
}
