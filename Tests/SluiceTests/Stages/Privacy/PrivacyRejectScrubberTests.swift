import Foundation
@testable import Sluice
import Testing

/// What the privacy stage does to rejected lines, which mostly never reached it.
@Suite struct PrivacyRejectScrubberTests {
    typealias P = PrivacyCase

    /// The stage and the scrubber it made for a run.
    private func made(_ yaml: String = "{}") throws -> (stage: PrivacyProtection, scrubber: any RejectScrubber) {
        var stage = try P.stage(yaml)
        let made = stage.makeRejectScrubber()
        return (stage, made)
    }

    /// Scrubs `line` with an empty detail; the line as text.
    private func scrubbed(_ line: String, _ scrubber: any RejectScrubber, truncated: Bool = false) -> String {
        var bytes = Array(line.utf8)
        var detail = ""
        _ = scrubber.scrub(line: &bytes, detail: &detail, truncated: truncated)
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func aLineThatIsAJSONObjectGetsTheStagesFieldRulesAsAnEventWould() throws {
        let pair = try made("{pseudonymize: {fields: [userId]}}")
        var stage = pair.stage
        let line = P.track(#""userId":"u-42","context":{"ip":"203.0.113.45"},"properties":{"note":"mail jane@example.com"}"#)
        let reject = P.object(scrubbed(line, pair.scrubber))
        let event = try #require(P.apply(line, &stage))
        // The same pseudonym as the delivered event (rejects and records still join), the IP truncated, not redacted.
        #expect(reject["userId"] as? String == P.object(event)["userId"] as? String)
        #expect((reject["userId"] as? String)?.count == 64)
        #expect((reject["context"] as? [String: Any])?["ip"] as? String == "203.0.113.0")
        #expect((reject["properties"] as? [String: Any])?["note"] as? String == "mail [email]")
    }

    @Test func consentDoesNotApplyToRejectsTheLineIsKeptAndScrubbed() throws {
        let scrubber = try made().scrubber
        let line = P.track(#""context":{"consent":{"analytics":false}},"properties":{"email":"jane@example.com"}"#)
        #expect(P.object(scrubbed(line, scrubber))["properties"] as? [String: String] == ["email": "[email]"])
    }

    @Test func aLineThatIsNotJSONIsOneTextToTheDetectorsAndPatternsWithTheStagesTokens() throws {
        let scrubber = try made(#"{redact: {tokens: {email: "<e>"}}, patterns: {order: "ORD-[0-9]{4}"}}"#).scrubber
        #expect(scrubbed(#"{"type":"track","note":"jane@example.com, +1 (415) 555-0100, 4111 1111 1111 1111, ORD-1234, 10.1.2.3""#, scrubber)
            == #"{"type":"track","note":"<e>, [phone], [card], [order], [ip]""#)
        // Duplicate keys parse as no document: the text rules apply, and an id is left alone.
        #expect(scrubbed(#"{"anonymousId":"d1","anonymousId":"d2","timestamp":"2026-11-20T08:00:00Z","email":"bob@example.org"}"#, scrubber)
            == #"{"anonymousId":"d1","anonymousId":"d2","timestamp":"2026-11-20T08:00:00Z","email":"<e>"}"#)
        // A JSON value that is not an object is text too.
        #expect(scrubbed(#"["jane@example.com"]"#, scrubber) == #"["<e>"]"#)
    }

    @Test func bytesThatAreNotUTF8AreScrubbedAsBytes() throws {
        let scrubber = try made().scrubber
        var line = Array(#"{"x":"jane@example.com "#.utf8) + [0xFF, 0xFE] + Array(#" +44 20 7946 0958"}"#.utf8)
        var detail = "the line is not valid UTF-8"
        #expect(scrubber.scrub(line: &line, detail: &detail, truncated: false))
        #expect(line == Array(#"{"x":"[email] "#.utf8) + [0xFF, 0xFE] + Array(#" [phone]"}"#.utf8))
    }

    @Test func theValueALineTooLongWasCutInIsLeftOutBeforeTheDetectorsRun() throws {
        let scrubber = try made().scrubber
        // Cut inside a string: half an address no detector knows.
        #expect(scrubbed(#"{"type":"track","properties":{"note":"write to jane.doe@exam"#, scrubber, truncated: true)
            == #"{"type":"track","properties":{"note":"#)
        // An escaped quote does not end the string.
        #expect(scrubbed(#"{"a":"say \"hi\" to +1 (415) 55"#, scrubber, truncated: true) == #"{"a":"#)
        // Cut inside a number, or after a whole value.
        #expect(scrubbed(#"{"a":1,"card":41111111"#, scrubber, truncated: true) == #"{"a":1,"card":"#)
        #expect(scrubbed(#"{"a":"x","#, scrubber, truncated: true) == #"{"a":"x","#)
        // A whole line is never cut: only `truncated` does that.
        #expect(scrubbed(#"not json "unterminated"#, scrubber) == #"not json "unterminated"#)
    }

    @Test func theDetailIsScrubbedAsPlainText() throws {
        let scrubber = try made(#"{redact: {tokens: {email: "\"e\""}}}"#).scrubber
        var line = Array("x".utf8)
        var detail = #"track "signup jane@example.com" is not in the tracking plan's events"#
        #expect(scrubber.scrub(line: &line, detail: &detail, truncated: false))
        #expect(detail == #"track "signup "e"" is not in the tracking plan's events"#)
        #expect(line == Array("x".utf8))
        // A detail of Sluice's own words and numbers is left as it was.
        var plain = "the line has 2000000 bytes; input.max_line_bytes is 1048576"
        #expect(!scrubber.scrub(line: &line, detail: &plain, truncated: false))
        #expect(plain == "the line has 2000000 bytes; input.max_line_bytes is 1048576")
    }

    @Test func theStageCountsScrubbedRejectsAndTheirHitsByRuleApartFromItsEvents() throws {
        let pair = try made("{pseudonymize: {fields: [userId]}, drop: [properties.secret]}")
        var stage = pair.stage
        let scrubber = pair.scrubber
        _ = scrubbed(P.track(#""userId":"u1","context":{"ip":"198.51.100.7"},"properties":{"secret":1,"m":"a@example.com"}"#), scrubber)
        _ = scrubbed("a@example.com b@example.com 4111111111111111", scrubber)
        _ = scrubbed("nothing here", scrubber)
        #expect(P.counter(stage, "rejects_scrubbed") == 2)
        // The event counters are the stage's own events only.
        #expect(P.counter(stage, "redacted_email") == 0 && P.counter(stage, "pseudonymized") == 0)
        let group = try #require(stage.counterGroups.first { $0.name == "rejects_hits_by_rule" })
        let hits = Dictionary(uniqueKeysWithValues: group.counters.map { ($0.name, $0.value) })
        #expect(hits == ["drop": 1, "allow": 0, "truncate_ip": 1, "pseudonymize": 1, "email": 3, "url_email": 0,
                         "ip": 0, "iban": 0, "card": 1, "phone": 0])
        _ = try #require(P.apply(P.track(), &stage))
        #expect(P.counter(stage, "rejects_scrubbed") == 2)
    }

    @Test func withDetectionOffOnlyTheFieldRulesApplyAndTextIsLeftAsItCame() throws {
        let scrubber = try made("{redact: false}").scrubber
        #expect(scrubbed("jane@example.com", scrubber) == "jane@example.com")
        #expect(P.object(scrubbed(P.track(#""context":{"ip":"203.0.113.45"}"#), scrubber))["context"] as? [String: String]
            == ["ip": "203.0.113.0"])
    }

    @Test func aStageNotAskedForAScrubberReportsNoRejectCounters() throws {
        let stage = try P.stage()
        #expect(P.counter(stage, "rejects_scrubbed") == -1)
        #expect(!stage.counterGroups.contains { $0.name == "rejects_hits_by_rule" })
    }
}
