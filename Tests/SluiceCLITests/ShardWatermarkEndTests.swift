import Foundation
import SluiceTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// End-to-end: one stream run as shards (one `sluice run` per partition of the
/// devices, as a Spark driver runs it), each with the same `--watermark-end`.
@Suite struct ShardWatermarkEndTests {
    /// Per-device stages in the recommended order (`session` before `timed`),
    /// timers that expire within the stream, and a provider beside the archive.
    private static let pipeline = """
        version: 1
        stages:
          - dedupe: {}
          - session: {}
          - timed: {expire_after: 2m}
        destinations:
          archive: {type: ndjson}
          amplitude: {type: amplitude, min_id_length: 5}
        """

    private func object(_ line: [UInt8]) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any]
    }

    /// Every record of every destination, by destination (`archive`, `rejects`, ...), sorted.
    private func records(_ directory: TemporaryDirectory, out: String) -> [String: [String]] {
        var result: [String: [String]] = [:]
        for (file, lines) in gunzipFiles(directory, under: out + "/") {
            let destination = String(file.dropFirst(out.count + 1).prefix { $0 != "/" })
            result[destination, default: []] += lines.map { String(decoding: $0, as: UTF8.self) }
        }
        return result.mapValues { $0.sorted() }
    }

    /// A reject record as written by a run over the whole stream: its source and line number there.
    private func asInStream(_ reject: String, lineNumbers: [Int]) -> String {
        var record = object(Array(reject.utf8)) ?? [:]
        let number = record["line_number"] as? Int ?? 0
        record["source"] = "stream.ndjson"
        record["line_number"] = number >= 1 && number <= lineNumbers.count ? lineNumbers[number - 1] : -1
        let data = try! JSONSerialization.data(withJSONObject: record, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    private func summary(_ directory: TemporaryDirectory, _ stats: String) throws -> [String: Any] {
        let data = try #require(FileManager.default.contents(atPath: directory.file(stats)))
        return try #require(object(Array(data)))
    }

    private func stage(_ directory: TemporaryDirectory, _ stats: String, _ name: String) throws -> [String: Any] {
        let summary = try summary(directory, stats)
        return try #require((summary["stages"] as? [[String: Any]])?.first { $0["stage"] as? String == name })
    }

    @Test func shardsSplitByDeviceWithTheSameWatermarkEndTogetherWriteExactlyTheRecordsOfOneRun() throws {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", Self.pipeline)
        let generated = try SluiceBinary.shell("$SLUICE generate --events 20000 --seed 7 --malformed 0.01 > generated.ndjson",
                                               in: directory.path)
        #expect(generated.status == 0)
        // In event-time order, as a collector's log is (a broken line stays after the
        // line before it): the generator interleaves devices whose clocks drift minutes
        // apart, more than `lateness`, so there one run's clock is not any shard's.
        let parsed = ndjsonLines(Array(FileManager.default.contents(atPath: directory.file("generated.ndjson"))!)).map { line in
            (line: line, fields: object(line))
        }
        var key = ""
        let keyed = parsed.map { entry -> (key: String, line: [UInt8], device: String?) in
            if let timestamp = entry.fields?["timestamp"] as? String, timestamp.count == 24 { key = timestamp }
            let device = entry.fields?["anonymousId"] as? String ?? entry.fields?["userId"] as? String
            return (key, entry.line, key.isEmpty ? nil : device)
        }
        let stream = keyed.enumerated().sorted { ($0.element.key, $0.offset) < ($1.element.key, $1.offset) }.map(\.element)
        directory.write("stream.ndjson", stream.flatMap { $0.line + [0x0A] })
        let end = try #require(stream.last?.key)

        // Shard "quiet": the devices whose last event comes before the median device's, so
        // that shard's own end is minutes before the stream's; shard "busy": all the others.
        var lastSeen: [String: String] = [:]
        for entry in stream { if let device = entry.device { lastSeen[device] = entry.key } }
        let median = lastSeen.values.sorted()[lastSeen.count / 2]
        var shards: [String: (lines: [[UInt8]], numbers: [Int])] = ["busy": ([], []), "quiet": ([], [])]
        for (index, entry) in stream.enumerated() {
            let shard = entry.device.map { lastSeen[$0]! < median } == true ? "quiet" : "busy"
            shards[shard]!.lines.append(entry.line)
            shards[shard]!.numbers.append(index + 1)
        }
        for (name, shard) in shards { directory.write("\(name).ndjson", shard.lines.flatMap { $0 + [0x0A] }) }
        let quietEnd = try #require(stream.last { $0.device.map { lastSeen[$0]! < median } == true }?.key)
        #expect(quietEnd < end)

        // The same TIME as RFC 3339 and as epoch milliseconds.
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let endMilliseconds = String(Int64((try #require(formatter.date(from: end)).timeIntervalSince1970 * 1000).rounded()))
        let runs: [(out: String, input: String, end: String?)] = [
            ("whole", "stream.ndjson", end), ("busy", "busy.ndjson", end), ("quiet", "quiet.ndjson", endMilliseconds),
            ("quiet-alone", "quiet.ndjson", nil),
        ]
        for run in runs {
            let result = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "--out", run.out, "--stats", run.out + ".json"]
                + (run.end.map { ["--watermark-end", $0] } ?? []) + [run.input], in: directory.path)
            #expect(result.status == 0, "\(run.out): \(result.stderr)")
            #expect(!result.stderr.contains("warning"), "\(run.out): \(result.stderr)")
        }

        let whole = records(directory, out: "whole")
        let busy = records(directory, out: "busy"), quiet = records(directory, out: "quiet")
        #expect(Set(whole.keys) == ["archive", "amplitude", "rejects"])
        for destination in ["archive", "amplitude"] {
            let together = ((busy[destination] ?? []) + (quiet[destination] ?? [])).sorted()
            #expect(together.count == whole[destination]?.count, "\(destination)")
            #expect(together == whole[destination], "\(destination): the shards' records are the whole run's")
        }
        let rejects = ((busy["rejects"] ?? []).map { asInStream($0, lineNumbers: shards["busy"]!.numbers) }
            + (quiet["rejects"] ?? []).map { asInStream($0, lineNumbers: shards["quiet"]!.numbers) }).sorted()
        #expect(rejects == (whole["rejects"] ?? []).map { asInStream($0, lineNumbers: Array(1...stream.count)) }.sorted())
        #expect(!rejects.isEmpty)

        // Not by chance: alone, the quiet shard ends at its own latest event, where
        // timers the stream's end expires are still open and let out as end_of_input.
        let ended = try stage(directory, "quiet.json", "timed"), alone = try stage(directory, "quiet-alone.json", "timed")
        #expect((alone["abandoned_end_of_input"] as? Int ?? 0) > (ended["abandoned_end_of_input"] as? Int ?? 0))
        #expect((ended["abandoned_expired"] as? Int ?? 0) > (alone["abandoned_expired"] as? Int ?? 0))
        #expect(records(directory, out: "quiet-alone")["archive"] != quiet["archive"])
    }

    @Test func aWatermarkEndEarlierThanTheInputIsWarnedAboutAndTheInputsOwnEndHolds() throws {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", "version: 1\nstages:\n  - timed: {expire_after: 1m, lateness: 0s}\ndestinations:\n  archive: {type: ndjson}\n")
        directory.write("in.ndjson", [
            #"{"type":"track","event":"upload","timed":"start","anonymousId":"d1","timestamp":"2026-11-20T08:00:00Z"}"#,
            #"{"type":"track","event":"tap","anonymousId":"d2","timestamp":"2026-11-20T08:00:30Z"}"#,
        ].joined(separator: "\n") + "\n")
        let result = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "--stats", "s.json", "--watermark-end", "2026-11-20T07:00:00Z",
                                           "in.ndjson"], in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("sluice: warning: --watermark-end 2026-11-20T07:00:00.000Z is earlier than the input's latest event time 2026-11-20T08:00:30.000Z"),
                "\(result.stderr)")
        let timed = try stage(directory, "s.json", "timed")
        #expect(timed["abandoned_end_of_input"] as? Int == 1 && timed["abandoned_expired"] as? Int == 0)

        let later = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "--out", "o2", "--stats", "s2.json",
                                          "--watermark-end", "2026-11-20T08:01:00.001Z", "in.ndjson"], in: directory.path)
        #expect(later.status == 0 && !later.stderr.contains("warning"), "\(later.stderr)")
        #expect(try stage(directory, "s2.json", "timed")["abandoned_expired"] as? Int == 1)
    }

    /// Two timers, started at 08:00 and 08:20 (expire_after 30m, lateness 5m: due 08:30 and 08:50), neither due within the input.
    private static let timers = [
        #"{"type":"track","event":"upload","timed":"start","timerId":"u1","anonymousId":"d1","timestamp":"2026-11-20T08:00:00Z"}"#,
        #"{"type":"track","event":"upload","timed":"start","timerId":"u2","anonymousId":"d1","timestamp":"2026-11-20T08:20:00Z"}"#,
    ].joined(separator: "\n") + "\n"

    @Test func withStateWhatTheEndExpiresIsLetOutAndOnlyWhatIsStillOpenThereIsCarried() throws {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", "version: 1\nstages:\n  - timed: {}\ndestinations:\n  archive: {type: ndjson}\n")
        directory.write("hour-08.ndjson", Self.timers)
        // The shards' end at 08:40 (watermark 08:35): the 08:00 timer (due 08:30) is past it, the 08:20 one (due 08:50) is not.
        let result = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "--state", "shard.state", "--stats", "s.json",
                                           "--watermark-end", "2026-11-20T08:40:00Z", "hour-08.ndjson"], in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        let stats = try summary(directory, "s.json")
        #expect(stats["carried"] as? Int == 1 && stats["emitted"] as? Int == 1 && stats["balanced"] as? Bool == true)
        let archive = gunzipFiles(directory, under: "out/archive/").flatMap(\.lines).compactMap(object)
        #expect(archive.map { "\($0["timerId"] ?? "") \($0["abandon_reason"] ?? "")" } == ["u1 expired"])
    }

    @Test func aRunStoppedBySigtermEndsAsAnyStoppedRunTheWatermarkEndIsForAnInputReadToItsEnd() throws {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", "version: 1\nstages:\n  - timed: {}\ndestinations:\n  archive: {type: ndjson}\n")
        let sluice = try SluiceProcess(["run", "--pipeline", "p.yaml", "--flush-interval", "100ms", "--metrics", "m.prom",
                                        "--stats", "s.json", "--watermark-end", "2026-11-21T00:00:00Z"], in: directory.path)
        sluice.send(Array(Self.timers.utf8))
        #expect(waitUntil(timeout: 30) { linesIn(metrics: directory.file("m.prom")) >= 2 })
        sluice.signal(SIGTERM)
        #expect(sluice.waitForExit(timeout: 30) == 143, "\(sluice.stderr)")
        let stats = try summary(directory, "s.json")
        let timed = try #require((stats["stages"] as? [[String: Any]])?.first)
        #expect(timed["abandoned_end_of_input"] as? Int == 2 && timed["abandoned_expired"] as? Int == 0)

        // Read to its end, the same input meets the end: both timers expire by midnight.
        directory.write("in.ndjson", Self.timers)
        let ended = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "--out", "o2", "--stats", "s2.json",
                                          "--watermark-end", "2026-11-21T00:00:00Z", "in.ndjson"], in: directory.path)
        #expect(ended.status == 0, "\(ended.stderr)")
        #expect(try stage(directory, "s2.json", "timed")["abandoned_expired"] as? Int == 2)
    }

    @Test(arguments: ["yesterday", "2026-11-20T08:00:00", "1795161600000.5", "17951616000000000"])
    func aWatermarkEndThatIsNotATimeIsAUsageErrorAndNothingRuns(_ text: String) throws {
        let directory = TemporaryDirectory()
        directory.write("in.ndjson", #"{"type":"track","event":"e","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z"}"# + "\n")
        let result = try SluiceBinary.run(["run", "--watermark-end", text, "in.ndjson"], in: directory.path)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("is not a time: give RFC 3339 with a zone"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out")))
    }
}
