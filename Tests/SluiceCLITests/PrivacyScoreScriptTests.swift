import Foundation
import SluiceTestSupport
import Testing

/// End-to-end: `scripts/privacy-score` runs the built binary over a corpus and
/// judges each probe by its label: on the committed corpus, and on small ones
/// whose outcome these tests know.
@Suite struct PrivacyScoreScriptTests {
    private func score(_ arguments: String) throws -> SluiceBinary.Result {
        try SluiceBinary.shell(#"python3 scripts/privacy-score --binary "$SLUICE" "# + arguments, in: repositoryRoot)
    }

    /// Writes `events` and `labels` (one JSON line each) as a corpus directory.
    private func corpus(_ directory: TemporaryDirectory, events: [String], labels: [String]) -> String {
        directory.write("corpus/events.ndjson.gz", TestGzip.compress(Array((events.joined(separator: "\n") + "\n").utf8)))
        directory.write("corpus/labels.ndjson.gz", TestGzip.compress(Array((labels.joined(separator: "\n") + "\n").utf8)))
        return directory.file("corpus")
    }

    private func event(_ id: String, _ fields: String) -> String {
        #"{"type":"track","event":"form_submitted","messageId":"\#(id)","anonymousId":"d1","timestamp":"2026-11-20T08:00:00Z",\#(fields)}"#
    }

    private func label(_ id: String, _ kind: String, _ cls: String, _ placement: String, _ path: String, _ value: String, _ expected: String) -> String {
        #"{"messageId":"\#(id)","kind":"\#(kind)","class":"\#(cls)","form":"test","locale":"en_US","placement":"\#(placement)","field":"named","path":\#(path),"value":\#(value),"expected":\#(expected)}"#
    }

    /// A Markdown table's row for a class, its cells trimmed: class, probes, hits, rate, target.
    private func row(_ output: String, _ cls: String) -> [String] {
        output.split(separator: "\n").filter { $0.hasPrefix("| ") }
            .map { $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) } }
            .first { $0.count > 3 && $0[0] == cls } ?? []
    }

    @Test func theCommittedCorpusIsAccountedForEventByEventAndEveryClassGetsARow() throws {
        let result = try score("")
        #expect(result.status == 0, "\(result.stderr)")
        let output = result.stdoutText
        #expect(output.contains("privacy corpus: 11000 events, 11000 emitted, 0 rejected"), "\(output)")
        let probes = ["email": "553", "url_email": "553", "card": "553", "iban": "553", "ipv4": "553", "ipv6": "553",
                      "phone:intl": "534", "phone:valid": "583", "phone:placed": "485", "side_by_side": "194"]
        for (cls, count) in probes {
            #expect(row(output, cls).prefix(2) == [cls, count], "\(cls): \(row(output, cls))")
        }
        #expect(row(output, "**all personal data**").prefix(2) == ["**all personal data**", "**5114**"], "\(output)")
        #expect(row(output, "**all look-alikes**").prefix(2) == ["**all look-alikes**", "**5886**"], "\(output)")
    }

    @Test func aProbeIsFoundOnlyWhenItsFieldIsExactlyTheExpectedTextAndANumberTurnedStringIsAltered() throws {
        let directory = TemporaryDirectory()
        let path = corpus(directory, events: [
            event("e1", #""properties":{"email":"jane.doe@example.com"}"#),
            event("e2", #""properties":{"note":"jane.doe@example.com"}"#),
            event("e3", #""properties":{"value":4111111111111111}"#),
            event("e4", #""properties":{"by_key":{"jane.doe@example.com":1}}"#),
        ], labels: [
            label("e1", "pii", "email", "value", #"["properties","email"]"#, #""jane.doe@example.com""#, #""[email]""#),
            // A label that wants the text kept around the token: "[email]" alone is then a miss.
            label("e2", "pii", "email", "value", #"["properties","note"]"#, #""jane.doe@example.com""#, #""[email] (work)""#),
            label("e3", "benign", "counter", "number", #"["properties","value"]"#, "4111111111111111", "4111111111111111"),
            label("e4", "benign", "counter", "key", #"["properties","by_key","jane.doe@example.com"]"#,
                  #""jane.doe@example.com""#, #""jane.doe@example.com""#),
        ])
        let result = try score("--corpus \(path) --show 5 --shapes 5")
        #expect(result.status == 0, "\(result.stderr)")
        let output = result.stdoutText
        #expect(row(output, "email").prefix(4) == ["email", "2", "1", "50.0%"], "\(output)")
        #expect(row(output, "counter").prefix(4) == ["counter", "2", "2", "100.0%"], "\(output)")
        #expect(output.contains(#"expected: "[email] (work)""#) && output.contains(#"output:   "[email]""#), "\(output)")
        #expect(output.contains("    value:    4111111111111111\n    expected: 4111111111111111\n    output:   \"[card]\""), "\(output)")
        #expect(output.contains(#"output:   ["[email]"]"#), "\(output)")
        #expect(output.contains("counter: 2 false alarms ([card] 1, [email] 1); by form: test as number 1 of 1, test 1 of 1; by placement: number 1, key 1"),
                "\(output)")
    }

    @Test func anEventTheRunNeitherEmitsNorRejectsFailsTheScore() throws {
        let directory = TemporaryDirectory()
        let path = corpus(directory, events: [
            event("e1", #""properties":{"email":"jane.doe@example.com"}"#),
            event("e2", #""context":{"consent":{"analytics":false}},"properties":{"email":"jane.doe@example.com"}"#),
        ], labels: [
            label("e1", "pii", "email", "value", #"["properties","email"]"#, #""jane.doe@example.com""#, #""[email]""#),
            label("e2", "pii", "email", "value", #"["properties","email"]"#, #""jane.doe@example.com""#, #""[email]""#),
        ])
        let result = try score("--corpus \(path)")
        #expect(result.status == 1)
        #expect(result.stderr.contains("privacy-score: events neither emitted nor rejected (or both): 1 of 2, e.g. e2"), "\(result.stderr)")
        #expect(!result.stdoutText.contains("recall"), "\(result.stdoutText)")
    }
}
