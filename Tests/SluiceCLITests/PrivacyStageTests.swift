import Foundation
import SluiceTestSupport
import Testing

/// End to end: the generated stream through `pipelines/privacy.yaml`
/// (`privacy: {}` in front of all six destination types), every output file
/// gunzipped and searched for personal data by checks of its own (regexes,
/// Luhn, inet_pton), not by the stage's detectors.
@Suite struct PrivacyStageTests {
    /// Every string (values and keys) in every record of every file under `out/NAME/`.
    private func strings(_ directory: TemporaryDirectory, _ destination: String) -> [String] {
        var result: [String] = []
        func collect(_ value: Any) {
            switch value {
            case let text as String: result.append(text)
            case let object as [String: Any]:
                for (key, member) in object {
                    result.append(key)
                    collect(member)
                }
            case let array as [Any]: array.forEach(collect)
            default: break
            }
        }
        for file in directory.files() where file.hasPrefix("out/\(destination)/") {
            guard let bytes = TestGzip.decompressFile(directory.file(file)) else {
                Issue.record("\(file) is not complete, valid gzip")
                continue
            }
            for line in ndjsonLines(bytes) {
                guard let record = try? JSONSerialization.jsonObject(with: Data(line)) else {
                    Issue.record("\(file): a record is not JSON")
                    continue
                }
                collect(record)
            }
        }
        return result
    }

