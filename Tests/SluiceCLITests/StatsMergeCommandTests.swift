import Foundation
import SluiceTestSupport
import Testing

/// End-to-end: `sluice stats merge` over the `--stats` files of real shard runs.
@Suite struct StatsMergeCommandTests {
    /// Stages that look at one event at a time (and `dedupe` without a window,
    /// whose re-sends come from the same device), so splitting the devices
    /// changes no result; destinations that refuse, change and rotate.
    private static let pipeline = """
        version: 1
        stages:
          - plan:
              on_violation: flag
              unplanned_events: pass
              events:
                feedback_sent:
                  properties: {rating: integer, text: string}
          - dedupe: {}
          - privacy: {}
        destinations:
          archive: {type: ndjson}
          mixpanel: {type: mixpanel, events: ["*", "!debug_*"]}
          amplitude: {type: amplitude, min_id_length: 5}
          ga4: {type: ga4, stream: app, names: normalize}
        """

    private func object(_ data: Data?) -> [String: Any] {
        data.flatMap { (try? JSONSerialization.jsonObject(with: $0)) as? [String: Any] } ?? [:]
    }

    private func stats(_ directory: TemporaryDirectory, _ name: String) -> [String: Any] {
        object(FileManager.default.contents(atPath: directory.file(name)))
    }

    /// Every leaf of a JSON value by its path (`destinations[0].files`, `stages[1].high_water`).
    private func leaves(_ value: Any, _ path: String = "") -> [String: String] {
        switch value {
        case let object as [String: Any]:
            return object.reduce(into: [:]) { $0.merge(leaves($1.value, path.isEmpty ? $1.key : path + "." + $1.key)) { a, _ in a } }
        case let array as [Any]:
            return array.enumerated().reduce(into: [:]) { $0.merge(leaves($1.element, "\(path)[\($1.offset)]")) { a, _ in a } }
        default:
            return [path: "\(value)"]
        }
    }

    /// What one process owns rather than what the data holds: files and gzip bytes
    /// (each shard writes its own), peaks in one process, and times.
    private func isPerProcess(_ path: String) -> Bool {
        path.hasSuffix(".files") || path.hasSuffix(".compressed_bytes") || path == "reject_files"
            || path.hasSuffix("high_water") || path == "elapsed_seconds"
    }

