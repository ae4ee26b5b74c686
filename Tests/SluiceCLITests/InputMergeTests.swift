import Foundation
import SluiceTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// End-to-end: several inputs merged into one stream in event time (the logs
/// of several servers), `--concat`, directories, stdin among files, and a
/// shutdown while lines wait in the reorder buffer.
@Suite struct InputMergeTests {
    private static let cron = repositoryRoot + "/pipelines/cron.yaml"

    private func json(_ bytes: [UInt8]) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] ?? [:]
    }

    private func stats(_ directory: TemporaryDirectory, _ name: String) throws -> [String: Any] {
        json(Array(try #require(FileManager.default.contents(atPath: directory.file(name)))))
    }

    /// A stage's counters from a stats file.
    private func counters(_ stats: [String: Any], stage: String) -> [String: Int] {
        let found = (stats["stages"] as? [[String: Any]])?.first { $0["stage"] as? String == stage } ?? [:]
        return found.compactMapValues { $0 as? Int }
    }

    /// The `timestamp` text of a generated line: fixed width and in UTC, so it sorts as the time does.
    private func timestamp(_ line: [UInt8]) -> String {
        json(line)["timestamp"] as? String ?? ""
    }

    private func write(_ lines: some Sequence<[UInt8]>, to name: String, in directory: TemporaryDirectory) {
        directory.write(name, lines.flatMap { $0 + [0x0A] })
    }

    /// Splits `lines` round-robin into `count` files `server-N.ndjson` (line i to file i mod count),
    /// and writes the stream the merge must give back: every line ordered by event time,
    /// then file, then line within the file.
    private func splitRoundRobin(_ lines: [[UInt8]], into count: Int, mergedAs name: String, in directory: TemporaryDirectory) -> [String] {
        let files = (0..<count).map { "server-\($0).ndjson" }
        for (index, file) in files.enumerated() {
            write(stride(from: index, to: lines.count, by: count).map { lines[$0] }, to: file, in: directory)
        }
        let keyed = lines.indices.map { (time: timestamp(lines[$0]), file: $0 % count, line: $0 / count, bytes: lines[$0]) }
        let merged = keyed.sorted { a, b in
            a.time != b.time ? a.time < b.time : a.file != b.file ? a.file < b.file : a.line < b.line
        }
        write(merged.map(\.bytes), to: name, in: directory)
        return files
    }

    /// Runs the cron pipeline (dedupe, timed, session) over one stream, and over the same lines as 8 files,
    /// both read as they come and merged through the reorder window (`--order window`).
    private func runBoth(single: String, files: [String], extra: [String] = [], in directory: TemporaryDirectory) throws {
        let one = try SluiceBinary.run(["run", "--pipeline", Self.cron, "--out", "single", "--stats", "single.json", "--order", "window", single],
                                       in: directory.path)
        let merged = try SluiceBinary.run(["run", "--pipeline", Self.cron, "--out", "merged", "--stats", "merged.json", "--order", "window"]
                                            + extra + files, in: directory.path)
        #expect(one.status == 0 && merged.status == 0, "\(one.stderr)\(merged.stderr)")
    }

    /// The decompressed archive files of both runs are the same, file by file.
    private func expectSameArchive(_ directory: TemporaryDirectory) {
        let single = gunzipFiles(directory, under: "single/archive/")
        let merged = gunzipFiles(directory, under: "merged/archive/")
        #expect(single.map { $0.file.dropFirst("single".count) } == merged.map { $0.file.dropFirst("merged".count) })
        #expect(single.reduce(0) { $0 + $1.lines.count } > 10_000)
        for (a, b) in zip(single, merged) where a.lines != b.lines {
            let index = zip(a.lines, b.lines).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.lines.count, b.lines.count)
            Issue.record("\(a.file) differs from record \(index) on (\(a.lines.count) vs \(b.lines.count) records)")
        }
    }

    @Test func eightServerLogsEachInEventTimeOrderGiveTheRecordsAndPairingsOfTheWholeStream() throws {
        let directory = TemporaryDirectory()
        #expect(try SluiceBinary.shell("$SLUICE generate --events 12000 --seed 11 --late 0.01 --duplicates 0.01 > day.ndjson",
                                       in: directory.path).status == 0)
        // The day's lines in event time, dealt to 8 servers: each server's log is in time order.
        let day = ndjsonLines(Array(FileManager.default.contents(atPath: directory.file("day.ndjson"))!))
        let inTime = day.indices.sorted { (timestamp(day[$0]), $0) < (timestamp(day[$1]), $1) }.map { day[$0] }
        let files = splitRoundRobin(inTime, into: 8, mergedAs: "whole.ndjson", in: directory)
        try runBoth(single: "whole.ndjson", files: files, in: directory)
        expectSameArchive(directory)
        let single = try stats(directory, "single.json"), merged = try stats(directory, "merged.json")
        #expect(counters(merged, stage: "timed") == counters(single, stage: "timed"), "the same timers pair, expire and orphan")
        #expect(counters(merged, stage: "timed")["completed", default: 0] > 500)
        #expect(counters(merged, stage: "session") == counters(single, stage: "session"))
        for key in ["lines_in", "emitted", "merged", "rejected", "dropped"] { #expect(merged[key] as? Int == single[key] as? Int, "\(key)") }
        let reorder = try #require(merged["reorder"] as? [String: Any])
        #expect(reorder["inputs"] as? Int == 8)
        #expect(reorder["window_ms"] as? Int == 300_000, "the largest lateness of the stages (cron.yaml: 5m)")
        #expect(reorder["out_of_order"] as? Int == 0 && reorder["let_out_full"] as? Int == 0 && reorder["held"] as? Int == 0)
        #expect(merged["balanced"] as? Bool == true)
        let inputs = try #require(merged["inputs"] as? [[String: Any]])
        #expect(inputs.map { $0["path"] as? String ?? "" } == files)
        #expect(inputs.reduce(0) { $0 + ($1["lines"] as? Int ?? 0) } == day.count)
        let sizes = try files.map { try #require(FileManager.default.attributesOfItem(atPath: directory.file($0))[.size] as? Int) }
        #expect(inputs.map { $0["bytes"] as? Int ?? -1 } == sizes)
    }

    @Test func linesDisorderedWithinTheWindowInTheirLogComeOutInEventTimeOrder() throws {
        let directory = TemporaryDirectory()
        // As generated, a device's burst of events is logged at once: a server's log runs up to
        // about 13 minutes behind its latest event time. A 20-minute window puts it all in order.
        #expect(try SluiceBinary.shell("$SLUICE generate --events 12000 --seed 11 --late 0.01 --duplicates 0.01 > day.ndjson",
                                       in: directory.path).status == 0)
        let day = ndjsonLines(Array(FileManager.default.contents(atPath: directory.file("day.ndjson"))!))
        let files = splitRoundRobin(day, into: 8, mergedAs: "whole.ndjson", in: directory)
        try runBoth(single: "whole.ndjson", files: files, extra: ["--reorder-window", "20m"], in: directory)
        expectSameArchive(directory)
        let single = try stats(directory, "single.json"), merged = try stats(directory, "merged.json")
        #expect(counters(merged, stage: "timed") == counters(single, stage: "timed"))
        let reorder = try #require(merged["reorder"] as? [String: Any])
        #expect(reorder["window_ms"] as? Int == 1_200_000)
        #expect(reorder["out_of_order"] as? Int == 0)

        // Read one after another, as before, the same files pair far fewer timers.
        let concatenated = try SluiceBinary.run(["run", "--pipeline", Self.cron, "--out", "concat", "--stats", "concat.json", "--concat"] + files,
                                                in: directory.path)
        #expect(concatenated.status == 0, "\(concatenated.stderr)")
        let concat = try stats(directory, "concat.json")
        #expect(concat["reorder"] == nil)
        #expect(counters(concat, stage: "timed")["completed", default: 0] < counters(merged, stage: "timed")["completed", default: 0] * 9 / 10)
    }

    @Test func stdinAmongFilesIsMergedInItsPlaceWithTiesInInputOrder() throws {
        let directory = TemporaryDirectory()
        func line(_ id: String, _ time: String) -> String {
            #"{"type":"track","event":"e","messageId":"\#(id)","anonymousId":"d-\#(id)","timestamp":"2026-11-20T08:00:\#(time)Z"}"# + "\n"
        }
        directory.write("a.ndjson.gz", TestGzip.compress(Array((line("a1", "01") + line("a2", "05")).utf8)))
        directory.write("stdin.ndjson", line("s1", "02") + line("s2", "05"))
        directory.write("b.ndjson", line("b1", "00") + "not json\n" + line("b2", "05"))
        let merged = try SluiceBinary.run(["run", "--out", "merged", "a.ndjson.gz", "-", "b.ndjson"], in: directory.path,
                                          stdin: directory.file("stdin.ndjson"))
        #expect(merged.status == 0, "\(merged.stderr)")
        let ids = gunzipFiles(directory, under: "merged/archive/").flatMap(\.lines).map { json($0)["messageId"] as? String ?? "" }
        #expect(ids == ["b1", "a1", "s1", "a2", "s2", "b2"])
        let rejects = gunzipFiles(directory, under: "merged/rejects/").flatMap(\.lines).map(json)
        #expect(rejects.map { $0["source"] as? String } == ["b.ndjson"])

        let concatenated = try SluiceBinary.run(["run", "--out", "concat", "--concat", "a.ndjson.gz", "-", "b.ndjson"], in: directory.path,
                                                stdin: directory.file("stdin.ndjson"))
        #expect(concatenated.status == 0, "\(concatenated.stderr)")
        #expect(gunzipFiles(directory, under: "concat/archive/").flatMap(\.lines).map { json($0)["messageId"] as? String ?? "" }
            == ["a1", "a2", "s1", "s2", "b1", "b2"])
    }

    @Test func aDirectoryIsReadAsItsFilesInNameOrder() throws {
        let directory = TemporaryDirectory()
        func line(_ id: String, _ time: String) -> [UInt8] {
            Array(#"{"type":"track","event":"e","messageId":"\#(id)","anonymousId":"d","timestamp":"2026-11-20T08:00:\#(time)Z"}"#.utf8)
        }
        write([line("x1", "03"), line("x2", "04")], to: "logs/server-b.ndjson", in: directory)
        directory.write("logs/server-a.ndjson.gz", TestGzip.compress(line("y1", "01") + [0x0A] + line("y2", "06") + [0x0A]))
        write([line("hidden", "00")], to: "logs/.server-c.ndjson.swp", in: directory)
        let result = try SluiceBinary.run(["run", "--stats", "s.json", "logs"], in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        let ids = gunzipFiles(directory, under: "out/archive/").flatMap(\.lines).map { json($0)["messageId"] as? String ?? "" }
        #expect(ids == ["y1", "x1", "x2", "y2"])
        let inputs = try #require(try stats(directory, "s.json")["inputs"] as? [[String: Any]])
        #expect(inputs.map { $0["path"] as? String } == ["logs/server-a.ndjson.gz", "logs/server-b.ndjson"])
    }

    @Test func aFullReorderBufferLetsTheOldestOutEarlyWithAWarningAndLosesNothing() throws {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", "version: 1\ninput: {reorder_buffer: 8KiB}\ndestinations:\n  archive: {type: ndjson}\n")
        func lines(_ server: String, hour: String) -> String {
            (0..<200).map { index in
                #"{"type":"track","event":"e","messageId":"\#(server)\#(index)","anonymousId":"d","timestamp":"2026-11-20T\#(hour):\#(index / 50 + 10):\#(index % 50 + 10)Z"}"# + "\n"
            }.joined()
        }
        // Hour 09's log is given first: with a 2-hour window its lines would wait for all of hour 08's.
        directory.write("b.ndjson", lines("b", hour: "09"))
        directory.write("a.ndjson", lines("a", hour: "08"))
        let result = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "--reorder-window", "2h", "--stats", "s.json", "b.ndjson", "a.ndjson"],
                                          in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("sluice: warning: the reorder buffer was full (input.reorder_buffer: 8192 bytes)"), "\(result.stderr)")
        let stats = try stats(directory, "s.json")
        let reorder = try #require(stats["reorder"] as? [String: Any])
        #expect((reorder["let_out_full"] as? Int ?? 0) > 0)
        #expect((reorder["held_bytes_high_water"] as? Int ?? .max) < 8192 + 1024)
        #expect(stats["emitted"] as? Int == 400 && stats["balanced"] as? Bool == true)
        let ids = gunzipFiles(directory, under: "out/archive/").flatMap(\.lines).map { json($0)["messageId"] as? String ?? "" }
        #expect(Set(ids).count == 400)
    }

    @Test func aMissingInputAmongSeveralExits66BeforeAnythingIsRead() throws {
        let directory = TemporaryDirectory()
        directory.write("a.ndjson", #"{"type":"track","event":"e","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z"}"# + "\n")
        let result = try SluiceBinary.run(["run", "a.ndjson", "logs/missing.ndjson"], in: directory.path)
        #expect(result.status == 66)
        #expect(result.stderr.contains("cannot open input logs/missing.ndjson"), "\(result.stderr)")
        #expect(directory.files().filter { $0.hasSuffix(".gz") }.isEmpty)
        let both = try SluiceBinary.run(["run", "--concat", "--reorder-window", "1m", "a.ndjson", "a.ndjson"], in: directory.path)
        #expect(both.status == 64, "--concat reads in order: a window makes no sense with it")
    }

    /// SIGTERM while the merge waits on stdin with lines held: they and what the
    /// file had read are drained into the stages, and what a stage still holds is carried to the state.
    @Test func aShutdownDrainsTheReorderBufferIntoTheStagesAndTheStateCarriesWhatIsOpen() throws {
        let directory = TemporaryDirectory()
        func line(_ fields: String, _ time: String, _ id: String) -> String {
            #"{"type":"track","messageId":"\#(id)","anonymousId":"dev-1","timestamp":"2026-11-20T\#(time)Z",\#(fields)}"#
        }
        directory.write("server-a.ndjson", line(#""event":"upload","timed":"start","timerId":"u1""#, "08:00:10", "m1") + "\n"
            + line(#""event":"tap""#, "08:00:20", "m2") + "\n")
        let sluice = try SluiceProcess(["run", "--pipeline", Self.cron, "--state", "app.state", "--stats", "s1.json",
                                        "--metrics", "m.prom", "--flush-interval", "100ms", "server-a.ndjson", "-"], in: directory.path)
        #expect(sluice.send(Array((line(#""event":"tap""#, "08:00:00", "m3") + "\n" + #"{"type":"track","ev"#).utf8)))
        // The file's first line and stdin's are read and held: stdin, the earlier, holds the merge
        // back, and it waits for the rest of a line that is only half sent.
        #expect(waitUntil(timeout: 30) { linesIn(metrics: directory.file("m.prom")) >= 2 })
        let held = prometheusSamples(directory.file("m.prom"))
        #expect(held["sluice_lines_in_flight"] == 2 && held["sluice_reorder_held_lines"] == 2, "the reorder buffer holds them")
        sluice.signal(SIGTERM)
        let status = sluice.waitForExit(timeout: 30)
        sluice.closeInput()
        #expect(status == 143, "\(sluice.stderr)")
        let s1 = try stats(directory, "s1.json")
        #expect(s1["lines_in"] as? Int == 4)
        #expect(s1["emitted"] as? Int == 2, "both taps, in event time")
        #expect(s1["carried"] as? Int == 1, "the open timer, drained from the buffer into `timed`, is carried")
        #expect((s1["rejected_by_reason"] as? [String: Int])?["cut_by_shutdown"] == 1)
        #expect(s1["balanced"] as? Bool == true)
        #expect((s1["reorder"] as? [String: Any])?["held"] as? Int == 0)
        let taps = gunzipFiles(directory, under: "out/archive/").flatMap(\.lines).map { json($0)["messageId"] as? String ?? "" }
        #expect(taps == ["m3", "m2"])

        directory.write("next.ndjson", line(#""event":"upload","timed":"stop","timerId":"u1""#, "08:00:40", "m4") + "\n")
        let second = try SluiceBinary.run(["run", "--pipeline", Self.cron, "--state", "app.state", "--stats", "s2.json", "--final",
                                           "next.ndjson"], in: directory.path)
        #expect(second.status == 0, "\(second.stderr)")
        let completed = gunzipFiles(directory, under: "out/archive/").flatMap(\.lines).map(json).filter { $0["timed"] as? String == "completed" }
        #expect(completed.count == 1)
        #expect((completed.first?["properties"] as? [String: Any])?["duration_ms"] as? Int == 30000)
    }
}
