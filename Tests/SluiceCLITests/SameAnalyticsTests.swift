import Foundation
import SluiceTestSupport
import Testing

/// End-to-end: the same events give the same records however the logs were
/// split into files, in whatever order the files are given (exact order, the
/// default for files), and a cron series with `--state` gives what one run
/// over the day gives.
@Suite struct SameAnalyticsTests {
    static let pipeline = repositoryRoot + "/pipelines/sharded.yaml"
    static let cron = repositoryRoot + "/pipelines/cron.yaml"

    /// A generated day: its lines and each line's event time in milliseconds (`sluice shard-of`).
    private func generate(_ directory: TemporaryDirectory, events: Int, seed: Int, devices: Int? = nil) throws -> (lines: [[UInt8]], times: [Int]) {
        var arguments = ["generate", "--events", "\(events)", "--seed", "\(seed)", "--duplicates", "0.02", "--late", "0.02"]
        if let devices { arguments += ["--devices", "\(devices)"] }
        let generated = try SluiceBinary.run(arguments, in: directory.path)
        try #require(generated.status == 0, "\(generated.stderr)")
        let lines = ndjsonLines(generated.stdout)
        let stream = directory.write("generated.ndjson", generated.stdout)
        let keyed = try SluiceBinary.run(["shard-of", "--shards", "1", stream], in: directory.path)
        try #require(keyed.status == 0, "\(keyed.stderr)")
        let times = ndjsonLines(keyed.stdout).map { Int(String(decoding: $0.split(separator: 0x09)[1], as: UTF8.self))! }
        try #require(times.count == lines.count)
        return (lines, times)
    }

    /// Every record of every destination (rejects aside), decompressed, sorted, by destination.
    private func records(_ directory: TemporaryDirectory, out: String, destinations: [String]) -> [String: [String]] {
        var result: [String: [String]] = [:]
        for destination in destinations {
            result[destination] = gunzipFiles(directory, under: out + "/" + destination + "/").flatMap(\.lines)
                .map { String(decoding: $0, as: UTF8.self) }.sorted()
        }
        return result
    }

    private func stats(_ directory: TemporaryDirectory, _ name: String) throws -> [String: Any] {
        let data = try #require(FileManager.default.contents(atPath: directory.file(name)))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    private func write(_ lines: [[UInt8]], to name: String, gzip: Bool, in directory: TemporaryDirectory) -> String {
        let bytes: [UInt8] = lines.flatMap { $0 + [UInt8(0x0A)] }
        return directory.write(name, gzip ? TestGzip.compress(bytes) : bytes)
    }

