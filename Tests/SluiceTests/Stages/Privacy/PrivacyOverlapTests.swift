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
}