    @Test func noDestinationReceivesPersonalDataAndTheAccountingBalances() throws {
        let directory = TemporaryDirectory()
        // The generated stream, plus messages with consent category preferences.
        let consent = [
            #"{"type":"track","event":"purchase_completed","anonymousId":"c1","timestamp":"2026-11-20T09:00:00Z","context":{"consent":{"categoryPreferences":{"Analytics":true,"Advertising":false}}},"properties":{"price":1}}"#,
            #"{"type":"track","event":"purchase_completed","anonymousId":"c2","timestamp":"2026-11-20T09:00:01Z","context":{"consent":{"categoryPreferences":{"Analytics":false,"Advertising":true}}},"properties":{"price":2}}"#,
        ]
        directory.write("consent.ndjson", consent.joined(separator: "\n") + "\n")
        let run = try SluiceBinary.shell("""
            $SLUICE generate --events 12000 --seed 11 --malformed 0.01 > in.ndjson && \
            $SLUICE run --pipeline \(repositoryRoot)/pipelines/privacy.yaml --stats stats.json in.ndjson consent.ndjson
            """, in: directory.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!directory.files().contains { $0.hasSuffix(".part") })

        let stats = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("stats.json")))) as? [String: Any])
        #expect(stats["balanced"] as? Bool == true)
        #expect(stats["lines_in"] as? Int == 12002)
        let emitted = stats["emitted"] as? Int ?? 0, merged = stats["merged"] as? Int ?? 0
        let rejected = stats["rejected"] as? Int ?? 0, dropped = stats["dropped"] as? Int ?? 0
        #expect(emitted + merged + rejected + dropped == 12002)
        let privacy = try #require((stats["stages"] as? [[String: Any]])?.first { $0["stage"] as? String == "privacy" })
        #expect((privacy["ip_truncated"] as? Int ?? 0) > 10000)
        for detector in ["email", "phone", "card", "ip"] { #expect((privacy["redacted_\(detector)"] as? Int ?? 0) > 0, "\(detector)") }
        let audit = try #require(privacy["hits_by_path"] as? [String: [String: Int]])
        #expect(audit["email"]?["properties.*"] ?? 0 > 0 && audit["email"]?["traits.email"] ?? 0 > 0)
        #expect(audit["truncate_ip"]?["context.ip"] == privacy["ip_truncated"] as? Int)
        // Opted-out users (in the generated stream) are dropped; the two messages with preferences still reach some.
        let droppedByReason = try #require(stats["dropped_by_reason"] as? [String: Int])
        #expect(droppedByReason["consent"] == privacy["consent_opted_out"] as? Int && droppedByReason["consent", default: 0] > 0)
        #expect(privacy["consent_withheld"] as? Int == 2)
        let destinations = try #require(stats["destinations"] as? [[String: Any]])
        func withheld(_ name: String) -> Int {
            ((destinations.first { $0["name"] as? String == name }?["not_taken_by_reason"]) as? [String: Int])?["consent"] ?? 0
        }
        // c1 denies Advertising (adjust), c2 Analytics (mixpanel, amplitude, ga4); archive and segment have no category.
        #expect(withheld("adjust") == 1 && withheld("mixpanel") == 1 && withheld("amplitude") == 1 && withheld("ga4") == 1)
        #expect(withheld("archive") == 0 && withheld("segment") == 0)

        var checked = 0
        for destination in ["archive", "mixpanel", "amplitude", "ga4", "adjust", "segment"] {
            let texts = strings(directory, destination)
            #expect(!texts.isEmpty, "\(destination) wrote nothing")
            checked += texts.count
            // Each distinct string once; only those that could hold any of it go through the regexes.
            for text in Set(texts) where text.contains(where: { $0.isNumber || $0 == "@" || $0 == "%" }) {
                let found = try PersonalData.found(in: text)
                #expect(found.isEmpty, "\(destination): \(found) in \"\(text)\"")
            }
        }
        #expect(checked > 100_000)
        // The checks are not blind: on the input they find every kind.
        let input = String(decoding: try Data(contentsOf: URL(fileURLWithPath: directory.file("in.ndjson"))), as: UTF8.self)
        var kinds: Set<String> = []
        for line in input.split(separator: "\n").filter({ $0.contains("feedback_sent") }).prefix(80) {
            for finding in try PersonalData.found(in: String(line)) { kinds.insert(String(finding.prefix { $0 != " " })) }
        }
        #expect(kinds == ["email", "phone", "card", "ip"])
    }

    /// The leaks of issue 36 through the built binary and `pipelines/privacy.yaml`: each value comes out
    /// of the archive with its personal data replaced whole, the rest of the text as it came.
    @Test func theLeakShapesOfIssue36AreRedactedWholeInTheArchive() throws {
        let directory = TemporaryDirectory()
        let cases: [(String, String)] = [
            ("mail josé.garcía@example.com now", "mail [email] now"),
            ("jörg@müller.de", "[email]"),
            ("415-555-0142 415-555-0143", "[phone] [phone]"),
            ("4111111111111111 5500000000000004", "[card] [card]"),
            ("+44 20 7946 0958 4111111111111111", "[phone] [card]"),
            ("phone=%2B44+20+7946+0958&ref=7", "phone=[phone]&ref=7"),
            ("card=4111+1111+1111+1111", "card=[card]"),
            ("iban=DE89%203704%200044%200532%200130%2000", "iban=[iban]"),
            ("iban=LV44+KBAZ+ZCUI+NISP+LMMQ+Y", "iban=[iban]"),
            ("KW70 XICD GXEZ UZIR RBPM JFGO UDVR SC", "[iban]"),
            ("MD28AKXWDPMXAXJKIAPEOXTF", "[iban]"),
        ]
        var lines: [String] = []
        for (index, (text, _)) in cases.enumerated() {
            let event: [String: Any] = ["type": "track", "event": "feedback_sent", "anonymousId": "d\(index)", "messageId": "m\(index)",
                                        "timestamp": "2026-11-20T09:00:00Z", "context": ["locale": "en-US"], "properties": ["note": text]]
            lines.append(String(decoding: try JSONSerialization.data(withJSONObject: event), as: UTF8.self))
        }
        directory.write("in.ndjson", lines.joined(separator: "\n") + "\n")
        let run = try SluiceBinary.shell(
            "$SLUICE run --quiet --pipeline \(repositoryRoot)/pipelines/privacy.yaml --stdout archive in.ndjson", in: directory.path)
        #expect(run.status == 0, "\(run.stderr)")
        var notes: [String: String] = [:]
        for line in ndjsonLines(run.stdout) {
            let record = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            notes[record["messageId"] as? String ?? ""] = (record["properties"] as? [String: Any])?["note"] as? String
        }
        for (index, (text, expected)) in cases.enumerated() {
            #expect(notes["m\(index)"] == expected, "\(text)")
        }
    }

    @Test func pseudonymizationWithoutItsKeyStopsTheRunAtStartup() throws {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", """
            version: 1
            stages:
              - privacy: {pseudonymize: {fields: [userId], key_env: SLUICE_TEST_NO_SUCH_KEY}}
            destinations: {archive: {type: ndjson}}
            """)
        let result = try SluiceBinary.shell("env -u SLUICE_TEST_NO_SUCH_KEY $SLUICE run --pipeline p.yaml < /dev/null", in: directory.path)
        #expect(result.status == 78)
        #expect(result.stderr.contains("p.yaml:3:") && result.stderr.contains("SLUICE_TEST_NO_SUCH_KEY"))
        #expect(!directory.files().contains { $0.hasPrefix("out/") })
        let keyed = try SluiceBinary.shell(
            "echo '{\"type\":\"track\",\"event\":\"e\",\"userId\":\"u\",\"timestamp\":\"2026-11-20T08:00:00Z\"}' | "
                + "SLUICE_TEST_NO_SUCH_KEY=0123456789abcdef0123 $SLUICE run --pipeline p.yaml --stdout archive", in: directory.path)
        #expect(keyed.status == 0, "\(keyed.stderr)")
        let userId = try #require((try JSONSerialization.jsonObject(with: Data(keyed.stdout)) as? [String: Any])?["userId"] as? String)
        #expect(userId.count == 64 && userId.allSatisfy(\.isHexDigit))
    }
}
