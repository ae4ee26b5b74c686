import Foundation
import SluiceTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// End-to-end: `sluice run --staging`, attempts that leave all or nothing
/// under `--out`: killed with SIGKILL, failed, retried after a success.
@Suite struct StagingTests {
    private func generate(_ events: Int, in directory: TemporaryDirectory, name: String = "in.ndjson",
                          start: String = "2026-11-20T08:00:00Z") throws -> [[UInt8]] {
        let result = try SluiceBinary.shell("$SLUICE generate --events \(events) --duplicates 0 --seed 3 --start \(start) > \(name)",
                                            in: directory.path)
        #expect(result.status == 0)
        return ndjsonLines(Array(FileManager.default.contents(atPath: directory.file(name))!))
    }

    private func stats(_ directory: TemporaryDirectory, _ name: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: directory.file(name)))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    private func under(_ directory: TemporaryDirectory, _ prefix: String) -> [String] {
        directory.files().filter { $0.hasPrefix(prefix + "/") }
    }

    /// Every archive record under `out`, by how many times it is there.
    private func archiveRecords(_ directory: TemporaryDirectory) -> [[UInt8]: Int] {
        var counts: [[UInt8]: Int] = [:]
        for line in gunzipFiles(directory, under: "out/archive/").flatMap(\.lines) { counts[line, default: 0] += 1 }
        return counts
    }

    @Test func aKilledAttemptLeavesNothingUnderOutAndTheRetryDeliversEachRecordOnce() throws {
        let directory = TemporaryDirectory()
        let input = try generate(20000, in: directory)
        directory.write("p.yaml", "version: 1\ndestinations:\n  archive: {type: ndjson, rotate: {max_events: 1500}}\n")
        let arguments = ["run", "--pipeline", "p.yaml", "--staging", "staging", "--out", "out"]
        let sluice = try SluiceProcess(arguments + ["--flush-interval", "50ms", "--metrics", "m.prom"], in: directory.path)
        let writer = Thread {
            var index = 0
            while index < input.count, sluice.send(lines: input[index..<min(index + 20, input.count)]) { index += 20 }
        }
        writer.start()
        // Killed once files were finished (renamed) in the staging directory.
        #expect(waitUntil(timeout: 60) {
            linesIn(metrics: directory.file("m.prom")) >= 4000 && !under(directory, "staging/archive").filter { $0.hasSuffix(".ndjson.gz") }.isEmpty
        })
        sluice.signal(SIGKILL)
        #expect(sluice.waitForExit(timeout: 30) != nil)
        sluice.closeInput()
        #expect(under(directory, "out").isEmpty, "\(under(directory, "out"))")
        #expect(under(directory, "staging").contains("staging/.sluice-staging"))

        // The retry, same command: the dead attempt's files are removed, everything is written again and moved.
        let retry = try SluiceBinary.run(arguments + ["--stats", "s.json", "in.ndjson"], in: directory.path)
        #expect(retry.status == 0, "\(retry.stderr)")
        #expect(retry.stderr.contains("--staging staging: removed what an earlier attempt left"), "\(retry.stderr)")
        #expect(!FileSystem.exists(directory.file("staging")))
        let records = archiveRecords(directory)
        #expect(records.count == input.count)
        #expect(records.values.allSatisfy { $0 == 1 })
        #expect(Set(records.keys) == Set(input))
        #expect(!under(directory, "out").contains { $0.hasSuffix(".part") })
        let listed = try stats(directory, "s.json")["files"] as? [[String: Any]] ?? []
        #expect(Set(listed.compactMap { $0["path"] as? String }) == Set(under(directory, "out").map { $0 }))

        // A retry after the success: the names are taken, nothing moves, no record is there twice.
        let before = under(directory, "out").map { FileManager.default.contents(atPath: directory.file($0)) }
        let again = try SluiceBinary.run(arguments + ["in.ndjson"], in: directory.path)
        #expect(again.status == 73)
        #expect(again.stderr.contains("sluice: error: out/archive/2026-11-20/archive-08-0000.ndjson.gz exists already, so nothing was moved into place"),
                "\(again.stderr)")
        #expect(under(directory, "out").map { FileManager.default.contents(atPath: directory.file($0)) } == before)
        #expect(under(directory, "staging").contains("staging/archive/2026-11-20/archive-08-0000.ndjson.gz"))
    }

    /// An hourly series with `--state`, each hour into an `--out` of its own (its names would
    /// otherwise meet the hour before's: the carried timers come out dated then).
    @Test func aRunThatDoesNotEndWithZeroLeavesNothingInPlaceAndTheStateAsItWas() throws {
        let directory = TemporaryDirectory()
        _ = try generate(300, in: directory, name: "h8.ndjson")
        _ = try generate(300, in: directory, name: "h9.ndjson", start: "2026-11-20T09:00:00Z")
        let broken = try FileHandle(forWritingTo: URL(fileURLWithPath: directory.file("h9.ndjson")))
        try broken.seekToEnd()
        try broken.write(contentsOf: Data("{not json\n".utf8))
        try broken.close()
        let base = ["run", "--pipeline", repositoryRoot + "/pipelines/cron.yaml", "--state", "app.state", "--staging", "staging"]

        let first = try SluiceBinary.run(base + ["--out", "out8", "h8.ndjson"], in: directory.path)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(!under(directory, "out8").isEmpty)
        let state = FileManager.default.contents(atPath: directory.file("app.state"))
        #expect(state != nil)
        #expect(first.stderr.contains("carried to the state"))

        // --strict and a rejected line: exit 65, nothing moved, the state as it was.
        let strict = try SluiceBinary.run(base + ["--out", "out9", "--strict", "h9.ndjson"], in: directory.path)
        #expect(strict.status == 65)
        #expect(strict.stderr.contains("--staging: nothing was moved into place (exit 65); this attempt's files stay under staging"))
        #expect(under(directory, "out9").isEmpty)
        #expect(!under(directory, "staging").isEmpty)
        #expect(FileManager.default.contents(atPath: directory.file("app.state")) == state)

        // --stats cannot be written (its directory is a file): found at the start, exit 73, nothing read or moved.
        let reports = try SluiceBinary.run(base + ["--out", "out9", "--stats", "h8.ndjson/s.json", "h9.ndjson"], in: directory.path)
        #expect(reports.status == 73, "\(reports.stderr)")
        #expect(reports.stderr.contains("cannot write --stats h8.ndjson/s.json: Not a directory; nothing was read"), "\(reports.stderr)")
        #expect(under(directory, "out9").isEmpty)
        #expect(FileManager.default.contents(atPath: directory.file("app.state")) == state)

        // Again without --strict: the files move and the state is saved, the carried timers let out in this hour's files.
        let done = try SluiceBinary.run(base + ["--out", "out9", "--stats", "s.json", "h9.ndjson"], in: directory.path)
        #expect(done.status == 0, "\(done.stderr)")
        #expect(under(directory, "out9").contains { $0.hasPrefix("out9/rejects/") })
        #expect(under(directory, "out9").contains { $0.hasPrefix("out9/archive/2026-11-20/archive-08-") })
        #expect(FileManager.default.contents(atPath: directory.file("app.state")) != state)
        let summary = try stats(directory, "s.json")
        #expect((summary["state"] as? [String: Any])?["saved_bytes"] as? Int == FileManager.default.contents(atPath: directory.file("app.state"))?.count)
        #expect(!FileSystem.exists(directory.file("staging")))
    }

    @Test(.enabled(if: TemporaryDirectory.otherFilesystem != nil, "needs /dev/shm on another filesystem than the temporary directory"))
    func aStagingDirectoryOnAnotherFilesystemIsRefusedBeforeAnythingIsRead() throws {
        let directory = TemporaryDirectory()
        let staging = TemporaryDirectory.otherFilesystem! + "/sluice-test-staging-\(getpid())-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: staging) }
        directory.write("in.ndjson", "{}\n")
        let run = try SluiceBinary.run(["run", "--staging", staging, "--stats", "s.json", "in.ndjson"], in: directory.path)
        #expect(run.status == 73)
        #expect(run.stderr.contains("--staging \(staging) is on another filesystem than --out out"))
        #expect(under(directory, "out").isEmpty)
        // The stats say why, as after every exit.
        let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("s.json")))) as? [String: Any]
        #expect(stats?["exit_code"] as? Int == 73 && stats?["lines_in"] as? Int == 0)
        #expect((stats?["error"] as? String)?.contains("is on another filesystem") == true)
    }
}

/// `FileSystem` for the tests: whether a path exists.
private enum FileSystem {
    static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }
}
