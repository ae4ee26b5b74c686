import Foundation
#if canImport(Glibc)
import Glibc
#endif
import SluiceTestSupport
import Testing

/// End to end: what the binary writes to the rejects output when the pipeline
/// has a `privacy` stage. Rejected lines mostly never reached the stage; the
/// rejects are gunzipped and searched by the tests' own checks (`PersonalData`).
@Suite struct PrivacyRejectsTests {
    static let key = "k3y-for-the-rejects-test-0123456789"

    /// `plan` before `privacy` (the README's advice), `timed` after it; a key file only its owner reads.
    private func setUp(_ directory: TemporaryDirectory, rejects: String = "") throws {
        let keyPath = directory.write("hmac.key", Self.key + "\n")
        #expect(chmod(keyPath, 0o600) == 0)
        directory.write("p.yaml", """
            version: 1
            input: {max_line_bytes: 600}
            stages:
              - plan: {unplanned_events: reject, events: {tap: {}, video: {}}}
              - privacy: {pseudonymize: {fields: [userId], key_file: hmac.key}}
              - timed: {on_orphan_stop: reject}
            destinations:
              archive: {type: ndjson}
              segment: {type: segment, events: [tap]}
            \(rejects)
            """)
        let at = #""anonymousId":"d1","timestamp":"2026-11-20T08:00:00Z""#
        // Its first 1 KiB, all a reject keeps of it, ends inside the address: `…"note":"write to jane`.
        let head = #"{"type":"track","event":"tap",\#(at),"properties":{"pad":""#
        let tooLong = head + String(repeating: "x", count: 1024 - head.utf8.count - #"","note":"write to jane"#.utf8.count)
            + #"","note":"write to jane.doe@example.com about it","more":""# + String(repeating: "y", count: 600) + #""}}"#
        var input = [
            // 1: delivered; its pseudonym is what every reject of u-7 must carry, hashed once.
            #"{"type":"track","event":"tap","userId":"u-7",\#(at),"messageId":"m1"}"#,
            // 2-7: rejected before the privacy stage.
            #"oops jane@example.com called +1 (415) 555-0100 from 198.51.100.23"#,
            #"{"type":"track","event":"tap","userId":"u-7","userId":"u-8",\#(at),"properties":{"email":"bob@example.org"}}"#,
            #"{"type":"track","event":"tap","userId":"u-7","anonymousId":"d1","context":{"ip":"203.0.113.45"},"properties":{"card":"4111 1111 1111 1111"}}"#,
            #"{"type":"track","event":"signup jane@example.com","userId":"u-7",\#(at),"properties":{"phone":"+44 20 7946 0958"}}"#,
            #"{"type":"ann@example.net",\#(at)}"#,
            tooLong,
            // 8-9: rejected after it (an orphan stop, a refusal): scrubbed there already.
            #"{"type":"track","event":"video","timed":"stop","userId":"u-7",\#(at),"properties":{"note":"call +1 (415) 555-0100"}}"#,
            #"{"type":"track","event":"tap","userId":"u-7",\#(at),"messageId":"\#(String(repeating: "m", count: 101))"}"#,
        ].map { Array($0.utf8) }
        // 10: not UTF-8.
        input.append(Array(#"{"type":"track","note":"mail jane@example.com "#.utf8) + [0xFF] + Array(#""}"#.utf8))
        directory.write("in.ndjson", input.flatMap { $0 + [0x0A] })
    }

    /// Every reject record as a Foundation object, and its line's bytes (decoded from `line_base64` when there),
    /// by line number (the orphan stop is rejected at the end of input).
    private func rejects(_ directory: TemporaryDirectory) throws -> [(record: [String: Any], line: [UInt8])] {
        try gunzipFiles(directory, under: "out/rejects/").flatMap(\.lines).map { bytes in
            let record = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
            let line = (record["line"] as? String).map { Array($0.utf8) }
                ?? Array(Data(base64Encoded: record["line_base64"] as? String ?? "") ?? Data())
            return (record, line)
        }.sorted { ($0.record["line_number"] as? Int ?? 0) < ($1.record["line_number"] as? Int ?? 0) }
    }

    @Test func everyRejectedLineAndDetailIsWrittenScrubbedAndCounted() throws {
        let directory = TemporaryDirectory()
        try setUp(directory)
        let run = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "--stats", "stats.json", "in.ndjson"], in: directory.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("warning"), "\(run.stderr)")
        let found = try rejects(directory)
        #expect(found.map { $0.record["line_number"] as? Int } == [2, 3, 4, 5, 6, 7, 8, 9, 10])
        #expect(found.map { $0.record["reason"] as? String } == ["invalid_json", "duplicate_key", "missing_timestamp", "unplanned_event",
                                                                  "unknown_type", "line_too_long", "orphan_stop", "message_id_too_long",
                                                                  "invalid_utf8"])
        for (record, line) in found {
            let texts = [String(decoding: line, as: UTF8.self), record["detail"] as? String ?? ""]
            for text in texts {
                #expect(try PersonalData.found(in: text).isEmpty, "\(record["reason"]!): \(text)")
            }
        }
        // The checks are not blind: the input has every kind.
        let input = String(decoding: try Data(contentsOf: URL(fileURLWithPath: directory.file("in.ndjson"))), as: UTF8.self)
        #expect(Set(try PersonalData.found(in: input).map { String($0.prefix { $0 != " " }) }) == ["email", "phone", "card", "ip"])

