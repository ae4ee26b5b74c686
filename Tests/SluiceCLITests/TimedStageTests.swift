import Foundation
import SluiceTestSupport
import Testing

/// End-to-end: `pipelines/timed.yaml` on a generated stream, the archive read back.
@Suite struct TimedStageTests {
    private func json(_ bytes: [UInt8]) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] ?? [:]
    }

    private func gunzipAll(_ directory: TemporaryDirectory, under prefix: String) -> [[UInt8]] {
        directory.files().filter { $0.hasPrefix(prefix) && $0.hasSuffix(".gz") }.sorted().flatMap { file -> [[UInt8]] in
            guard let bytes = TestGzip.decompressFile(directory.file(file)) else {
                Issue.record("\(file) is not complete, valid gzip")
                return []
            }
            return ndjsonLines(bytes)
        }
    }

    /// Writes `count` generated events to `in.ndjson`.
    private func generate(_ count: Int, seed: Int, in directory: TemporaryDirectory) throws {
        let result = try SluiceBinary.shell("$SLUICE generate --events \(count) --seed \(seed) > in.ndjson", in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
    }

    private func stats(_ directory: TemporaryDirectory) throws -> [String: Any] {
        json(Array(try #require(FileManager.default.contents(atPath: directory.file("stats.json")))))
    }

    private func timedCounters(_ stats: [String: Any]) throws -> [String: Int] {
        let stages = try #require(stats["stages"] as? [[String: Any]])
        let timed = try #require(stages.first { $0["stage"] as? String == "timed" })
        return timed.compactMapValues { $0 as? Int }
    }

    @Test func evictionsAtACapAreSaidOnStderrOncePerRun() throws {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", "version: 1\nstages:\n  - timed: {max_open: 1}\ndestinations:\n  archive: {type: ndjson}\n")
        let starts = (1...3).map { #"{"type":"track","event":"play","timed":"start","timerId":"t\#($0)","anonymousId":"d","messageId":"m\#($0)","timestamp":"2026-11-20T08:00:0\#($0)Z"}"# }
        directory.write("in.ndjson", starts.joined(separator: "\n") + "\n")
        let result = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "--stats", "stats.json", "in.ndjson"], in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try timedCounters(stats(directory))["abandoned_evicted"] == 2)
        let warnings = result.stderr.split(separator: "\n").filter { $0.contains("reached its caps") }
        #expect(warnings.count == 1, "\(result.stderr)")
        #expect(warnings.first?.contains("the timed stage reached its caps and let the oldest entries go (abandoned_evicted 2)") == true,
                "\(result.stderr)")
    }

    @Test func completedEventsHaveADurationAndTheAccountingBalances() throws {
        let directory = TemporaryDirectory()
        try generate(30000, seed: 11, in: directory)
        let result = try SluiceBinary.run(["run", "--pipeline", repositoryRoot + "/pipelines/timed.yaml", "--stats", "stats.json", "in.ndjson"],
                                          in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")

        var completed = 0
        var abandoned: [String: Int] = [:]
        var orphans = 0
        let archive = gunzipAll(directory, under: "out/archive/")
        for line in archive {
            let event = json(line)
            switch event["timed"] as? String {
            case "completed":
                completed += 1
                let properties = try #require(event["properties"] as? [String: Any])
                let duration = try #require(properties["duration_ms"] as? Int, "duration_ms is an integer")
                #expect(duration >= 0)
                let startedAt = try #require(event["started_at"] as? String)
                let timestamp = try #require(event["timestamp"] as? String)
                #expect(startedAt <= timestamp, "started_at \(startedAt) after timestamp \(timestamp)")
            case "abandoned":
                abandoned[event["abandon_reason"] as? String ?? "none", default: 0] += 1
            case "orphan_stop":
                orphans += 1
                #expect((event["properties"] as? [String: Any])?["duration_ms"] == nil)
            case "start", "stop":
                Issue.record("a timed message came out unpaired and unmarked: \(String(decoding: line, as: UTF8.self))")
            default:
                break
            }
        }

        let stats = try stats(directory)
        let linesIn = try #require(stats["lines_in"] as? Int)
        let emitted = try #require(stats["emitted"] as? Int)
        let merged = try #require(stats["merged"] as? Int)
        let rejected = try #require(stats["rejected"] as? Int)
        let dropped = try #require(stats["dropped"] as? Int)
        #expect(linesIn == 30000)
        #expect(linesIn == emitted + merged + rejected + dropped)
        #expect(stats["balanced"] as? Bool == true)
        #expect(archive.count == emitted)

        let counters = try timedCounters(stats)
        #expect(completed > 100, "the generated stream holds timed events")
        #expect(counters["completed"] == completed)
        #expect(merged == completed)
        #expect(counters["orphan_stops"] == orphans)
        #expect(orphans > 0)
        for reason in ["expired", "evicted", "end_of_input", "restarted"] {
            #expect(counters["abandoned_" + reason] == abandoned[reason, default: 0], "abandoned_\(reason)")
        }
        #expect(abandoned.values.reduce(0, +) > 0)
        #expect((counters["open_high_water"] ?? 0) > 0)
    }

    /// Mixpanel takes a completed timed event's duration as `$duration`, in seconds.
    @Test func aProviderThatTakesDurationsGetsOneForEveryCompletedEvent() throws {
        let directory = TemporaryDirectory()
        try generate(5000, seed: 8, in: directory)
        directory.write("p.yaml", """
        version: 1
        stages:
          - timed: {}
        destinations:
          archive: {type: ndjson}
          mixpanel: {type: mixpanel}
        """)
        let result = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "--stats", "stats.json", "in.ndjson"], in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        var durations = 0
        for record in gunzipAll(directory, under: "out/mixpanel/").map(json) {
            guard let duration = (record["properties"] as? [String: Any])?["$duration"] else { continue }
            durations += 1
            #expect((duration as? Double ?? -1) >= 0)
        }
        let completed = try timedCounters(try stats(directory))["completed"] ?? 0
        #expect(completed > 0)
        #expect(durations == completed)
    }

    @Test func droppedStartsAndRejectedOrphanStopsAreCountedByReason() throws {
        let directory = TemporaryDirectory()
        try generate(5000, seed: 5, in: directory)
        directory.write("p.yaml", """
        version: 1
        stages:
          - timed: {on_abandoned: drop, on_orphan_stop: reject, max_open: 50}
        destinations:
          archive: {type: ndjson}
        """)
        let result = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "--stats", "stats.json", "in.ndjson"], in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        let stats = try stats(directory)
        let counters = try timedCounters(stats)
        let droppedByReason = try #require(stats["dropped_by_reason"] as? [String: Int])
        let rejectedByReason = try #require(stats["rejected_by_reason"] as? [String: Int])
        let abandoned = ["expired", "evicted", "end_of_input", "restarted"].reduce(0) { $0 + (counters["abandoned_" + $1] ?? 0) }
        #expect(abandoned > 0)
        #expect(droppedByReason["abandoned_timer"] == abandoned)
        #expect(rejectedByReason["orphan_stop"] == counters["orphan_stops"])
        #expect((counters["open_high_water"] ?? 0) <= 50)
        #expect(stats["balanced"] as? Bool == true)

        let rejects = gunzipAll(directory, under: "out/rejects/").map(json)
        #expect(rejects.count == counters["orphan_stops"])
        #expect(rejects.allSatisfy { $0["stage"] as? String == "timed" && $0["reason"] as? String == "orphan_stop" })
        for line in gunzipAll(directory, under: "out/archive/") {
            let timed = json(line)["timed"] as? String
            #expect(timed != "abandoned" && timed != "orphan_stop" && timed != "start" && timed != "stop")
        }
    }
}
