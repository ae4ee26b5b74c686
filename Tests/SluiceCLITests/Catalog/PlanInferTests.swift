import Foundation
import SluiceTestSupport
import Testing

/// `sluice plan infer`: a draft plan from logs, under which the same events pass.
@Suite struct PlanInferTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("SluiceTests/Stages/Privacy/Corpus")

    private func stats(_ directory: TemporaryDirectory, _ name: String) -> [String: Any] {
        let data = FileManager.default.contents(atPath: directory.file(name)) ?? Data()
        return ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any]) ?? [:]
    }

    @Test func theEventsItWasInferredFromPassTheirPlanWithNoViolation() throws {
        let directory = TemporaryDirectory()
        let generated = try SluiceBinary.shell("$SLUICE generate --events 4000 --seed 9 --malformed 0.01 > day.ndjson && gzip -k day.ndjson",
                                               in: directory.path)
        #expect(generated.status == 0)
        let inferred = try SluiceBinary.run(["plan", "infer", "--output", "plan.yaml", "day.ndjson.gz"], in: directory.path)
        #expect(inferred.status == 0, "\(inferred.stderr)")
        let plan = try String(contentsOfFile: directory.file("plan.yaml"), encoding: .utf8)
        #expect(plan.contains("      events:\n"))
        #expect(plan.contains("{enum: ["), "a property with few values over many events is an enum")
        let validate = try SluiceBinary.run(["validate", "plan.yaml"], in: directory.path)
        #expect(validate.status == 0, "\(validate.stderr)")
        let run = try SluiceBinary.run(["run", "--pipeline", "plan.yaml", "--out", "out", "--stats", "s.json", "day.ndjson"], in: directory.path)
        #expect(run.status == 0, "\(run.stderr)")
        let reasons = stats(directory, "s.json")["rejected_by_reason"] as? [String: Int] ?? [:]
        #expect(reasons["plan_violation"] == nil && reasons["unplanned_event"] == nil, "\(reasons)")
        #expect((reasons["invalid_json"] ?? 0) > 0, "the malformed lines are still rejected as before: \(reasons)")
        // The same plan from stdin.
        let piped = try SluiceBinary.shell("$SLUICE plan infer < day.ndjson", in: directory.path)
        #expect(piped.status == 0)
        #expect(piped.stdoutText.split(separator: "\n").dropFirst(2) == plan.split(separator: "\n").dropFirst(2))
    }

    @Test func typesAreTheNarrowestEveryValueFitsAndRequiredIsWhatEveryOccurrenceHad() throws {
        let directory = TemporaryDirectory()
        var lines: [String] = []
        for index in 0..<30 {
            let optional = index % 2 == 0 ? ",\"note\":\"n\(index)\"" : ""
            let amount = index == 7 ? "2.5" : "\(index)"
            lines.append("{\"type\":\"track\",\"event\":\"Order Completed\",\"anonymousId\":\"d\",\"timestamp\":\"2026-11-20T08:00:00Z\","
                + "\"properties\":{\"count\":\(index),\"amount\":\(amount),\"at\":\"2026-11-20T08:00:\(10 + index)Z\","
                + "\"tier\":\"\(["gold", "silver"][index % 2])\",\"coupon\":\(index % 3 == 0 ? "null" : "\"c\"")"
                + ",\"mixed\":\(index % 2 == 0 ? "1" : "\"one\"")\(optional)}}")
        }
        directory.write("in.ndjson", lines.joined(separator: "\n") + "\n")
        let inferred = try SluiceBinary.run(["plan", "infer", "in.ndjson"], in: directory.path)
        #expect(inferred.status == 0, "\(inferred.stderr)")
        let plan = inferred.stdoutText
        for expected in ["\"Order Completed\":  # 30", "count: integer  # every one", "amount: number  # every one",
                         "at: timestamp  # every one", "tier: {enum: [\"gold\", \"silver\"]}  # every one",
                         "coupon: {enum: [\"c\"], nullable: true}  # every one, 10 null", "note: string  # 15",
                         "required: [amount, at, count, coupon, tier]", "# mixed: values of several types seen (30); left unplanned"] {
            #expect(plan.contains(expected), "\(expected) not in:\n\(plan)")
        }
        // Fewer occurrences than --enum-min-events: a string, not an enum.
        let few = try SluiceBinary.run(["plan", "infer", "--enum-min-events", "31", "in.ndjson"], in: directory.path)
        #expect(few.stdoutText.contains("tier: string  # every one"), "\(few.stdoutText)")
    }

    /// Personal data never reaches the plan: values from the privacy corpus (emails, phone
    /// numbers, IPs, cards, IBANs), few and often repeated, do not become enum members.
    @Test func personalDataFromThePrivacyCorpusIsNeverWrittenIntoThePlan() throws {
        var values: [String] = []
        for file in ["email.txt", "phone.txt", "ip.txt", "card.txt", "iban.txt"] {
            let text = try String(contentsOf: Self.corpus.appendingPathComponent(file), encoding: .utf8)
            // The marked spans `{{detector:text}}` of the `+` lines: three of each.
            var found: [String] = []
            for line in text.split(separator: "\n") where line.hasPrefix("+") {
                var rest = Substring(line)
                while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
                    let marked = rest[open.upperBound..<close.lowerBound]
                    if let colon = marked.firstIndex(of: ":") { found.append(String(marked[marked.index(after: colon)...])) }
                    rest = rest[close.upperBound...]
                }
                if found.count >= 3 { break }
            }
            values += found
        }
        #expect(values.count >= 12)
        let directory = TemporaryDirectory()
        var lines: [String] = []
        for index in 0..<200 {
            let value = values[index % 4 + 4 * ((index / 4) % (values.count / 4))]
            let quoted = String(decoding: try JSONSerialization.data(withJSONObject: [value], options: [.fragmentsAllowed]), as: UTF8.self)
            lines.append("{\"type\":\"track\",\"event\":\"contact_shared\",\"anonymousId\":\"d\",\"timestamp\":\"2026-11-20T08:00:00Z\","
                + "\"properties\":{\"contact\":\(quoted.dropFirst().dropLast()),\"channel\":\"\(["sms", "mail"][index % 2])\"}}")
        }
        directory.write("in.ndjson", lines.joined(separator: "\n") + "\n")
        let inferred = try SluiceBinary.run(["plan", "infer", "--enum-max", "100", "in.ndjson"], in: directory.path)
        #expect(inferred.status == 0, "\(inferred.stderr)")
        let plan = inferred.stdoutText
        for value in Set(values) { #expect(!plan.contains(value), "\(value) written into the plan") }
        #expect(plan.contains("contact: string  # every one, personal data seen: never an enum"), "\(plan)")
        #expect(plan.contains("channel: {enum: [\"mail\", \"sms\"]}"), "\(plan)")
    }
}
