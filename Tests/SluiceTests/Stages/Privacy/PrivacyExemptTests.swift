@testable import Sluice
import Testing

/// Exempt fields keep their ids, times and versions from the number and address
/// detectors, but an email there is still redacted.
@Suite struct PrivacyExemptTests {
    typealias P = PrivacyCase

    @Test func anEmailInAnExemptFieldIsRedacted() throws {
        var stage = try P.stage()
        let line = #"{"type":"track","event":"tap","messageId":"4111111111111111","anonymousId":"jane@example.com","#
            + #""timestamp":"2026-11-20T08:00:07.269Z","context":{"app":{"version":"1.2.3.4 bo%40example.org","build":"4155550123"},"#
            + #""session":{"id":{"owner":"x@example.com","n":4111111111111111}}}}"#
        let out = try #require(P.apply(line, &stage))
        #expect(out == #"{"type":"track","event":"tap","messageId":"4111111111111111","anonymousId":"[email]","#
            + #""timestamp":"2026-11-20T08:00:07.269Z","context":{"app":{"version":"1.2.3.4 [email]","build":"4155550123"},"#
            + #""session":{"id":{"owner":"[email]","n":4111111111111111}}}}"#)
    }

    @Test func wildcardAndScopedExemptionsKeepEmailDetection() throws {
        var wildcard = try P.stage(#"{redact: {exempt: ["properties.*_id"]}}"#)
        let line = P.track(#""properties":{"order_id":"4111111111111111 a@example.com"}"#)
        #expect(P.apply(line, &wildcard) == P.track(#""properties":{"order_id":"4111111111111111 [email]"}"#))
        var scoped = try P.stage("{redact: {paths: [messageId]}}")
        let message = P.track(#""messageId":"m-b@example.com""#)
        #expect(P.apply(message, &scoped) == P.track(#""messageId":"[email]""#))
        var noEmail = try P.stage("{redact: [card]}")
        #expect(P.apply(message, &noEmail) == message)
    }

    @Test func aKeyThatOnlyResemblesAnExemptOneIsScannedInFull() throws {
        var stage = try P.stage()
        // The same length as `receivedAt` and `originalTimestamp` with one byte off, a length
        // 64 more than `type`'s, and an exempt name one level too deep: all searched for cards.
        let long = String(repeating: "t", count: 68)
        let line = P.track(#""receivedAx":"4111111111111111","originalTimestamX":"4111111111111111","\#(long)":"4111111111111111","#
            + #""properties":{"messageId":"4111111111111111"}"#)
        #expect(P.apply(line, &stage) == P.track(#""receivedAx":"[card]","originalTimestamX":"[card]","\#(long)":"[card]","#
            + #""properties":{"messageId":"[card]"}"#))
    }
}