    @Test func theSameEventsSplitIntoAnyFilesInAnyOrderGiveTheSameRecords() throws {
        let directory = TemporaryDirectory()
        var random = TestRandom(state: 33)
        let (generated, times) = try generate(directory, events: 8000, seed: 21)
        let arrived = DisorderedLogs.arrivalOrder(generated, times, maxDelayMs: 3 * 3_600_000, random: &random)
        let destinations = ["mixpanel", "amplitude"]
        // One file as the lines arrived: the reference.
        let single = write(arrived, to: "single.ndjson", gzip: false, in: directory)
        let reference = try SluiceBinary.run(["run", "--pipeline", Self.pipeline, "--out", "ref", "--stats", "ref.json", single],
                                             in: directory.path)
        try #require(reference.status == 0, "\(reference.stderr)")
        let expected = records(directory, out: "ref", destinations: destinations)
        #expect((expected["mixpanel"]?.count ?? 0) > 1000)
        let referenceStats = try stats(directory, "ref.json")
        #expect((referenceStats["order"] as? [String: Any])?["mode"] as? String == "exact")
        #expect(reference.stderr.contains("exact order"))
        // Half the trials with a budget too small for a window merge: those are sorted, spilling runs.
        let pipeline = try String(contentsOfFile: Self.pipeline, encoding: .utf8)
        directory.write("small.yaml", pipeline.replacingOccurrences(of: "version: 1\n", with: "version: 1\ninput: {reorder_buffer: 512KiB}\n"))

        for trial in 0..<7 {
            let count = 1 + random.below(9)
            var files = [[[UInt8]]](repeating: [], count: count)
            switch trial % 3 {
            case 0:
                for line in arrived { files[random.below(count)].append(line) }
            case 1:
                for (index, line) in arrived.enumerated() { files[index % count].append(line) }
            default:
                // By device: the per-server logs of a sticky load balancer.
                for line in arrived {
                    let text = String(decoding: line, as: UTF8.self)
                    let device = text.range(of: #""anonymousId":"[^"]*""#, options: .regularExpression).map { String(text[$0]) } ?? ""
                    files[abs(device.hashValue) % count].append(line)
                }
            }
            if trial == 3 {
                // One file given sorted by event time, as an archive would hold it.
                func time(_ line: [UInt8]) -> ArraySlice<UInt8> { DisorderedLogs.timestampRange(line).map { line[$0] } ?? [] }
                files[0] = files[0].sorted { time($0).lexicographicallyPrecedes(time($1)) }
            }
            var paths = files.enumerated().map { index, lines in
                write(lines, to: "trial-\(trial)/server-\(index).ndjson" + (random.below(2) == 0 ? ".gz" : ""),
                      gzip: random.below(2) == 0 || trial == 5, in: directory)
            }
            for index in paths.indices.reversed() { paths.swapAt(index, random.below(index + 1)) }
            let arguments = trial == 6 ? [directory.file("trial-\(trial)")] : paths
            let sorted = trial % 2 == 1
            let run = try SluiceBinary.run(["run", "--pipeline", sorted ? "small.yaml" : Self.pipeline, "--out", "out-\(trial)",
                                            "--stats", "s-\(trial).json"] + arguments, in: directory.path)
            try #require(run.status == 0, "trial \(trial): \(run.stderr)")
            let got = records(directory, out: "out-\(trial)", destinations: destinations)
            for destination in destinations {
                #expect(got[destination] == expected[destination], "trial \(trial) (\(count) files): \(destination) differs")
            }
            let trialStats = try stats(directory, "s-\(trial).json")
            let order = trialStats["order"] as? [String: Any]
            #expect(order?["method"] as? String == (sorted ? "sort" : "window"), "trial \(trial)")
            if sorted { #expect((order?["spilled_runs"] as? Int ?? 0) > 0, "trial \(trial)") }
            for key in ["emitted", "merged", "dropped", "rejected"] {
                #expect(trialStats[key] as? Int == referenceStats[key] as? Int, "trial \(trial): \(key)")
            }
        }
    }

    @Test func theReorderWindowIsKeptForStdinAndWhenAskedFor() throws {
        let directory = TemporaryDirectory()
        let line = #"{"type":"track","event":"tap","anonymousId":"d1","messageId":"m1","timestamp":"2026-11-20T08:00:00Z"}"#
        let file = directory.write("a.ndjson", line + "\n")
        let piped = try SluiceBinary.run(["run", "--out", "o1", "--stats", "s1.json"], in: directory.path, stdin: file)
        #expect(piped.status == 0)
        #expect((try stats(directory, "s1.json")["order"] as? [String: Any])?["mode"] as? String == "as_read")
        let windowed = try SluiceBinary.run(["run", "--out", "o2", "--stats", "s2.json", "--order", "window", file, file],
                                            in: directory.path)
        #expect(windowed.status == 0)
        #expect((try stats(directory, "s2.json")["order"] as? [String: Any])?["mode"] as? String == "window")
        let both = try SluiceBinary.run(["run", "--order", "exact", "--concat", file], in: directory.path)
        #expect(both.status == 64)
        #expect(both.stderr.contains("--concat"))
        let windowAndExact = try SluiceBinary.run(["run", "--order", "exact", "--reorder-window", "1m", file], in: directory.path)
        #expect(windowAndExact.status == 64)
    }

    @Test func aTinySortBudgetSpillsManyRunsToTmpAndWritesWhatMemoryWould() throws {
        let directory = TemporaryDirectory()
        var random = TestRandom(state: 5)
        let (generated, times) = try generate(directory, events: 6000, seed: 8)
        let arrived = DisorderedLogs.arrivalOrder(generated, times, maxDelayMs: 3_600_000, random: &random)
        var files = [[[UInt8]]](repeating: [], count: 4)
        for (index, line) in arrived.enumerated() { files[index % 4].append(line) }
        let paths = files.enumerated().map { write($1, to: "logs/server-\($0).ndjson", gzip: $0 == 0, in: directory) }
        let pipeline = try String(contentsOfFile: Self.pipeline, encoding: .utf8)
        directory.write("tiny.yaml", pipeline.replacingOccurrences(of: "version: 1\n", with: "version: 1\ninput: {reorder_buffer: 64KiB}\n"))
        let roomy = try SluiceBinary.run(["run", "--pipeline", Self.pipeline, "--out", "roomy", "--stats", "roomy.json"] + paths,
                                         in: directory.path)
        try #require(roomy.status == 0, "\(roomy.stderr)")
        let tiny = try SluiceBinary.run(["run", "--pipeline", "tiny.yaml", "--out", "tiny", "--tmp", "spill", "--stats", "tiny.json"] + paths,
                                        in: directory.path)
        try #require(tiny.status == 0, "\(tiny.stderr)")
        #expect(records(directory, out: "tiny", destinations: ["mixpanel", "amplitude"])
                == records(directory, out: "roomy", destinations: ["mixpanel", "amplitude"]))
        let order = try #require(try stats(directory, "tiny.json")["order"] as? [String: Any])
        #expect((order["spilled_runs"] as? Int ?? 0) > 64)
        #expect((order["run_merges"] as? Int ?? 0) >= 1)
        #expect(tiny.stderr.contains("sorted runs spilled"))
        let roomyOrder = try #require(try stats(directory, "roomy.json")["order"] as? [String: Any])
        #expect(roomyOrder["spilled_runs"] as? Int == 0)
        #expect(!directory.files().contains { $0.contains(".sluice-sort-") })
    }

    @Test func aRunKilledWhileSpillingIsRunAgainToTheSameRecordsAndLeavesNoSortFiles() throws {
        let directory = TemporaryDirectory()
        let generated = try SluiceBinary.run(["generate", "--events", "40000", "--seed", "4"], in: directory.path)
        try #require(generated.status == 0)
        // Lines dealt round robin to two files, the second reversed: all of it is held and spilled.
        let lines = ndjsonLines(generated.stdout)
        let first = write(lines.enumerated().filter { $0.offset % 2 == 0 }.map(\.element), to: "a.ndjson", gzip: false, in: directory)
        let second = write(lines.enumerated().filter { $0.offset % 2 == 1 }.map(\.element).reversed(), to: "b.ndjson", gzip: false, in: directory)
        let pipeline = try String(contentsOfFile: Self.pipeline, encoding: .utf8)
        directory.write("tiny.yaml", pipeline.replacingOccurrences(of: "version: 1\n", with: "version: 1\ninput: {reorder_buffer: 1MiB}\n"))
        let arguments = ["run", "--pipeline", "tiny.yaml", "--tmp", "spill", "--stats", "s.json", first, second]
        let killed = try SluiceProcess(arguments + ["--out", "out"], in: directory.path)
        let spilled = waitUntil(timeout: 60) {
            directory.files().contains { $0.hasPrefix("spill/.sluice-sort-") && $0.hasSuffix("run-3.gz") }
        }
        killed.signal(SIGKILL)
        _ = killed.waitForExit(timeout: 30)
        try #require(spilled, "no sorted run was spilled within 60 s")
        #expect(directory.files().contains { $0.hasPrefix("spill/.sluice-sort-") })
        let again = try SluiceBinary.run(arguments + ["--out", "out"], in: directory.path)
        try #require(again.status == 0, "\(again.stderr)")
        let clean = try SluiceBinary.run(arguments + ["--out", "clean"], in: directory.path)
        try #require(clean.status == 0, "\(clean.stderr)")
        #expect(records(directory, out: "out", destinations: ["mixpanel", "amplitude"])
                == records(directory, out: "clean", destinations: ["mixpanel", "amplitude"]))
        #expect(!directory.files().contains { $0.contains(".sluice-sort-") })
    }