    @Test func statsOfShardRunsMergedCountWhatOneRunOverTheSameInputsCounts() throws {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", Self.pipeline)
        let generated = try SluiceBinary.shell("$SLUICE generate --events 12000 --seed 11 --malformed 0.01 > day.ndjson", in: directory.path)
        #expect(generated.status == 0)
        // Split by device (a hash of it, as a partitioner does); broken lines go by their bytes.
        var shards: [[UInt8]] = [[], []]
        for line in ndjsonLines(Array(FileManager.default.contents(atPath: directory.file("day.ndjson"))!)) {
            let fields = object(Data(line))
            let device = Array(((fields["anonymousId"] as? String) ?? (fields["userId"] as? String) ?? "").utf8)
            let hash = (device.isEmpty ? line : device).reduce(UInt32(2_166_136_261)) { ($0 ^ UInt32($1)) &* 16_777_619 }
            shards[Int(hash % 2)] += line + [0x0A]
        }
        directory.write("shard-0.ndjson", shards[0])
        directory.write("shard-1.ndjson", shards[1])

        // One run over the shards' inputs (in exact order, as each shard reads its own).
        let whole = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "--out", "whole", "--stats", "whole.json", "--metrics", "whole.prom",
                                          "shard-0.ndjson", "shard-1.ndjson"], in: directory.path)
        #expect(whole.status == 0, "\(whole.stderr)")
        for index in 0..<2 {
            let run = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "--out", "shard-\(index)", "--stats", "s\(index).json",
                                            "shard-\(index).ndjson"], in: directory.path)
            #expect(run.status == 0, "\(run.stderr)")
        }
        let merge = try SluiceBinary.run(["stats", "merge", "s0.json", "s1.json", "--out", "merged.json", "--metrics", "merged.prom"],
                                         in: directory.path)
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(merge.stderr.contains("sluice: 2 stats merged: 12000 lines in:"), "\(merge.stderr)")

        // A run's version, exit code and times are its process's: a merge has none of them.
        let processKeys: Set<String> = ["version", "exit_code", "started_at", "ended_at", "last_success_at"]
        let expected = leaves(stats(directory, "whole.json")).filter { !processKeys.contains($0.key) }
        let merged = leaves(stats(directory, "merged.json"))
        #expect(processKeys.isDisjoint(with: merged.keys))
        let shard = [leaves(stats(directory, "s0.json")), leaves(stats(directory, "s1.json"))]
        // The finished files are each shard's own, listed one shard after the other.
        let isFileList = { (path: String) in path.hasPrefix("files[") }
        let shardFiles = shard[0].filter { isFileList($0.key) }.count + shard[1].filter { isFileList($0.key) }.count
        #expect(merged.filter { isFileList($0.key) }.count == shardFiles && shardFiles > 0)
        #expect(merged.filter { $0.key.hasPrefix("files[") && $0.key.hasSuffix(".path") }.values.allSatisfy { $0.hasPrefix("shard-") })
        #expect(Set(merged.keys.filter { !isFileList($0) }) == Set(expected.keys.filter { !isFileList($0) }))
        #expect(expected.count > 120 && expected["rejected"] != "0" && expected["dropped"] != "0")
        for path in expected.keys.sorted() where !isFileList(path) {
            if isPerProcess(path) {
                let values = shard.map { Double($0[path] ?? "") ?? -1 }
                let rule = path.hasSuffix("high_water") || path == "elapsed_seconds" ? values.max()! : values.reduce(0, +)
                #expect(Double(merged[path] ?? "") == rule, "\(path): the shards' \(values) merged")
            } else {
                #expect(merged[path] == expected[path], "\(path): merged \(merged[path] ?? "none"), one run \(expected[path] ?? "none")")
            }
        }

        // The textfile has the shape of one run's, with the same counts.
        let wholeSamples = prometheusSamples(directory.file("whole.prom")), mergedSamples = prometheusSamples(directory.file("merged.prom"))
        // The times of a run are its process's: a merge has none of them.
        let ofTheProcess = wholeSamples.keys.filter { $0.hasSuffix("_timestamp_seconds") }
        #expect(Set(mergedSamples.keys) == Set(wholeSamples.keys).subtracting(ofTheProcess))
        for (name, value) in wholeSamples where !["files_total", "compressed_bytes_total", "high_water", "elapsed_seconds", "timestamp"]
            .contains(where: name.contains) {
            #expect(mergedSamples[name] == value, "\(name)")
        }
        #expect(mergedSamples["sluice_run_finished"] == 1 && mergedSamples["sluice_run_exit_code"] == 0)
    }

    @Test func aShardThatStoppedOnAnErrorIsNamedAndTheMergeExits65WithTheErrorInIt() throws {
        let directory = TemporaryDirectory()
        directory.write("in.ndjson", #"{"type":"track","event":"e","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z"}"# + "\n")
        #expect(try SluiceBinary.run(["run", "--out", "a", "--stats", "a.json", "in.ndjson"], in: directory.path).status == 0)
        // The process's own memory opens for reading but reading it from address 0 fails (EIO).
        let failed = try SluiceBinary.run(["run", "--out", "b", "--stats", "b.json", "--concat", "in.ndjson", "/proc/self/mem"],
                                          in: directory.path)
        #expect(failed.status == 74, "\(failed.stderr)")

        let merge = try SluiceBinary.run(["stats", "merge", "a.json", "b.json", "--out", "merged.json"], in: directory.path)
        #expect(merge.status == 65)
        #expect(merge.stderr.contains("sluice: error: b.json: the run stopped on an error: read error on /proc/self/mem"), "\(merge.stderr)")
        #expect(merge.stderr.contains("the merged stats are written, but 1 of the 2 shards did not end cleanly"), "\(merge.stderr)")
        let merged = stats(directory, "merged.json")
        #expect(merged["lines_in"] as? Int == 2 && (merged["error"] as? String)?.hasPrefix("b.json: read error on /proc/self/mem") == true)
    }

    @Test func aShardWhoseLinesDoNotAddUpIsNamedWithItsNumbersAndTheMergeExits65() throws {
        let directory = TemporaryDirectory()
        directory.write("in.ndjson", String(repeating: #"{"type":"track","event":"e","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z"}"# + "\n", count: 5))
        #expect(try SluiceBinary.run(["run", "--stats", "a.json", "in.ndjson"], in: directory.path).status == 0)
        // What a run cut short would leave: two lines neither emitted nor settled.
        let text = String(decoding: FileManager.default.contents(atPath: directory.file("a.json"))!, as: UTF8.self)
        directory.write("b.json", text.replacingOccurrences(of: #""emitted":5,"#, with: #""emitted":3,"#)
            .replacingOccurrences(of: #""in_flight":0,"balanced":true"#, with: #""in_flight":2,"balanced":false"#))

        let merge = try SluiceBinary.run(["stats", "merge", "a.json", "b.json"], in: directory.path)
        #expect(merge.status == 65)
        #expect(merge.stderr.contains("b.json: not balanced: lines_in 5 + carried_in 0 = 5, but emitted 3 + merged 0 + rejected 0 + dropped 0 + carried 0 = 3 (2 in flight)"),
                "\(merge.stderr)")
        let merged = object(Data(merge.stdout))
        #expect(merged["in_flight"] as? Int == 2 && merged["balanced"] as? Bool == false)
    }

    @Test func filesThatCannotBeMergedExit65AndNothingIsWritten() throws {
        let directory = TemporaryDirectory()
        directory.write("in.ndjson", #"{"type":"track","event":"e","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z"}"# + "\n")
        directory.write("timed.yaml", "version: 1\nstages:\n  - timed: {}\ndestinations:\n  archive: {type: ndjson}\n")
        #expect(try SluiceBinary.run(["run", "--stats", "a.json", "in.ndjson"], in: directory.path).status == 0)
        #expect(try SluiceBinary.run(["run", "--pipeline", "timed.yaml", "--stats", "t.json", "in.ndjson"], in: directory.path).status == 0)
        directory.write("summary.txt", "sluice: 1 lines in\n")

        let other = try SluiceBinary.run(["stats", "merge", "a.json", "t.json", "--out", "m1.json"], in: directory.path)
        #expect(other.status == 65)
        #expect(other.stderr.contains("the stats are not of one pipeline, so they do not add up to one run: a.json has the stages [], t.json [timed]"),
                "\(other.stderr)")
        let notStats = try SluiceBinary.run(["stats", "merge", "a.json", "summary.txt", "--out", "m2.json"], in: directory.path)
        #expect(notStats.status == 65)
        #expect(notStats.stderr.contains("summary.txt is not a sluice run --stats file: not JSON"), "\(notStats.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("m1.json")) && !FileManager.default.fileExists(atPath: directory.file("m2.json")))
    }

    @Test func theSameShardOrTheSameFileTwiceIsRefusedWith65AndNothingIsWritten() throws {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", """
            version: 1
            destinations:
              archive: {type: ndjson, path: "{dest}/{shard}-{seq}.ndjson.gz"}
            rejects: {path: "rejects/{shard}-{seq}.ndjson.gz"}
            """)
        directory.write("a.ndjson", #"{"type":"track","event":"e","anonymousId":"d1","timestamp":"2026-11-20T08:00:00Z"}"# + "\n")
        directory.write("b.ndjson", #"{"type":"track","event":"e","anonymousId":"d2","timestamp":"2026-11-20T08:00:00Z"}"# + "\n")
        // Shard 3 run twice (an attempt and its retry), and shard 4 once.
        for (stats, shard, input) in [("s3.json", "3", "a.ndjson"), ("s3-retry.json", "3", "a.ndjson"), ("s4.json", "4", "b.ndjson")] {
            let run = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "--shard", shard, "--out", "out-\(stats)", "--stats", stats, input],
                                           in: directory.path)
            #expect(run.status == 0, "\(run.stderr)")
        }
        #expect(stats(directory, "s3.json")["shard"] as? String == "3")

        let sameShard = try SluiceBinary.run(["stats", "merge", "s3.json", "s4.json", "s3-retry.json", "--out", "m1.json"], in: directory.path)
        #expect(sameShard.status == 65)
        #expect(sameShard.stderr.contains("sluice: error: s3.json and s3-retry.json are both the stats of shard 3: merged, its lines would count twice"),
                "\(sameShard.stderr)")
        let sameFile = try SluiceBinary.run(["stats", "merge", "s4.json", "s4.json", "--out", "m2.json"], in: directory.path)
        #expect(sameFile.status == 65)
        #expect(sameFile.stderr.contains("sluice: error: s4.json is given twice: merged, its lines would count twice"), "\(sameFile.stderr)")
        // A run without --shard names none: a copy of its file is still the same stats.
        #expect(try SluiceBinary.run(["run", "--out", "plain", "--stats", "plain.json", "a.ndjson"], in: directory.path).status == 0)
        #expect(stats(directory, "plain.json")["shard"] == nil)
        #expect(try SluiceBinary.shell("cp plain.json copy.json", in: directory.path).status == 0)
        let copy = try SluiceBinary.run(["stats", "merge", "plain.json", "copy.json", "--out", "m3.json"], in: directory.path)
        #expect(copy.status == 65)
        #expect(copy.stderr.contains("plain.json and copy.json are the same stats (the same bytes)"), "\(copy.stderr)")
        for name in ["m1.json", "m2.json", "m3.json"] { #expect(!FileManager.default.fileExists(atPath: directory.file(name))) }

        // Each shard once merges, the job's wall time given.
        let merged = try SluiceBinary.run(["stats", "merge", "s3.json", "s4.json", "--out", "m.json", "--metrics", "m.prom",
                                           "--elapsed-seconds", "12.5"], in: directory.path)
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(stats(directory, "m.json")["lines_in"] as? Int == 2 && stats(directory, "m.json")["shard"] == nil)
        #expect(stats(directory, "m.json")["elapsed_seconds"] as? Double == 12.5)
        #expect(prometheusSamples(directory.file("m.prom"))["sluice_run_elapsed_seconds"] == 12.5)
    }

    @Test func aSendStatsFileIsNamedAsOneAndNotMerged() throws {
        let fixture = try SendFixture(events: 200)
        let send = try fixture.send(["--stats", "send.json"])
        #expect(send.status == 0, "\(send.stderr)")
        let run = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "--out", "again", "--stats", "run.json", "in.ndjson"],
                                       in: fixture.directory.path)
        #expect(run.status == 0, "\(run.stderr)")

        let merge = try SluiceBinary.run(["stats", "merge", "run.json", "send.json", "--out", "m.json"], in: fixture.directory.path)
        #expect(merge.status == 65)
        #expect(merge.stderr.contains("sluice: error: send.json is the --stats file of sluice send (what was sent to the providers), "
            + "not of sluice run: stats merge adds up the --stats files of sluice run"), "\(merge.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.file("m.json")))
    }

    @Test func aMissingFileExits66AnOutputThatCannotBeWrittenExits73AndNoFileIsAUsageError() throws {
        let directory = TemporaryDirectory()
        directory.write("in.ndjson", #"{"type":"track","event":"e","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z"}"# + "\n")
        #expect(try SluiceBinary.run(["run", "--stats", "a.json", "in.ndjson"], in: directory.path).status == 0)
        directory.write("file", "x")

        let missing = try SluiceBinary.run(["stats", "merge", "a.json", "nope.json"], in: directory.path)
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("cannot open input nope.json"), "\(missing.stderr)")
        let unwritable = try SluiceBinary.run(["stats", "merge", "a.json", "--out", "file/merged.json"], in: directory.path)
        #expect(unwritable.status == 73)
        #expect(unwritable.stderr.contains("sluice: error: cannot write --out file/merged.json: Not a directory"), "\(unwritable.stderr)")
        #expect(try SluiceBinary.run(["stats", "merge"], in: directory.path).status == 64)
    }
}
