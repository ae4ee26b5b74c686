import Foundation
import SluiceTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// End-to-end: `kill -9` in the middle of a run, then `sluice recover`, then
/// a check of every file; and a disk that fills up (`ulimit -f`).
@Suite struct CrashRecoveryTests {
    private func generate(_ events: Int, in directory: TemporaryDirectory, start: String = "2026-11-20T08:00:00Z") throws -> [[UInt8]] {
        let result = try SluiceBinary.shell("$SLUICE generate --events \(events) --duplicates 0 --seed 3 --start \(start) > in.ndjson",
                                            in: directory.path)
        #expect(result.status == 0)
        return ndjsonLines(Array(FileManager.default.contents(atPath: directory.file("in.ndjson"))!))
    }

    /// Every record under out/archive is an input line, none twice, and each
    /// file series (one per hour) holds them in input order.
    private func checkRecords(_ directory: TemporaryDirectory, input: [[UInt8]]) -> Int {
        var position: [[UInt8]: Int] = [:]
        for (index, line) in input.enumerated() { position[line] = index }
        var seen = Set<Int>()
        var lastBySeries: [String: Int] = [:]
        for (file, lines) in gunzipFiles(directory, under: "out/archive/") {
            let series = String(file.prefix { $0 != "-" } + file.split(separator: "-")[1])
            for line in lines {
                guard let index = position[line] else {
                    Issue.record("\(file) holds a line that is not an input line")
                    continue
                }
                #expect(seen.insert(index).inserted, "line \(index + 1) is in the output twice")
                #expect(index > lastBySeries[series, default: -1], "\(file) is out of order")
                lastBySeries[series] = index
            }
        }
        return seen.count
    }

