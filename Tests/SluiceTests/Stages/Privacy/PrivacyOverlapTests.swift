@testable import Sluice
import Testing

/// Settings that name the same field twice, or a field and one below it, act once on each value.
@Suite struct PrivacyOverlapTests {
    typealias P = PrivacyCase

    @Test(arguments: [
        "[properties, properties.text]",
        "[properties.text, properties]",
        "[properties.text, properties.n, properties.text, properties.n.x]",
        #"["properties.**", properties.text]"#,
        #"["**", properties]"#,
    ])
    func overlappingRedactPathsScanEachFieldOnce(paths: String) throws {
        var stage = try P.stage("{redact: {paths: \(paths)}}")
        let line = P.track(#""properties":{"text":"mail jane@example.com","n":{"x":"bo@example.org"}}"#)
        let out = try #require(P.apply(line, &stage))
        #expect(out == P.track(#""properties":{"text":"mail [email]","n":{"x":"[email]"}}"#))
        #expect(P.counter(stage, "redacted_email") == 2)
    }

    @Test func overlappingFieldsInTheOtherRulesActOnce() throws {
        var stage = try P.stage("""
            {drop: [properties.a, properties.a, properties.b, properties.b.c], ip: {fields: [context.ip, context.ip, "context.*"]},
             pseudonymize: {fields: [userId, userId, "user*"]}}
            """)
        let line = P.track(#""userId":"u1","context":{"ip":"203.0.113.45"},"properties":{"a":1,"b":{"c":2},"d":3}"#)
        let out = P.object(try #require(P.apply(line, &stage)))
        #expect((out["properties"] as? [String: Int]) == ["d": 3])
        #expect((out["context"] as? [String: String])?["ip"] == "203.0.113.0")
        #expect((out["userId"] as? String)?.count == 64)
        #expect(P.counter(stage, "pseudonymized") == 1 && P.counter(stage, "ip_truncated") == 1)
    }

    @Test func aPatternOverlappingAnEmailStillRedactsWhatOnlyItMatched() throws {
        var stage = try P.stage(#"{patterns: {staff: "ID \\d+ \\S+"}}"#)
        let line = P.track(#""properties":{"note":"from ID 42 jane@example.com today"}"#)
        let out = try #require(P.apply(line, &stage))
        // The email detector claims the address first; the pattern keeps `ID 42 `.
        #expect(out == P.track(#""properties":{"note":"from [staff][email] today"}"#))
        #expect(P.counter(stage, "redacted_email") == 1 && P.counter(stage, "redacted_staff") == 1)
    }

    @Test func laterMatchesKeepEveryPartOutsideEarlierOnes() {
        var matches = [PIIMatch(start: 10, end: 20, detector: 0), PIIMatch(start: 30, end: 35, detector: 0)]
        // Covers both earlier matches and the gaps around them.
        PIIScanner.addForTesting(PIIMatch(start: 5, end: 40, detector: 9), to: &matches)
        #expect(matches.sorted { $0.start < $1.start } == [
            PIIMatch(start: 5, end: 10, detector: 9), PIIMatch(start: 10, end: 20, detector: 0),
            PIIMatch(start: 20, end: 30, detector: 9), PIIMatch(start: 30, end: 35, detector: 0),
            PIIMatch(start: 35, end: 40, detector: 9),
        ])
        // Inside an earlier match: nothing left to add.
        PIIScanner.addForTesting(PIIMatch(start: 12, end: 18, detector: 8), to: &matches)
        #expect(matches.count == 5)
    }
}
