@testable import Sluice
@testable import SluiceJSON
import Testing

private typealias C = StageCase

/// One rule of the dedupe stage: messages in arrival order, and each one's
/// fate: `pass`, `dup` (dropped `duplicate`) or `collision` (kept, counted).
struct DedupeRuleCase: CustomTestStringConvertible, Sendable {
    var name: String
    var settings = "{}"
    var input: [String]
    var expected: [String]
    var counters: [String: Int] = [:]

    var testDescription: String { name }
}

private func line(_ id: String?, _ body: String = #""event":"tap""#, at ms: Int = 0, extra: String = "") -> String {
    var fields = [#""type":"track""#]
    if let id { fields.append(#""messageId":\#(id)"#) }
    fields.append(#""anonymousId":"d1""#)
    fields.append(#""timestamp":"\#(C.timestamp(ms))""#)
    fields.append(body)
    if !extra.isEmpty { fields.append(extra) }
    return "{" + fields.joined(separator: ",") + "}"
}

let dedupeRuleCases: [DedupeRuleCase] = [
    DedupeRuleCase(
        name: "the first message with an id passes, the same message again is dropped",
        input: [line(#""m1""#), line(#""m1""#), line(#""m2""#), line(#""m1""#)],
        expected: ["pass", "dup", "pass", "dup"],
        counters: ["duplicates": 2, "id_collisions": 0, "high_water": 2]),
    DedupeRuleCase(
        name: "re-serialized with other spacing or top-level key order it is still the same message",
        input: [
            line(#""m1""#, #""event":"tap","properties":{"a":1,"b":[1,2]}"#),
            #"{ "event" : "tap", "timestamp":"\#(C.timestamp(0))", "anonymousId":"d1", "messageId":"m1", "type":"track", "properties": { "a": 1, "b": [1, 2] } }"#,
        ],
        expected: ["pass", "dup"]),
    DedupeRuleCase(
        name: "a retry that only restamps sentAt and receivedAt is a duplicate",
        input: [line(#""m1""#, extra: #""sentAt":"2026-11-20T08:00:01Z""#),
                line(#""m1""#, extra: #""sentAt":"2026-11-20T08:00:09Z","receivedAt":"2026-11-20T08:00:10Z""#)],
        expected: ["pass", "dup"]),
    DedupeRuleCase(
        name: "ignore_fields is configurable",
        settings: "{ignore_fields: [properties]}",
        input: [line(#""m1""#, #""event":"tap","properties":{"a":1}"#), line(#""m1""#, #""event":"tap","properties":{"a":2}"#),
                line(#""m1""#, #""event":"tap","properties":{"a":1}"#, extra: #""sentAt":"x""#)],
        expected: ["pass", "dup", "collision"],
        counters: ["duplicates": 1, "id_collisions": 1]),
    DedupeRuleCase(
        name: "the same id with another payload is kept and counted, and its own re-send is a duplicate",
        input: [line(#""m1""#, #""event":"tap""#), line(#""m1""#, #""event":"swipe""#), line(#""m1""#, #""event":"swipe""#),
                line(#""m1""#, #""event":"tap""#), line(#""m1""#, #""event":"pinch""#)],
        expected: ["pass", "collision", "dup", "dup", "collision"],
        counters: ["duplicates": 2, "id_collisions": 2]),
    DedupeRuleCase(
        name: "messages without an id pass: absent, null, empty or blank",
        input: [line(nil), line(nil), line("null"), line("null"), line(#""""#), line(#""""#), line(#"" \t""#), line(#"" \t""#)],
        expected: ["pass", "pass", "pass", "pass", "pass", "pass", "pass", "pass"],
        counters: ["without_id": 8, "duplicates": 0, "high_water": 0]),
    DedupeRuleCase(
        name: "an id is compared as its text: the number 5 is the id \"5\", as every stage and provider reads it; an escape is its character",
        input: [line("5"), line(#""5""#), line("5"), line(#""\u0035""#)],
        expected: ["pass", "dup", "dup", "dup"]),
    DedupeRuleCase(
        name: "beyond max_ids the oldest id is forgotten first",
        settings: "{max_ids: 2}",
        input: [line(#""a""#), line(#""b""#), line(#""c""#), line(#""c""#), line(#""b""#), line(#""a""#)],
        expected: ["pass", "pass", "pass", "dup", "dup", "pass"],
        counters: ["evicted": 2, "high_water": 2]),
    DedupeRuleCase(
        name: "with a window an id is remembered for that much event time after it was seen, on the stream's clock",
        settings: "{window: 1h}",
        input: [line(#""a""#, at: 0), line(#""a""#, at: 0), line(#""b""#, at: 60 * C.minute), line(#""a""#, at: 0),
                line(#""c""#, at: 60 * C.minute + 1), line(#""a""#, at: 0)],
        expected: ["pass", "dup", "pass", "dup", "pass", "pass"],
        counters: ["duplicates": 2, "expired": 1]),
    DedupeRuleCase(
        name: "with a window an id is timed from when it was seen, not from its own timestamp",
        settings: "{window: 1m}",
        input: [line(#""a""#, at: 0), line(#""b""#, at: 30_000), line(#""c""#, at: 61_000), line(#""b""#, at: 30_000),
                line(#""late""#, at: 0), line(#""d""#, at: 120_000), line(#""late""#, at: 0), line(#""a""#, at: 0)],
        expected: ["pass", "pass", "pass", "dup", "pass", "pass", "dup", "pass"],
        counters: ["expired": 2, "high_water": 4]),
]

@Suite struct DedupeRuleTests {
    @Test(arguments: dedupeRuleCases)
    func rule(_ rule: DedupeRuleCase) {
        var stage = C.dedupeStage(rule.settings)
        let outcome = C.run(rule.input, through: &stage)
        var fates = [String](repeating: "lost", count: rule.input.count)
        for (event, document) in zip(outcome.events, outcome.documents) {
            fates[Int(event.origin.line) - 1] = document.find(JSONPath("context.duplicate_of")) != nil ? "collision" : "pass"
        }
        for drop in outcome.dropped {
            #expect(drop.reason == .duplicate)
            fates[Int(drop.origin.line) - 1] = "dup"
        }
        #expect(fates == rule.expected)
        for (name, value) in rule.counters {
            #expect(outcome.counters[name] == value, "counter \(name)")
        }
    }
}