    @Test(arguments: [500, 4000, 12000])
    func afterKillMinus9RecoverLeavesOnlyCompleteFilesAndNoRecordTwice(killAfter: Int) throws {
        let directory = TemporaryDirectory()
        let input = try generate(20000, in: directory)
        directory.write("p.yaml", "version: 1\ndestinations:\n  archive: {type: ndjson, rotate: {max_events: 1500}}\n")
        let sluice = try SluiceProcess(["run", "--pipeline", "p.yaml", "--flush-interval", "50ms", "--metrics", "m.prom"],
                                       in: directory.path)
        let writer = Thread {
            var index = 0
            while index < input.count, sluice.send(lines: input[index..<min(index + 20, input.count)]) { index += 20 }
        }
        writer.start()
        // Kill once that many lines were read and something is on disk (a renamed
        // file or a flushed member): on a busy machine the flush may lag the reading.
        #expect(waitUntil(timeout: 60) {
            linesIn(metrics: directory.file("m.prom")) >= killAfter && directory.files().contains { name in
                name.hasSuffix(".ndjson.gz") || (name.hasSuffix(".part") && TestGzip.decompressCompleteMembers(
                    Array(FileManager.default.contents(atPath: directory.file(name)) ?? Data())).members > 0)
            }
        })
        sluice.signal(SIGKILL)
        #expect(sluice.waitForExit(timeout: 30) != nil)
        sluice.closeInput()

        // Right after the crash: every renamed file is complete gzip, every .part gunzips up to its last flush.
        let renamed = directory.files().filter { $0.hasSuffix(".ndjson.gz") }
        #expect(renamed.allSatisfy { TestGzip.decompressFile(directory.file($0)) != nil })
        let parts = directory.files().filter { $0.hasSuffix(".part") }
        var flushedInParts = 0
        for part in parts {
            let bytes = Array(FileManager.default.contents(atPath: directory.file(part))!)
            let flushed = TestGzip.decompressCompleteMembers(bytes).data
            #expect(flushed.isEmpty || flushed.last == 0x0A, "\(part): a flush ended mid-record")
            flushedInParts += flushed.isEmpty ? 0 : ndjsonLines(flushed).count
        }
        let inRenamedFiles = checkRecords(directory, input: input)

        let recover = try SluiceBinary.run(["recover", "out"], in: directory.path)
        #expect(recover.status == 0, "\(recover.stdoutText)\(recover.stderr)")
        #expect(recover.stdoutText.split(separator: "\n").count == parts.count)
        // Nothing is left .part, every file is complete, no record is doubled
        // and none that was on disk before is lost.
        #expect(!directory.files().contains { $0.hasSuffix(".part") && !$0.hasPrefix("out/.quarantine/") })
        #expect(directory.files().filter { $0.hasSuffix(".ndjson.gz") }.allSatisfy { TestGzip.decompressFile(directory.file($0)) != nil })
        // What was flushed survives (the renamed files plus the complete members
        // of the .part files), and whole records of members cut by the kill; no half record.
        #expect(checkRecords(directory, input: input) >= inRenamedFiles + flushedInParts)
        #expect(inRenamedFiles + flushedInParts > 0)

        // Idempotent: a second run has nothing to do.
        let again = try SluiceBinary.run(["recover", "out"], in: directory.path)
        #expect(again.status == 0)
        #expect(again.stdoutText.isEmpty)
        #expect(again.stderr.contains("no .part files, nothing to do"))
    }

    @Test func recoverGivenAFileSaysToGiveItsDirectory() throws {
        let directory = TemporaryDirectory()
        directory.write("out/archive/a.ndjson.gz.part", TestGzip.compress(Array("{}\n".utf8)))
        let result = try SluiceBinary.run(["recover", "out/archive/a.ndjson.gz.part"], in: directory.path)
        #expect(result.status == 66, "\(result.stderr)")
        #expect(!result.stderr.contains("cannot open directory"), "\(result.stderr)")
        #expect(result.stderr.contains("out/archive/a.ndjson.gz.part is a file, not a directory"), "\(result.stderr)")
        #expect(result.stderr.contains("give that directory (here out/archive)"), "\(result.stderr)")
        let missing = try SluiceBinary.run(["recover", "nowhere"], in: directory.path)
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("cannot open directory nowhere: No such file or directory"), "\(missing.stderr)")
    }

    @Test func aFileSizeLimitStopsTheRunWith74NamingTheFileAndRenamesNothingIncomplete() throws {
        let directory = TemporaryDirectory()
        let hour8 = try generate(20000, in: directory)
        let hour9 = Array(try generate(50, in: directory, start: "2026-11-20T09:00:00Z"))
        // `small` rotates every 100 records (a few KB of gzip each); `big` grows past the limit.
        directory.write("p.yaml", """
            version: 1
            destinations:
              small: {type: ndjson, rotate: {max_events: 100}}
              big: {type: ndjson, gzip_level: 0}
            """)
        // dash counts ulimit -f in 512-byte blocks: 64 KiB per file at most. SIGXFSZ is ignored by sluice.
        let sluice = try SluiceProcess(["-c", "ulimit -f 128; exec \"$SLUICE\" run --pipeline p.yaml --stats s.json --metrics m.prom --flush-interval 50ms"],
                                       in: directory.path, executable: "/bin/sh")
        // Both of big's files open (hour 08, then 09), then hour 08 outgrows the limit.
        sluice.send(lines: hour8[..<50])
        #expect(waitUntil(timeout: 30) { linesIn(metrics: directory.file("m.prom")) == 50 })
        sluice.send(lines: hour9)
        #expect(waitUntil(timeout: 30) { directory.files().contains("out/big/2026-11-20/big-09-0000.ndjson.gz.part") })
        sluice.send(lines: hour8[50...])
        sluice.closeInput()
        let status = sluice.waitForExit(timeout: 60)
        #expect(status == 74, "\(sluice.stderr)")
        #expect(sluice.stderr.contains("write failed on out/big/2026-11-20/big-08-0000.ndjson.gz.part: File too large"))
        // The failing file stays .part, and so does the other file `big` had open, which
        // may lack records sent after the failure: nothing of `big` was renamed.
        #expect(directory.files().filter { $0.hasPrefix("out/big/") } ==
            ["out/big/2026-11-20/big-08-0000.ndjson.gz.part", "out/big/2026-11-20/big-09-0000.ndjson.gz.part"])
        // Every renamed file is complete and holds whole records in input order, 100 a file but each hour's last.
        let small = gunzipFiles(directory, under: "out/small/")
        let smallHour8 = small.filter { $0.file.contains("-08-") }
        #expect(smallHour8.count > 3)
        #expect(smallHour8.dropLast().allSatisfy { $0.lines.count == 100 })
        let smallIsAPrefix = smallHour8.flatMap(\.lines) == Array(hour8.prefix(smallHour8.flatMap(\.lines).count))
        #expect(smallIsAPrefix)
        let smallHour9 = small.filter { $0.file.contains("-09-") }.flatMap(\.lines) == hour9
        #expect(smallHour9)
        // The stats of a failed run are still written, and name the error.
        let stats = (try? JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("s.json"))))) as? [String: Any]
        #expect((stats?["error"] as? String)?.contains("big-08-0000.ndjson.gz.part") == true)
        #expect(prometheusSamples(directory.file("m.prom"))["sluice_run_exit_code"] == 74)

        // recover finishes what the failure left: 09 is whole members, 08 keeps what was flushed, if anything.
        let recover = try SluiceBinary.run(["recover", "out"], in: directory.path)
        #expect(recover.status == 0 || recover.status == 65, "\(recover.stdoutText)\(recover.stderr)")
        #expect(recover.stdoutText.contains("renamed      out/big/2026-11-20/big-09-0000.ndjson.gz.part"))
        #expect(recover.stdoutText.contains("out/big/2026-11-20/big-08-0000.ndjson.gz.part"))
        #expect(!directory.files().contains { $0.hasSuffix(".part") && !$0.hasPrefix("out/.quarantine/") })
        #expect(directory.files().filter { $0.hasSuffix(".ndjson.gz") }.allSatisfy { TestGzip.decompressFile(directory.file($0)) != nil })
        let big9 = gunzipFiles(directory, under: "out/big/2026-11-20/big-09").flatMap(\.lines) == hour9
        #expect(big9)
    }
}