    @Test func hourlyRunsWithStateGiveTheRecordsOfOneRunOverTheDay() throws {
        let directory = TemporaryDirectory()
        var random = TestRandom(state: 11)
        let (generated, times) = try generate(directory, events: 12000, seed: 17, devices: 60)
        // Arrival within 4 minutes of the event (the stages' lateness is 5m), so lines cross from one
        // file into the next. The generated stream spans less than an hour: its "hours" are 10 minutes.
        let arrivals = times.map { $0 + random.below(240_000) }
        let order = generated.indices.sorted { (arrivals[$0], $0) < (arrivals[$1], $1) }
        var hours: [Int: [[UInt8]]] = [:]
        for index in order { hours[arrivals[index] / 600_000, default: []].append(generated[index]) }
        let keys = hours.keys.sorted()
        try #require(keys.count >= 3, "the generated stream spans \(keys.count) files")
        let paths = keys.map { write(hours[$0]!, to: "hours/events-\($0).ndjson.gz", gzip: true, in: directory) }
        let whole = try SluiceBinary.run(["run", "--pipeline", Self.cron, "--out", "day"] + paths, in: directory.path)
        try #require(whole.status == 0, "\(whole.stderr)")
        var pendingSeen = 0
        for (index, path) in paths.enumerated() {
            let last = index == paths.count - 1
            let run = try SluiceBinary.run(["run", "--pipeline", Self.cron, "--out", "series", "--state", "app.state",
                                            "--stats", "hour-\(index).json"] + (last ? ["--final"] : []) + [path], in: directory.path)
            try #require(run.status == 0, "hour \(index): \(run.stderr)")
            let hourStats = try stats(directory, "hour-\(index).json")
            #expect(hourStats["balanced"] as? Bool == true || !last)
            pendingSeen += ((hourStats["order"] as? [String: Any])?["pending"] as? Int) ?? 0
        }
        #expect(pendingSeen > 0)
        #expect(records(directory, out: "series", destinations: ["archive"]) == records(directory, out: "day", destinations: ["archive"]))
    }
}
