import Foundation
import SluiceTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// End-to-end: `sluice run --state` as an hourly cron job, through the real
/// binary, its gzip output read back.
@Suite struct StateCommandTests {
    private static let cron = repositoryRoot + "/pipelines/cron.yaml"

    private func json(_ bytes: [UInt8]) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] ?? [:]
    }

    private func stats(_ directory: TemporaryDirectory, _ name: String) throws -> [String: Any] {
        json(Array(try #require(FileManager.default.contents(atPath: directory.file(name)))))
    }

    private func bytes(_ directory: TemporaryDirectory, _ name: String) -> [UInt8] {
        Array(FileManager.default.contents(atPath: directory.file(name)) ?? Data())
    }

    /// Every record under `out/prefix`, by file name without its `{seq}`
    /// (`archive/2026-11-20/archive-08`), the files of each name concatenated in `{seq}` order.
    private func recordsByName(_ directory: TemporaryDirectory, out: String, _ prefix: String) -> [String: [[UInt8]]] {
        var result: [String: [[UInt8]]] = [:]
        for file in directory.files().filter({ $0.hasPrefix(out + "/" + prefix) }).sorted() {
            #expect(file.hasSuffix(".ndjson.gz"), "\(file) is finished")
            guard let bytes = TestGzip.decompressFile(directory.file(file)) else {
                Issue.record("\(file) is not complete, valid gzip")
                continue
            }
            let name = String(file.dropFirst(out.count + 1).dropLast("-0000.ndjson.gz".count))
            result[name, default: []] += ndjsonLines(bytes)
        }
        return result
    }

    private func line(_ fields: String, at time: String, id: String) -> String {
        #"{"type":"track","messageId":"\#(id)","anonymousId":"dev-1","timestamp":"2026-11-20T\#(time)Z",\#(fields)}"#
    }

    @Test func aTimerStartedInOneHoursLogIsStoppedInTheNextSessionsGoOnAndAResentMessageIsDropped() throws {
        let directory = TemporaryDirectory()
        directory.write("hour-08.ndjson", [
            #"{"type":"identify","messageId":"m0","anonymousId":"dev-1","userId":"u-1","timestamp":"2026-11-20T08:40:00Z","traits":{"plan":"pro"}}"#,
            line(#""event":"video_playback","timed":"start","timerId":"p1","properties":{"title":"Heat"}"#, at: "08:50:00", id: "m1"),
            line(#""event":"tap""#, at: "08:55:00", id: "m2"),
        ].joined(separator: "\n") + "\n")
        directory.write("hour-09.ndjson", [
            line(#""event":"tap""#, at: "08:55:00", id: "m2"),  // re-sent by the app after the log rotated
            line(#""event":"video_playback","timed":"stop","timerId":"p1","properties":{"position":5400}"#, at: "09:05:00", id: "m3"),
        ].joined(separator: "\n") + "\n")

        let first = try SluiceBinary.run(["run", "--pipeline", Self.cron, "--state", "state/app.state", "--stats", "s1.json",
                                          "hour-08.ndjson"], in: directory.path)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("2 carried to the state (0 carried in)"), "\(first.stderr)")
        let s1 = try stats(directory, "s1.json")
        #expect(s1["lines_in"] as? Int == 3)
        #expect(s1["emitted"] as? Int == 1)
        // The events within the stages' lateness (5m) of the latest, the timer's start among them,
        // are left for the next run to order with its own lines: carried, not let out or abandoned.
        #expect(s1["carried"] as? Int == 2)
        #expect((s1["order"] as? [String: Any])?["pending"] as? Int == 2)
        #expect(s1["balanced"] as? Bool == true)
        #expect(FileManager.default.fileExists(atPath: directory.file("state/app.state")))
        #expect(!directory.files().contains { $0.contains(".tmp-") })

        let second = try SluiceBinary.run(["run", "--pipeline", Self.cron, "--state", "state/app.state", "--stats", "s2.json",
                                           "--final", "hour-09.ndjson"], in: directory.path)
        #expect(second.status == 0, "\(second.stderr)")
        let s2 = try stats(directory, "s2.json")
        #expect(s2["lines_in"] as? Int == 2)
        #expect(s2["carried_in"] as? Int == 2)
        #expect(s2["merged"] as? Int == 1, "the carried start is merged into its stop")
        #expect(s2["emitted"] as? Int == 2)
        #expect((s2["dropped_by_reason"] as? [String: Int])?["duplicate"] == 1)
        #expect(s2["carried"] as? Int == 0)
        #expect(s2["balanced"] as? Bool == true)
        let state = try #require(s2["state"] as? [String: Any])
        #expect(state["loaded_bytes"] as? Int == (s1["state"] as? [String: Any])?["saved_bytes"] as? Int)
        #expect((state["saved_bytes"] as? Int ?? 0) > 12)

        let archive = recordsByName(directory, out: "out", "archive/").values.flatMap { $0 }.map(json)
        #expect(archive.count == 3)
        let byID = Dictionary(uniqueKeysWithValues: archive.map { ($0["messageId"] as! String, $0) })
        let completed = try #require(byID["m3"])
        #expect(completed["timed"] as? String == "completed")
        #expect(completed["started_at"] as? String == "2026-11-20T08:50:00Z")
        let properties = try #require(completed["properties"] as? [String: Any])
        #expect(properties["duration_ms"] as? Int == 900_000)
        #expect(properties["title"] as? String == "Heat")
        func session(_ id: String) -> [String: Any] {
            ((byID[id]?["context"] as? [String: Any])?["session"] as? [String: Any]) ?? [:]
        }
        #expect(session("m2")["seq"] as? Int == 2)
        #expect(session("m3")["id"] as? String == session("m0")["id"] as? String, "the session goes on in the next run")
        #expect(session("m3")["number"] as? Int == 1)
        #expect(session("m3")["seq"] as? Int == 3)
        #expect(session("m3")["authenticated"] as? Bool == true)
        #expect((session("m3")["traits"] as? [String: Any])?["plan"] as? String == "pro")
    }

    @Test func aRunStoppedBySIGTERMCarriesWhatIsOpenAndTheNextRunPairsIt() throws {
        let directory = TemporaryDirectory()
        let sluice = try SluiceProcess(["run", "--pipeline", Self.cron, "--state", "app.state", "--stats", "s1.json",
                                        "--metrics", "m.prom", "--flush-interval", "100ms"], in: directory.path)
        #expect(sluice.send(lines: [Array(line(#""event":"upload","timed":"start","timerId":"u1""#, at: "08:00:00", id: "m1").utf8)]))
        #expect(waitUntil(timeout: 30) { linesIn(metrics: directory.file("m.prom")) >= 1 })
        sluice.signal(SIGTERM)
        let status = sluice.waitForExit(timeout: 30)
        sluice.closeInput()
        #expect(status == 143, "\(sluice.stderr)")
        let s1 = try stats(directory, "s1.json")
        #expect(s1["carried"] as? Int == 1, "a stop carries what is open, as the end of input does")
        #expect(s1["balanced"] as? Bool == true)

        directory.write("next.ndjson", line(#""event":"upload","timed":"stop","timerId":"u1""#, at: "08:00:09", id: "m2") + "\n")
        let second = try SluiceBinary.run(["run", "--pipeline", Self.cron, "--state", "app.state", "--stats", "s2.json", "--final",
                                           "next.ndjson"], in: directory.path)
        #expect(second.status == 0, "\(second.stderr)")
        let archive = recordsByName(directory, out: "out", "archive/").values.flatMap { $0 }.map(json)
        #expect(archive.count == 1)
        #expect(archive.first?["timed"] as? String == "completed")
        #expect((archive.first?["properties"] as? [String: Any])?["duration_ms"] as? Int == 9000)
    }

    /// Rejected lines are data problems, not a failed run: a run that exits 65
    /// for them (`--strict`, or a corrupt gzip input) still saves its state, and the next run pairs what it carried.
    @Test(arguments: ["strict", "corrupt gzip"])
    func aRunThatExits65ForRejectedLinesStillSavesItsStateAndTheNextRunPairsIt(cause: String) throws {
        let directory = TemporaryDirectory()
        let start = line(#""event":"upload","timed":"start","timerId":"u1""#, at: "08:00:00", id: "m1")
        var arguments = ["run", "--pipeline", Self.cron, "--state", "app.state", "--stats", "s1.json"]
        if cause == "strict" {
            directory.write("hour-08.ndjson", start + "\nnot json\n")
            arguments += ["--strict", "hour-08.ndjson"]
        } else {
            directory.write("hour-08.ndjson", start + "\n")
            var broken = TestGzip.compress(Array(String(repeating: line(#""event":"tap""#, at: "08:01:00", id: "m9") + "\n", count: 200).utf8))
            broken.removeLast(12)
            broken += Array(repeating: 0x55, count: 12)
            directory.write("broken.ndjson.gz", broken)
            arguments += ["hour-08.ndjson", "broken.ndjson.gz"]
        }
        let first = try SluiceBinary.run(arguments, in: directory.path)
        #expect(first.status == 65, "\(first.stderr)")
        let s1 = try stats(directory, "s1.json")
        #expect(s1["carried"] as? Int == 1)
        #expect(FileManager.default.fileExists(atPath: directory.file("app.state")), "the state was saved")
        #expect(((s1["state"] as? [String: Any])?["saved_bytes"] as? Int ?? 0) > 12)

        directory.write("hour-09.ndjson", line(#""event":"upload","timed":"stop","timerId":"u1""#, at: "08:00:09", id: "m2") + "\n")
        let second = try SluiceBinary.run(["run", "--pipeline", Self.cron, "--state", "app.state", "--stats", "s2.json", "--final",
                                           "hour-09.ndjson"], in: directory.path)
        #expect(second.status == 0, "\(second.stderr)")
        let s2 = try stats(directory, "s2.json")
        #expect(s2["carried_in"] as? Int == 1 && s2["merged"] as? Int == 1 && s2["balanced"] as? Bool == true)
        let completed = recordsByName(directory, out: "out", "archive/").values.flatMap { $0 }.map(json)
            .filter { $0["timed"] as? String == "completed" }
        #expect(completed.count == 1)
        #expect((completed.first?["properties"] as? [String: Any])?["duration_ms"] as? Int == 9000)
    }

    /// A run that fails (an input that cannot be read, exit 74) leaves the
    /// previous state as it was, so running the same inputs again is exact.
    @Test func aRunWhoseInputCannotBeReadExits74AndLeavesThePreviousState() throws {
        let directory = TemporaryDirectory()
        directory.write("hour-08.ndjson", line(#""event":"upload","timed":"start","timerId":"u1""#, at: "08:00:00", id: "m1") + "\n")
        let first = try SluiceBinary.run(["run", "--pipeline", Self.cron, "--state", "app.state", "hour-08.ndjson"], in: directory.path)
        #expect(first.status == 0, "\(first.stderr)")
        let saved = bytes(directory, "app.state")
        #expect(saved.count > 12)

        directory.write("hour-09.ndjson", line(#""event":"upload","timed":"stop","timerId":"u1""#, at: "08:00:09", id: "m2") + "\n")
        // The process's own memory opens for reading but reading it from address 0 fails (EIO): an I/O error, not bad data.
        let second = try SluiceBinary.run(["run", "--pipeline", Self.cron, "--state", "app.state", "--stats", "s2.json",
                                           "hour-09.ndjson", "/proc/self/mem"], in: directory.path)
        #expect(second.status == 74, "\(second.stderr)")
        #expect(bytes(directory, "app.state") == saved, "the state is the one before the failed run")
        #expect(!directory.files().contains { $0.contains(".tmp-") })
    }

    /// Hourly runs over a day cut in three, read as they come (`--order window`, as a stream is), give the
    /// records one run over the whole day, read in order, gives. (Exact order's series: SameAnalyticsTests.)
    @Test func runsChainedThroughTheStateGiveTheOutputOfOneRun() throws {
        let directory = TemporaryDirectory()
        let generated = try SluiceBinary.shell("$SLUICE generate --events 12000 --seed 21 --malformed 0.01 --late 0.03 > day.ndjson",
                                               in: directory.path)
        #expect(generated.status == 0)
        let lines = ndjsonLines(bytes(directory, "day.ndjson"))
        let parts = [lines[..<3500], lines[3500..<8000], lines[8000...]]
        for (index, part) in parts.enumerated() {
            directory.write("part-\(index).ndjson", part.map { $0 + [0x0A] }.joined().map { $0 })
        }
        let whole = try SluiceBinary.run(["run", "--pipeline", Self.cron, "--out", "whole", "--stats", "whole.json", "--concat",
                                          "part-0.ndjson", "part-1.ndjson", "part-2.ndjson"], in: directory.path)
        #expect(whole.status == 0, "\(whole.stderr)")
        var carried = 0
        var totals: [String: Int] = [:]
        for index in parts.indices {
            let result = try SluiceBinary.run(["run", "--pipeline", Self.cron, "--out", "hourly", "--state", "app.state", "--order", "window",
                                               "--stats", "s\(index).json", "part-\(index).ndjson"] + (index == 2 ? ["--final"] : []),
                                              in: directory.path)
            #expect(result.status == 0, "\(result.stderr)")
            let run = try stats(directory, "s\(index).json")
            #expect(run["balanced"] as? Bool == true)
            #expect(run["carried_in"] as? Int == carried, "run \(index) starts with what the one before carried")
            carried = run["carried"] as? Int ?? -1
            for key in ["lines_in", "emitted", "merged", "rejected", "dropped"] { totals[key, default: 0] += run[key] as? Int ?? 0 }
            if index < 2 { #expect(carried > 0, "the generated day leaves timers open at each cut") }
        }
        #expect(carried == 0, "--final lets out what is still open")
        let single = try stats(directory, "whole.json")
        for key in ["lines_in", "emitted", "merged", "rejected", "dropped"] {
            #expect(totals[key] == single[key] as? Int, "\(key): the runs together count what one run counts")
        }
        let expected = recordsByName(directory, out: "whole", "")
        let chained = recordsByName(directory, out: "hourly", "")
        #expect(expected.keys.sorted() == chained.keys.sorted())
        #expect(expected.keys.contains { $0.hasPrefix("rejects/") } && expected.keys.contains { $0.hasPrefix("archive/") })
        #expect(expected.values.reduce(0) { $0 + $1.count } == 12000 - (single["merged"] as? Int ?? 0) - (single["dropped"] as? Int ?? 0))
        for (name, records) in expected {
            let got = chained[name] ?? []
            #expect(records.count == got.count, "\(name)")
            if let index = zip(records, got).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
                Issue.record("\(name) record \(index) differs:\n\(String(decoding: records[index], as: UTF8.self))\n\(String(decoding: got[index], as: UTF8.self))")
            }
        }
    }

    /// A cron retry: the same input from the same state gives the same bytes, output files and state alike.
    @Test func aRetryFromTheSameStateWritesByteIdenticalOutputs() throws {
        let directory = TemporaryDirectory()
        let generated = try SluiceBinary.shell("$SLUICE generate --events 6000 --seed 5 --malformed 0.01 > day.ndjson", in: directory.path)
        #expect(generated.status == 0)
        let lines = ndjsonLines(bytes(directory, "day.ndjson"))
        directory.write("h1.ndjson", lines[..<2500].map { $0 + [0x0A] }.joined().map { $0 })
        directory.write("h2.ndjson", lines[2500...].map { $0 + [0x0A] }.joined().map { $0 })
        let first = try SluiceBinary.run(["run", "--pipeline", Self.cron, "--out", "out1", "--state", "h1.state", "h1.ndjson"],
                                         in: directory.path)
        #expect(first.status == 0, "\(first.stderr)")
        let saved = bytes(directory, "h1.state")
        for attempt in ["a", "b"] {
            directory.write("\(attempt).state", saved)
            // No wall-clock flush during the run: gzip member boundaries then depend on the data alone.
            let retry = try SluiceBinary.run(["run", "--pipeline", Self.cron, "--out", "out-\(attempt)", "--state", "\(attempt).state",
                                              "--flush-interval", "1h", "h2.ndjson"], in: directory.path)
            #expect(retry.status == 0, "\(retry.stderr)")
        }
        let filesA = directory.files().filter { $0.hasPrefix("out-a/") }
        let filesB = directory.files().filter { $0.hasPrefix("out-b/") }
        #expect(filesA.count >= 2, "archive and rejects files: \(filesA)")
        #expect(filesA.map { $0.dropFirst(6) } == filesB.map { $0.dropFirst(6) })
        for (a, b) in zip(filesA, filesB) {
            #expect(bytes(directory, a) == bytes(directory, b), "\(a) and \(b) differ")
        }
        #expect(bytes(directory, "a.state") == bytes(directory, "b.state"), "the saved states are byte-identical")
        #expect(bytes(directory, "a.state") != saved)
    }

    private func runWithState(_ directory: TemporaryDirectory, pipeline: String = StateCommandTests.cron,
                              _ extra: [String] = []) throws -> SluiceBinary.Result {
        try SluiceBinary.run(["run", "--pipeline", pipeline, "--out", "out2", "--state", "app.state"] + extra + ["in.ndjson"],
                             in: directory.path)
    }

    /// A state from a first run over a few generated events.
    private func stateDirectory() throws -> (TemporaryDirectory, [UInt8]) {
        let directory = TemporaryDirectory()
        let generated = try SluiceBinary.shell("$SLUICE generate --events 500 --seed 2 > in.ndjson", in: directory.path)
        #expect(generated.status == 0)
        let first = try SluiceBinary.run(["run", "--pipeline", Self.cron, "--out", "out1", "--state", "app.state", "in.ndjson"],
                                         in: directory.path)
        #expect(first.status == 0, "\(first.stderr)")
        return (directory, bytes(directory, "app.state"))
    }

    /// Refused before anything is read or written: no output, the state left as it was.
    private func expectRefused(_ result: SluiceBinary.Result, status: Int32, _ message: String, _ directory: TemporaryDirectory,
                               state: [UInt8]) {
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!directory.files().contains { $0.hasPrefix("out2/") && $0.hasSuffix(".gz") }, "nothing was written")
        #expect(bytes(directory, "app.state") == state, "the state file is untouched")
    }

    @Test func aStateWithAValidChecksumButABrokenKeptLineIsRefusedBeforeAnythingIsWritten() throws {
        let directory = TemporaryDirectory()
        // The tap, past the stages' lateness (5m), lets the start into the timed stage rather than leaving it pending.
        directory.write("hour-08.ndjson", line(#""event":"video_playback","timed":"start","timerId":"p1","properties":{"title":"Heat"}"#,
                                               at: "08:50:00", id: "m1") + "\n" + line(#""event":"tap""#, at: "08:58:00", id: "m9") + "\n")
        let first = try SluiceBinary.run(["run", "--pipeline", Self.cron, "--out", "out1", "--state", "app.state", "hour-08.ndjson"],
                                         in: directory.path)
        #expect(first.status == 0, "\(first.stderr)")
        var state = bytes(directory, "app.state")
        // The kept start's `"title":"Heat"` becomes `"title"x"Heat"`, resealed: the checksum holds, the line does not parse.
        let needle = Array(#""title":"Heat""#.utf8)
        let at = try #require((0...(state.count - needle.count)).first { Array(state[$0..<($0 + needle.count)]) == needle })
        state[at + 7] = UInt8(ascii: "x")
        withUnsafeBytes(of: TestGzip.crc32(Array(state.dropLast(4))).littleEndian) { state.replaceSubrange((state.count - 4)..., with: $0) }
        directory.write("app.state", state)
        directory.write("in.ndjson", line(#""event":"video_playback","timed":"stop","timerId":"p1""#, at: "09:05:00", id: "m2") + "\n")

        let second = try runWithState(directory, ["--final", "--stats", "s.json"])
        expectRefused(second, status: 65, "the timed entry at byte ", directory, state: state)
        #expect(second.stderr.contains("keeps a line that is not a JSON object"), "\(second.stderr)")
        #expect(!directory.files().contains { $0.hasPrefix("out2/") }, "no file, not even a .part: \(directory.files())")
        #expect(try stats(directory, "s.json")["exit_code"] as? Int == 65)
    }

    @Test func aCorruptStateIsRefusedWithExit65NotReset() throws {
        let (directory, saved) = try stateDirectory()
        var damaged = saved
        damaged[damaged.count / 2] ^= 0x01
        directory.write("app.state", damaged)
        expectRefused(try runWithState(directory), status: 65, "--state app.state is corrupt (checksum mismatch", directory, state: damaged)
        let cut = Array(saved.prefix(saved.count - 10))
        directory.write("app.state", cut)
        expectRefused(try runWithState(directory), status: 65, "is corrupt", directory, state: cut)
    }

    @Test func aStateOfAnotherFormatVersionIsRefusedWithExit65() throws {
        let (directory, saved) = try stateDirectory()
        var other = saved
        other[8] = 9
        directory.write("app.state", other)
        expectRefused(try runWithState(directory), status: 65, "has state format 9; this sluice reads formats 2 to 4", directory, state: other)
    }

    @Test func aStateFromAnotherPipelineIsRefusedWithExit65() throws {
        let (directory, saved) = try stateDirectory()
        expectRefused(try runWithState(directory, pipeline: repositoryRoot + "/pipelines/timed.yaml"), status: 65,
                      "was written by another pipeline: it was saved with the stages [dedupe, timed, session]; this pipeline has [timed]",
                      directory, state: saved)
    }

    @Test func aFileThatIsNotAStateIsRefusedWithExit65() throws {
        let (directory, _) = try stateDirectory()
        let notState = Array("{\"type\":\"track\"}\n".utf8)
        directory.write("app.state", notState)
        expectRefused(try runWithState(directory), status: 65, "is not a sluice state file", directory, state: notState)
    }

    @Test func aStateInUseByAnotherRunIsRefusedWithExit75() throws {
        let (directory, saved) = try stateDirectory()
        let fd = open(directory.file("app.state.lock"), O_RDWR | O_CREAT, 0o644)
        #expect(fd >= 0)
        defer { close(fd) }
        #expect(flock(fd, LOCK_EX | LOCK_NB) == 0)
        expectRefused(try runWithState(directory), status: 75, "is in use by another sluice run", directory, state: saved)
    }

    /// A run on `app.state`, held open on stdin, which holds the lock once it reports (after its
    /// restore); and a second run given `name` for the state, which it refuses: 75, nothing written.
    /// Returns the first, still running.
    private func holdingTheStateRefuses(through name: String, in directory: TemporaryDirectory) throws -> SluiceProcess {
        let holder = try SluiceProcess(["run", "--pipeline", Self.cron, "--out", "out-a", "--state", "app.state",
                                        "--metrics", "m.prom", "--flush-interval", "100ms", "-"], in: directory.path)
        #expect(waitUntil(timeout: 30) { FileManager.default.fileExists(atPath: directory.file("m.prom")) })
        let second = try SluiceBinary.run(["run", "--pipeline", Self.cron, "--out", "out2", "--state", name, "in.ndjson"],
                                          in: directory.path)
        #expect(second.status == 75, "\(second.stderr)")
        #expect(second.stderr.contains("is in use by another sluice run"), "\(second.stderr)")
        #expect(!directory.files().contains { $0.hasPrefix("out2/") && $0.hasSuffix(".gz") }, "nothing was written")
        return holder
    }

    @Test func aStateReachedThroughASymlinkSharesTheLockOfItsFileAndStaysALink() throws {
        let (directory, saved) = try stateDirectory()
        #expect(symlink("app.state", directory.file("link.state")) == 0)
        // A second run through the link is refused: it would restore the same carried lines.
        let holder = try holdingTheStateRefuses(through: "link.state", in: directory)
        holder.closeInput()
        #expect(holder.waitForExit(timeout: 30) == 0, "\(holder.stderr)")
        var before = stat()
        #expect(stat(directory.file("app.state"), &before) == 0)
        // Once it is free, a run through the link saves into the file and leaves the link a link.
        let third = try SluiceBinary.run(["run", "--pipeline", Self.cron, "--out", "out3", "--state", "link.state", "in.ndjson"],
                                         in: directory.path)
        #expect(third.status == 0, "\(third.stderr)")
        var info = stat()
        #expect(lstat(directory.file("link.state"), &info) == 0 && info.st_mode & S_IFMT == S_IFLNK, "the link is still a link")
        #expect(bytes(directory, "link.state") == bytes(directory, "app.state"))
        var after = stat()
        #expect(stat(directory.file("app.state"), &after) == 0 && after.st_ino != before.st_ino, "the run through the link saved into the file")
        #expect(!saved.isEmpty)
        #expect(!directory.files().contains { $0.hasPrefix("link.state.") }, "no lock or temporary file beside the link")
    }

    @Test func aHardLinkedStateSharesTheLockOfItsFileNotOfItsName() throws {
        let (directory, saved) = try stateDirectory()
        #expect(link(directory.file("app.state"), directory.file("other.state")) == 0)
        // A run on the other name of the same file is refused: both would start from the same state and fork it.
        let holder = try holdingTheStateRefuses(through: "other.state", in: directory)
        #expect(bytes(directory, "other.state") == saved, "the other name's state is untouched")
        holder.closeInput()
        #expect(holder.waitForExit(timeout: 30) == 0, "\(holder.stderr)")
    }

    @Test func finalWithoutStateIsAUsageError() throws {
        let directory = TemporaryDirectory()
        directory.write("in.ndjson", "")
        let result = try SluiceBinary.run(["run", "--final", "in.ndjson"], in: directory.path)
        #expect(result.status == 64)
        #expect(result.stderr.contains("--final needs --state"), "\(result.stderr)")
    }
}
