@testable import Sluice
import Testing

/// With key scanning on, redacted keys stay unique in their object: the first
/// takes the token, later ones `#2`, `#3`, ..., and the event Sluice writes is
/// one Sluice reads back (no `duplicate_key`).
@Suite struct PrivacyKeyUniquenessTests {
    typealias P = PrivacyCase

    /// Whether Sluice's own reader takes `line` (nil) or the reason it rejects it.
    private func rejection(_ line: String) -> RejectReason? {
        Array(line.utf8).withUnsafeBufferPointer { bytes in
            if case .failure(let rejection) = Event.decode(bytes, origin: Origin(source: 0, line: 1)) { return rejection.reason }
            return nil
        }
    }

    @Test(arguments: [
        (#"{"a@b.com":1,"c@d.com":2}"#, #"{"[email]":1,"[email]#2":2}"#),
        // A key that already reads like the token, before or after the redacted one.
        (#"{"[email]":0,"a@b.com":1}"#, #"{"[email]":0,"[email]#2":1}"#),
        (#"{"a@b.com":1,"[email]":0,"[email]#2":5,"c@d.com":2}"#, #"{"[email]#3":1,"[email]":0,"[email]#2":5,"[email]#4":2}"#),
        // Different tokens, and objects of their own: each counts apart.
        (#"{"a@b.com":1,"203.0.113.9":2,"n":{"e@f.com":3},"c@d.com":4}"#, #"{"[email]":1,"[ip]":2,"n":{"[email]":3},"[email]#2":4}"#),
    ])
    func redactedKeysAreMadeUniqueInTheirObject(properties: String, expected: String) throws {
        var stage = try P.stage("{redact: {keys: true}}")
        let out = try #require(P.apply(P.track(#""properties":\#(properties)"#), &stage))
        #expect(out == P.track(#""properties":\#(expected)"#))
        #expect(rejection(out) == nil)
    }

    @Test func tenThousandKeysRedactedToOneTokenAreNumberedInOrder() throws {
        var stage = try P.stage("{redact: {keys: true}}")
        let members = (0..<10_000).map { #""u\#($0)@example.com":\#($0)"# }.joined(separator: ",")
        let out = try #require(P.apply(P.track(#""properties":{\#(members)}"#), &stage))
        let expected = (0..<10_000).map { #""[email]\#($0 == 0 ? "" : "#\($0 + 1)")":\#($0)"# }.joined(separator: ",")
        #expect(out == P.track(#""properties":{\#(expected)}"#))
        #expect(rejection(out) == nil)
        #expect(P.counter(stage, "redacted_email") == 10_000)
    }
}
