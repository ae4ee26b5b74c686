import Foundation
import Sluice
import SluiceTestSupport
import Testing

/// End-to-end: `pipelines/session.yaml` (dedupe, then session) and
/// `pipelines/dedupe.yaml` on a generated stream, the archive read back.
@Suite struct DedupeSessionStageTests {
    private func json(_ bytes: [UInt8]) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] ?? [:]
    }

    /// Every line of every archive file under `prefix`, files in name order.
    private func gunzipAll(_ directory: TemporaryDirectory, under prefix: String) -> [[UInt8]] {
        directory.files().filter { $0.hasPrefix(prefix) && $0.hasSuffix(".gz") }.sorted().flatMap { file -> [[UInt8]] in
            guard let bytes = TestGzip.decompressFile(directory.file(file)) else {
                Issue.record("\(file) is not complete, valid gzip")
                return []
            }
            return ndjsonLines(bytes)
        }
    }

    /// Writes `count` events from `sluice generate` (the binary built from this repository) to `name`.
    private func generate(_ count: Int, seed: Int, to name: String, in directory: TemporaryDirectory) throws {
        let result = try SluiceBinary.shell("$SLUICE generate --events \(count) --seed \(seed) > \(name)", in: directory.path)
        try #require(result.status == 0, "sluice generate: \(result.stderr)")
    }

    private func stageCounters(_ stats: [String: Any], _ name: String) throws -> [String: Int] {
        let stages = try #require(stats["stages"] as? [[String: Any]])
        let stage = try #require(stages.first { $0["stage"] as? String == name })
        return stage.compactMapValues { $0 as? Int }
    }

    @Test func everyEventHasItsSessionOrNoneNeverALaterOneAndTheAccountingBalances() throws {
        let directory = TemporaryDirectory()
        try generate(30000, seed: 5, to: "in.ndjson", in: directory)
        // Read as it comes, as a stream is (`--order window`), so the generated late events reach the stage late.
        let result = try SluiceBinary.run(["run", "--pipeline", repositoryRoot + "/pipelines/session.yaml", "--stats", "stats.json",
                                           "--order", "window", "in.ndjson"], in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!directory.files().contains { $0.hasSuffix(".part") })

        let archive = gunzipAll(directory, under: "out/archive/")
        var seqs: [String: [Int]] = [:]
        var owners: [String: String] = [:]
        var messageIDs: Set<String> = []
        var withoutSession = 0
        for line in archive {
            let event = json(line)
            let context = try #require(event["context"] as? [String: Any], "no context in \(String(decoding: line, as: UTF8.self))")
            guard let session = context["session"] as? [String: Any] else {
                // Only a late event older than every session its device remembers (counted below).
                withoutSession += 1
                continue
            }
            let id = try #require(session["id"] as? String)
            #expect(id.count == 32 && id.allSatisfy(\.isHexDigit))
            #expect((session["start_ms"] as? Int ?? 0) > 1_700_000_000_000)
            let timestamp = try #require(event["timestamp"] as? String)
            let time = try #require(EventTime.parseISO8601(timestamp))
            #expect((session["start_ms"] as? Int ?? .max) <= Int(time.milliseconds), "a session that began after the event")
            #expect((session["number"] as? Int ?? 0) >= 1)
            #expect((session["engagement_ms"] as? Int ?? 0) >= 1)
            #expect(session["authenticated"] is Bool)
            seqs[id, default: []].append(try #require(session["seq"] as? Int))
            let owner = (event["anonymousId"] as? String) ?? "user:" + (event["userId"] as? String ?? "")
            if let known = owners[id] { #expect(known == owner, "session \(id) shared by \(known) and \(owner)") }
            owners[id] = owner
            if let messageID = event["messageId"] as? String {
                #expect(messageIDs.insert(messageID).inserted, "\(messageID) delivered twice")
            }
        }
        // The archive keeps input order, so each session's seqs read 1, 2, 3, ...
        for (id, list) in seqs { #expect(list == Array(1...list.count), "session \(id): \(list)") }

        let stats = json(Array(try #require(FileManager.default.contents(atPath: directory.file("stats.json")))))
        #expect(stats["lines_in"] as? Int == 30000)
        #expect(stats["balanced"] as? Bool == true)
        #expect(stats["emitted"] as? Int == archive.count)
        let dedupe = try stageCounters(stats, "dedupe")
        let session = try stageCounters(stats, "session")
        let dropped = try #require(stats["dropped_by_reason"] as? [String: Int])
        #expect(dedupe["duplicates", default: 0] > 0)
        #expect(dropped["duplicate"] == dedupe["duplicates"])
        #expect(stats["emitted"] as? Int == 30000 - dedupe["duplicates", default: 0] - (stats["rejected"] as? Int ?? 0))
        let started = session.filter { $0.key.hasPrefix("started_") }.values.reduce(0, +)
        #expect(started == seqs.count)
        #expect(session["started_session_message", default: 0] > 0)
        #expect(session["late_events_placed", default: 0] > 0)
        #expect(session["late_events_too_late", default: 0] == withoutSession)
        #expect(session["evicted"] == 0)
    }

    @Test func oneInputOrTheSameSplitInTwoReadOneAfterTheOtherGiveTheSameArchive() throws {
        let directory = TemporaryDirectory()
        try generate(12000, seed: 8, to: "in.ndjson", in: directory)
        let split = try SluiceBinary.shell("head -n 5000 in.ndjson > a.ndjson && tail -n +5001 in.ndjson | gzip > b.ndjson.gz",
                                           in: directory.path)
        #expect(split.status == 0)
        let pipeline = repositoryRoot + "/pipelines/session.yaml"
        // In exact order (files), and read as they come (the one file as a stream, the two with --concat).
        let one = try SluiceBinary.run(["run", "--pipeline", pipeline, "--out", "one", "in.ndjson"], in: directory.path)
        let two = try SluiceBinary.run(["run", "--pipeline", pipeline, "--out", "two", "b.ndjson.gz", "a.ndjson"], in: directory.path)
        let oneAsRead = try SluiceBinary.run(["run", "--pipeline", pipeline, "--out", "one-as-read", "--order", "window", "in.ndjson"],
                                             in: directory.path)
        let twoAsRead = try SluiceBinary.run(["run", "--pipeline", pipeline, "--out", "two-as-read", "--concat", "a.ndjson", "b.ndjson.gz"],
                                             in: directory.path)
        #expect(one.status == 0 && two.status == 0 && oneAsRead.status == 0 && twoAsRead.status == 0,
                "\(one.stderr)\(two.stderr)\(oneAsRead.stderr)\(twoAsRead.stderr)")
        let first = gunzipAll(directory, under: "one/archive/")
        #expect(first.count > 11000)
        #expect(first == gunzipAll(directory, under: "two/archive/"))
        let asRead = gunzipAll(directory, under: "one-as-read/archive/")
        #expect(asRead.count > 11000)
        #expect(asRead == gunzipAll(directory, under: "two-as-read/archive/"))
    }

    @Test func theDedupePipelineDropsEachResentMessageOnce() throws {
        let directory = TemporaryDirectory()
        try generate(20000, seed: 3, to: "in.ndjson", in: directory)
        // The stream twice over: the second copy is all duplicates.
        #expect(try SluiceBinary.shell("cat in.ndjson in.ndjson > twice.ndjson", in: directory.path).status == 0)
        let result = try SluiceBinary.run(["run", "--pipeline", repositoryRoot + "/pipelines/dedupe.yaml", "--stats", "stats.json",
                                           "twice.ndjson"], in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        let stats = json(Array(try #require(FileManager.default.contents(atPath: directory.file("stats.json")))))
        let dedupe = try stageCounters(stats, "dedupe")
        let archive = gunzipAll(directory, under: "out/archive/")
        #expect(stats["balanced"] as? Bool == true)
        #expect(archive.count + dedupe["duplicates", default: 0] == 40000)
        #expect(dedupe["duplicates", default: 0] > 20000)
        #expect(dedupe["id_collisions"] == 0)
        let ids = archive.compactMap { json($0)["messageId"] as? String }
        #expect(Set(ids).count == ids.count)
    }
}