        func line(_ index: Int) -> String { String(decoding: found[index].line, as: UTF8.self) }
        // Not JSON: the detectors over the bytes, with the stage's tokens.
        #expect(line(0) == "oops [email] called [phone] from [ip]")
        // A JSON object gets the field rules: the IP truncated, not redacted, the id pseudonymized.
        let archived = try #require(gunzipFiles(directory, under: "out/archive/").first?.lines.first)
        let pseudonym = try #require((try JSONSerialization.jsonObject(with: Data(archived)) as? [String: Any])?["userId"] as? String)
        #expect(pseudonym.count == 64 && pseudonym != "u-7")
        let missingTimestamp = try #require(try JSONSerialization.jsonObject(with: Data(found[2].line)) as? [String: Any])
        #expect(missingTimestamp["userId"] as? String == pseudonym)
        #expect((missingTimestamp["context"] as? [String: Any])?["ip"] as? String == "203.0.113.0")
        // The plan's detail names the event as the stage would.
        #expect(found[3].record["detail"] as? String == #"track "signup [email]" is not in the tracking plan's events"#)
        #expect(found[4].record["detail"] as? String == #"unknown type "[email]""#)
        // A line too long keeps its start, less the value the cut went through.
        #expect(found[5].record["truncated"] as? Bool == true && !line(5).contains("jane") && line(5).hasSuffix(#","note":"#))
        // Lines rejected after the stage carry its pseudonym once, not a pseudonym of it.
        for index in [6, 7] {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(found[index].line)) as? [String: Any])
            #expect(object["userId"] as? String == pseudonym)
        }
        #expect(line(6).contains("call [phone]"))
        #expect(line(8).contains("mail [email] "))

        let stats = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("stats.json")))) as? [String: Any])
        // The refused line reached the archive: emitted, with a reject record for the refusal.
        #expect(stats["balanced"] as? Bool == true && stats["rejected"] as? Int == 8 && stats["emitted"] as? Int == 2)
        let privacy = try #require((stats["stages"] as? [[String: Any]])?.first { $0["stage"] as? String == "privacy" })
        // The seven rejected before the stage; the two after it were scrubbed as events.
        #expect(privacy["rejects_scrubbed"] as? Int == 7)
        let hits = try #require(privacy["rejects_hits_by_rule"] as? [String: Int])
        #expect(hits["pseudonymize"] == 2 && hits["truncate_ip"] == 1 && hits["card"] == 1 && hits["ip"] == 1)
        #expect(hits["email"] == 7 && hits["phone"] == 2)
    }

    @Test func rejectsRawKeepWritesRejectedLinesAsTheyCameAndValidateWarnsAboutIt() throws {
        let directory = TemporaryDirectory()
        try setUp(directory, rejects: "rejects: {raw: keep}")
        let validate = try SluiceBinary.run(["validate", "p.yaml"], in: directory.path)
        #expect(validate.status == 0)
        #expect(validate.stderr.contains("p.yaml:10:16: warning: rejects keep personal data raw"), "\(validate.stderr)")
        #expect(validate.stdoutText.hasSuffix("\np.yaml: ok (1 warning)\n"))
        #expect(try SluiceBinary.run(["validate", "--strict", "p.yaml"], in: directory.path).status == 78)

        let run = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "--stats", "stats.json", "in.ndjson"], in: directory.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("warning: p.yaml:10:16: rejects keep personal data raw"))
        let input = ndjsonLines(Array(FileManager.default.contents(atPath: directory.file("in.ndjson"))!))
        let found = try rejects(directory)
        // Rejected before the privacy stage: as they came. After it (lines 8, 9): as the stage left them.
        for (record, line) in found {
            let number = record["line_number"] as! Int
            if number == 7 {
                #expect(line == Array(input[6].prefix(1024)))
            } else if number != 8 && number != 9 {
                #expect(line == input[number - 1])
            }
        }
        #expect(String(decoding: found[6].line, as: UTF8.self).contains("call [phone]"))
        #expect(found[3].record["detail"] as? String == #"track "signup jane@example.com" is not in the tracking plan's events"#)
        let stats = String(decoding: try Data(contentsOf: URL(fileURLWithPath: directory.file("stats.json"))), as: UTF8.self)
        #expect(!stats.contains("rejects_scrubbed"))
    }

    @Test func withoutAPrivacyStageRejectsAreWrittenAsTheyCame() throws {
        let directory = TemporaryDirectory()
        directory.write("in.ndjson", "oops jane@example.com\n")
        let run = try SluiceBinary.run(["run", "in.ndjson"], in: directory.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try rejects(directory).map { String(decoding: $0.line, as: UTF8.self) } == ["oops jane@example.com"])
    }
}
