import Foundation
import SluiceTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// End-to-end: the real binary fed through a pipe and sent real signals.
@Suite struct SignalTests {
    private func json(_ bytes: [UInt8]) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] ?? [:]
    }

    private func generate(_ events: Int, in directory: TemporaryDirectory, malformed: Double = 0) throws -> [[UInt8]] {
        let result = try SluiceBinary.shell("$SLUICE generate --events \(events) --malformed \(malformed) --duplicates 0 --seed 11 > in.ndjson",
                                            in: directory.path)
        #expect(result.status == 0)
        return ndjsonLines(Array(FileManager.default.contents(atPath: directory.file("in.ndjson"))!))
    }

    @Test func sigtermMidStreamDrainsExits143AndAccountsForEveryLineRead() throws {
        let directory = TemporaryDirectory()
        let input = try generate(30000, in: directory, malformed: 0.02)
        let sluice = try SluiceProcess(["run", "--flush-interval", "100ms", "--metrics", "m.prom", "--stats", "s.json"],
                                       in: directory.path)
        // A writer that keeps the pipe full until sluice stops reading.
        let writer = Thread {
            var index = 0
            while index < input.count, sluice.send(lines: input[index..<min(index + 50, input.count)]) { index += 50 }
        }
        writer.start()
        #expect(waitUntil(timeout: 30) { linesIn(metrics: directory.file("m.prom")) >= 3000 })
        sluice.signal(SIGTERM)
        let status = sluice.waitForExit(timeout: 30)
        sluice.closeInput()
        #expect(status == 143, "\(sluice.stderr)")
        #expect(sluice.stderr.contains("SIGTERM: stopping input"))
        #expect(!directory.files().contains { $0.hasSuffix(".part") })

        let stats = json(Array(FileManager.default.contents(atPath: directory.file("s.json"))!))
        let read = try #require(stats["lines_in"] as? Int)
        #expect(read >= 3000 && read < input.count, "the run should have stopped mid-stream")
        #expect(stats["balanced"] as? Bool == true)
        #expect((stats["emitted"] as! Int) + (stats["rejected"] as! Int) == read)

        // What was read is exactly the first `read` lines: each delivered once, or rejected with its line number.
        let delivered = gunzipFiles(directory, under: "out/archive/").flatMap(\.lines)
        var rejected: [Int: [String: Any]] = [:]
        for line in gunzipFiles(directory, under: "out/rejects/").flatMap(\.lines) {
            let record = json(line)
            rejected[record["line_number"] as! Int] = record
        }
        #expect(delivered.count + rejected.count == read)
        let expected = input[..<read].enumerated().filter { rejected[$0.offset + 1] == nil }.map(\.element)
        let exactlyTheLinesRead = delivered == expected
        #expect(exactlyTheLinesRead)
        #expect(rejected.keys.allSatisfy { $0 >= 1 && $0 <= read })
        if let cut = rejected[read], cut["reason"] as? String == "cut_by_shutdown" {
            // The line the stop fell in keeps the bytes that were read.
            #expect(input[read - 1].starts(with: Array((cut["line"] as! String).utf8)))
        }
        let metrics = prometheusSamples(directory.file("m.prom"))
        #expect(metrics["sluice_run_exit_code"] == 143)
        #expect(metrics["sluice_lines_in_total"] == Double(read))
    }

    @Test(arguments: ["  ", "\r", " \t\r"])
    func aBlankPartialLineCutBySIGTERMIsSkippedAsBlankNotRejected(tail: String) throws {
        let directory = TemporaryDirectory()
        let input = try generate(2, in: directory)
        let sluice = try SluiceProcess(["run", "--flush-interval", "100ms", "--metrics", "m.prom", "--stats", "s.json"],
                                       in: directory.path)
        // One write (atomic on a pipe): the two lines and the blank start of a third arrive together.
        var bytes: [UInt8] = []
        for line in input { bytes += line + [0x0A] }
        sluice.send(bytes + Array(tail.utf8))
        #expect(waitUntil(timeout: 30) { linesIn(metrics: directory.file("m.prom")) == input.count })
        sluice.signal(SIGTERM)
        #expect(sluice.waitForExit(timeout: 30) == 143, "\(sluice.stderr)")
        sluice.closeInput()
        let stats = json(Array(FileManager.default.contents(atPath: directory.file("s.json"))!))
        #expect(stats["lines_in"] as? Int == input.count)
        #expect(stats["rejected"] as? Int == 0)
        #expect(stats["blank_lines"] as? Int == 1)
        #expect(stats["balanced"] as? Bool == true)
        #expect(gunzipFiles(directory, under: "out/rejects/").isEmpty)
    }

    @Test func sigintWhileWaitingForInputDrainsTheStagesAndExits130() throws {
        let directory = TemporaryDirectory()
        let input = try generate(400, in: directory)
        let sluice = try SluiceProcess(["run", "--pipeline", repositoryRoot + "/pipelines/timed.yaml", "--flush-interval", "100ms",
                                        "--metrics", "m.prom", "--stats", "s.json"], in: directory.path)
        sluice.send(lines: input)
        // The input stays open: sluice is blocked waiting for more when the signal comes.
        #expect(waitUntil(timeout: 30) { linesIn(metrics: directory.file("m.prom")) == input.count })
        sluice.signal(SIGINT)
        #expect(sluice.waitForExit(timeout: 30) == 130, "\(sluice.stderr)")
        #expect(!directory.files().contains { $0.hasSuffix(".part") })
        let stats = json(Array(FileManager.default.contents(atPath: directory.file("s.json"))!))
        #expect(stats["lines_in"] as? Int == input.count)
        #expect(stats["balanced"] as? Bool == true)
        // Timers still open were drained as at the end of input, not lost.
        let timed = (stats["stages"] as! [[String: Any]]).first { $0["stage"] as? String == "timed" }!
        #expect(timed["abandoned_end_of_input"] as? Int ?? 0 > 0)
    }

    @Test func sighupClosesTheCurrentFilesAndStartsNewOnesWithoutLosingOrDoublingARecord() throws {
        let directory = TemporaryDirectory()
        let input = try generate(600, in: directory, malformed: 0.05)
        let (first, second) = (Array(input[..<300]), Array(input[300...]))
        let sluice = try SluiceProcess(["run", "--flush-interval", "100ms", "--metrics", "m.prom"], in: directory.path)
        sluice.send(lines: first)
        #expect(waitUntil(timeout: 30) { linesIn(metrics: directory.file("m.prom")) == first.count })
        #expect(directory.files().filter { $0.hasSuffix(".ndjson.gz") }.isEmpty)
        sluice.signal(SIGHUP)
        // The files of the first half are renamed while the input stays open.
        #expect(waitUntil(timeout: 30) {
            directory.files().contains { $0.hasPrefix("out/archive/") && $0.hasSuffix(".ndjson.gz") } &&
                directory.files().contains { $0.hasPrefix("out/rejects/") && $0.hasSuffix(".ndjson.gz") } &&
                !directory.files().contains { $0.hasSuffix(".part") }
        })
        sluice.send(lines: second)
        sluice.closeInput()
        #expect(sluice.waitForExit(timeout: 30) == 0, "\(sluice.stderr)")

        let archive = gunzipFiles(directory, under: "out/archive/")
        let rejects = gunzipFiles(directory, under: "out/rejects/")
        #expect(archive.map(\.file) == ["out/archive/2026-11-20/archive-08-0000.ndjson.gz", "out/archive/2026-11-20/archive-08-0001.ndjson.gz"])
        #expect(rejects.count == 2)
        let rejectedNumbers = rejects.map { $0.lines.map { json($0)["line_number"] as! Int } }
        // Before the signal in the old files, after it in the new ones; every line once.
        #expect(rejectedNumbers[0].allSatisfy { $0 <= 300 } && rejectedNumbers[1].allSatisfy { $0 > 300 })
        let rejectedSet = Set(rejectedNumbers.joined())
        let firstHalfInOldFile = archive[0].lines == first.enumerated().filter { !rejectedSet.contains($0.offset + 1) }.map(\.element)
        let secondHalfInNewFile = archive[1].lines == second.enumerated().filter { !rejectedSet.contains($0.offset + 301) }.map(\.element)
        #expect(firstHalfInOldFile)
        #expect(secondHalfInNewFile)
        #expect(rejectedSet.count + archive[0].lines.count + archive[1].lines.count == input.count)
    }

    @Test func sigusr1PrintsTheStatsSoFarOnStderr() throws {
        let directory = TemporaryDirectory()
        let input = try generate(50, in: directory)
        let sluice = try SluiceProcess(["run", "--flush-interval", "100ms", "--metrics", "m.prom"], in: directory.path)
        sluice.send(lines: input)
        #expect(waitUntil(timeout: 30) { linesIn(metrics: directory.file("m.prom")) == 50 })
        sluice.signal(SIGUSR1)
        #expect(waitUntil(timeout: 30) { sluice.stderr.contains("stats so far: {\"lines_in\":50,") })
        sluice.closeInput()
        #expect(sluice.waitForExit(timeout: 30) == 0)
        #expect(sluice.stdout.isEmpty)
        // One message per line, each from sluice.
        #expect(sluice.stderr.split(separator: "\n").allSatisfy { $0.hasPrefix("sluice: ") })
    }

    @Test func sigtermOnAFileInputFinishesTheLineBeingReadInsteadOfRejectingIt() throws {
        let directory = TemporaryDirectory()
        // Lines of 1,000 bytes with their newline, so the file's first 256 KiB read ends inside one.
        let head = #"{"type":"track","event":"tap","anonymousId":"dev-1","timestamp":"2026-11-20T08:00:10Z","messageId":"f"#
        let lines = (0..<2000).map { index -> String in
            let start = head + String(format: "%04d", index) + #"","properties":{"pad":""#
            return start + String(repeating: "p", count: 999 - start.utf8.count - 3) + #""}}"#
        }
        #expect(lines.allSatisfy { $0.utf8.count == 999 })
        directory.write("file.ndjson", lines.joined(separator: "\n") + "\n")
        let sluice = try SluiceProcess(["run", "--stats", "s.json", "--metrics", "m.prom", "--flush-interval", "100ms", "file.ndjson", "-"],
                                       in: directory.path)
        // Stdin's line is the earliest: the merge waits on stdin, with the file's first read done.
        let early = #"{"type":"track","event":"tap","anonymousId":"dev-2","timestamp":"2026-11-20T08:00:00Z","messageId":"s1"}"#
        #expect(sluice.send(Array(early.utf8) + [0x0A]))
        #expect(waitUntil(timeout: 30) { linesIn(metrics: directory.file("m.prom")) >= 2 })
        sluice.signal(SIGTERM)
        let status = sluice.waitForExit(timeout: 30)
        sluice.closeInput()
        #expect(status == 143, "\(sluice.stderr)")
        let stats = json(Array(FileManager.default.contents(atPath: directory.file("s.json"))!))
        #expect(stats["rejected"] as? Int == 0, "no line of the file was cut: \(stats["rejected_by_reason"] ?? "")")
        #expect(stats["balanced"] as? Bool == true)
        let fileLines = try #require((stats["inputs"] as? [[String: Any]])?.first { $0["path"] as? String == "file.ndjson" }?["lines"] as? Int)
        #expect(fileLines > 0 && fileLines < 2000, "the stop came in the middle of the file")
        // Exactly the file's first lines, whole, and stdin's.
        let delivered = gunzipFiles(directory, under: "out/archive/").flatMap(\.lines).map { String(decoding: $0, as: UTF8.self) }
        #expect(Set(delivered) == Set([early] + lines[..<fileLines]))
        #expect(delivered.count == fileLines + 1)
    }

    @Test(arguments: [(SIGTERM, Int32(143)), (SIGINT, Int32(130))])
    func aSignalWhileWaitingForAFIFOsWriterExitsAtOnce(signal: Int32, status: Int32) throws {
        let directory = TemporaryDirectory()
        #expect(mkfifo(directory.file("in.fifo"), 0o644) == 0)
        let sluice = try SluiceProcess(["run", "--metrics", "m.prom", "--stats", "s.json", "--flush-interval", "100ms", "in.fifo"],
                                       in: directory.path)
        // Metrics are written while it waits: the wait serves timers, and so signals.
        #expect(waitUntil(timeout: 30) { FileManager.default.fileExists(atPath: directory.file("m.prom")) }, "\(sluice.stderr)")
        let signalled = Date()
        sluice.signal(signal)
        #expect(sluice.waitForExit(timeout: 20) == status, "\(sluice.stderr)")
        #expect(Date().timeIntervalSince(signalled) < 10, "not after --shutdown-timeout (30s)")
        let stats = json(Array(FileManager.default.contents(atPath: directory.file("s.json")) ?? Data()))
        #expect(stats["lines_in"] as? Int == 0)
        #expect(stats["balanced"] as? Bool == true)
    }

    /// Whether the process catches `signal` (its `SigCgt` in /proc), and how
    /// many threads it has, from one read of its status, without waiting.
    private func catches(_ signal: Int32, pid: Int32) -> (caught: Bool, threads: Int) {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return (false, 0) }
        func field(_ name: String) -> Substring? {
            status.split(separator: "\n").first { $0.hasPrefix(name + ":") }?.dropFirst(name.count + 1)
        }
        let mask = field("SigCgt").flatMap { UInt64($0.trimmingCharacters(in: .whitespaces), radix: 16) } ?? 0
        let threads = field("Threads").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? 0
        return (mask & (1 << UInt64(signal - 1)) != 0, threads)
    }

    /// Signals sent the moment the handlers are in place, which for `run` is
    /// before the Swift runtime, the argument parser and the run start (the
    /// process has no thread but its first yet): each waits for the run and
    /// is served by it, none takes the default action.
    @Test func signalsSentRightAfterExecAreServedByTheRunNotFatal() throws {
        var seenBeforeAnyOtherThread = 0
        for _ in 0..<5 {
            let directory = TemporaryDirectory()
            let sluice = try SluiceProcess(["run", "--stats", "s.json"], in: directory.path)
            // Polled without a pause: the first moment a signal can be caught at all.
            let deadline = Date().addingTimeInterval(30)
            var seen = catches(SIGTERM, pid: sluice.pid)
            while !seen.caught && Date() < deadline { seen = catches(SIGTERM, pid: sluice.pid) }
            sluice.signal(SIGHUP)
            sluice.signal(SIGUSR1)
            sluice.signal(SIGTERM)
            if seen.threads == 1 { seenBeforeAnyOtherThread += 1 }
            let status = sluice.waitForExit(timeout: 30)
            sluice.closeInput()
            #expect(status == 143, "\(sluice.stderr)")
            #expect(sluice.stderr.contains("SIGTERM: stopping input"))
            let stats = json(Array(FileManager.default.contents(atPath: directory.file("s.json")) ?? Data()))
            #expect(stats["balanced"] as? Bool == true)
        }
        // Installed before anything else ran (a poll from another process may see it late, not never).
        #expect(seenBeforeAnyOtherThread > 0)
    }

    /// A FIFO given as --pipeline that no one writes: the run waits for its
    /// writer, and a SIGTERM ends the wait at once (143, nothing read), where
    /// open(2) used to block where no signal reached it.
    @Test func aSigtermEndsTheWaitForAPipelineFIFOsWriter() throws {
        let directory = TemporaryDirectory()
        #expect(mkfifo(directory.file("p.fifo"), 0o644) == 0)
        directory.write("in.ndjson", "")
        let sluice = try SluiceProcess(["run", "--pipeline", "p.fifo", "--stats", "s.json", "in.ndjson"], in: directory.path)
        #expect(waitUntil(timeout: 30) { catches(SIGTERM, pid: sluice.pid).caught })
        sluice.signal(SIGTERM)
        let status = sluice.waitForExit(timeout: 20)
        #expect(status == 143, "\(sluice.stderr)")
        #expect(sluice.stderr.contains("SIGTERM while waiting for --pipeline p.fifo's writer: nothing was read"), "\(sluice.stderr)")
        let stats = json(Array(FileManager.default.contents(atPath: directory.file("s.json")) ?? Data()))
        #expect(stats["exit_code"] as? Int == 143, "\(stats)")
    }

    /// A FIFO given as --stats whose reader never comes: a SIGTERM while the
    /// finished run waits for it is served (143; the metrics file says so),
    /// not dropped for an exit 0 once a reader comes.
    @Test func aSigtermWhileStatsWaitsForAFIFOsReaderIsServed() throws {
        let directory = TemporaryDirectory()
        #expect(mkfifo(directory.file("s.fifo"), 0o644) == 0)
        directory.write("in.ndjson", #"{"type":"track","event":"e","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z"}"# + "\n")
        let sluice = try SluiceProcess(["run", "--stats", "s.fifo", "--metrics", "m.prom", "in.ndjson"], in: directory.path)
        // The archive file is finished before the reports are written: the run waits for the FIFO's reader now.
        #expect(waitUntil(timeout: 30) { directory.files().contains { $0.hasPrefix("out/archive/") && $0.hasSuffix(".ndjson.gz") } })
        sluice.signal(SIGTERM)
        let status = sluice.waitForExit(timeout: 20)
        #expect(status == 143, "\(sluice.stderr)")
        // (Or, had the signal come just before the reports, a stopped run that does not wait for a reader.)
        #expect(sluice.stderr.contains("cannot write --stats s.fifo"), "\(sluice.stderr)")
        #expect(prometheusSamples(directory.file("m.prom"))["sluice_run_exit_code"] == 143)
    }

    /// A drain that cannot finish: one destination goes to a stdout nobody
    /// reads, so the run blocks in write(2) with another destination's `.part` open.
    private func stuckRun(_ directory: TemporaryDirectory, extra: [String]) throws -> (SluiceProcess, Pipe) {
        _ = try generate(3000, in: directory)
        directory.write("p.yaml", "version: 1\ndestinations:\n  copy: {type: ndjson}\n  archive: {type: ndjson}\n")
        let stdout = Pipe()
        let sluice = try SluiceProcess(["run", "--pipeline", "p.yaml", "--stdout", "archive", "--flush-interval", "100ms"] + extra + ["in.ndjson"],
                                       in: directory.path, stdout: stdout.fileHandleForWriting)
        try stdout.fileHandleForWriting.close()
        #expect(waitUntil(timeout: 30) { directory.files().contains { $0.hasPrefix("out/copy/") && $0.hasSuffix(".part") } })
        return (sluice, stdout)
    }

    @Test func aSecondSigintExitsAtOnceNamingTheFilesLeftPart() throws {
        let directory = TemporaryDirectory()
        let (sluice, stdout) = try stuckRun(directory, extra: [])
        sluice.signal(SIGINT)
        #expect(waitUntil(timeout: 30) { sluice.stderr.contains("SIGINT: stopping input") })
        sluice.signal(SIGINT)
        #expect(sluice.waitForExit(timeout: 10) == 75)
        #expect(sluice.stderr.contains("a second SIGINT"))
        #expect(sluice.stderr.contains("left as .part: out/copy/2026-11-20/copy-08-0000.ndjson.gz.part"))
        #expect(sluice.stderr.contains("sluice recover out"))
        _ = stdout
    }

    @Test(arguments: ["second SIGINT", "shutdown timeout"])
    func aForcedExit75WritesStatsAndMetricsSayingSo(how: String) throws {
        let directory = TemporaryDirectory()
        // What an earlier run that succeeded left: its exit 0 must not stay.
        directory.write("s.json", #"{"exit_code":0,"last_success_at":"2026-11-20T08:00:00.000Z"}"#)
        let extra = ["--stats", "s.json", "--metrics", "m.prom"] + (how == "shutdown timeout" ? ["--shutdown-timeout", "1s"] : [])
        let (sluice, stdout) = try stuckRun(directory, extra: extra)
        if how == "second SIGINT" {
            sluice.signal(SIGINT)
            #expect(waitUntil(timeout: 30) { sluice.stderr.contains("SIGINT: stopping input") })
            sluice.signal(SIGINT)
        } else {
            sluice.signal(SIGTERM)
        }
        #expect(sluice.waitForExit(timeout: 30) == 75)
        let stats = json(Array(FileManager.default.contents(atPath: directory.file("s.json")) ?? Data()))
        #expect(stats["exit_code"] as? Int == 75, "\(stats)")
        #expect((stats["error"] as? String)?.contains("left as .part: out/copy/") == true, "\(stats)")
        #expect(stats["last_success_at"] as? String == "2026-11-20T08:00:00.000Z")
        // The counts the run last reported (zeros if it was stuck before its first report).
        #expect(stats["lines_in"] is Int, "\(stats)")
        let metrics = prometheusSamples(directory.file("m.prom"))
        #expect(metrics["sluice_run_exit_code"] == 75, "\(metrics)")
        _ = stdout
    }

    @Test func aDrainPastTheShutdownTimeoutExits75NamingTheFilesLeftPart() throws {
        let directory = TemporaryDirectory()
        let (sluice, stdout) = try stuckRun(directory, extra: ["--shutdown-timeout", "1s"])
        let signalled = Date()
        sluice.signal(SIGTERM)
        #expect(sluice.waitForExit(timeout: 30) == 75)
        #expect(Date().timeIntervalSince(signalled) >= 1)
        #expect(sluice.stderr.contains("did not finish within --shutdown-timeout"))
        #expect(sluice.stderr.contains("left as .part: out/copy/2026-11-20/copy-08-0000.ndjson.gz.part"))
        _ = stdout
    }
}
