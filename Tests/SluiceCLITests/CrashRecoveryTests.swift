import Foundation
import SluiceTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// End-to-end: `kill -9` in the middle of a run, then `sluice recover`, then
/// a check of every file; and a disk that fills up (`ulimit -f`).
@Suite struct CrashRecoveryTests {
    private func generate(_ events: Int, in directory: TemporaryDirectory) throws -> [[UInt8]] {
        let result = try SluiceBinary.shell("$SLUICE generate --events \(events) --duplicates 0 --seed 3 > in.ndjson", in: directory.path)
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
        #expect(waitUntil(timeout: 60) { linesIn(metrics: directory.file("m.prom")) >= killAfter })
        sluice.signal(SIGKILL)
        #expect(sluice.waitForExit(timeout: 30) != nil)
        sluice.closeInput()

        // Right after the crash: every renamed file is complete gzip, every .part gunzips up to its last flush.
        let renamed = directory.files().filter { $0.hasSuffix(".ndjson.gz") }
        #expect(renamed.allSatisfy { TestGzip.decompressFile(directory.file($0)) != nil })
        let parts = directory.files().filter { $0.hasSuffix(".part") }
        for part in parts {
            let bytes = Array(FileManager.default.contents(atPath: directory.file(part))!)
            let flushed = TestGzip.decompressCompleteMembers(bytes).data
            #expect(flushed.isEmpty || flushed.last == 0x0A, "\(part): a flush ended mid-record")
        }
        let flushedBefore = checkRecords(directory, input: input)

        let recover = try SluiceBinary.run(["recover", "out"], in: directory.path)
        #expect(recover.status == 0, "\(recover.stdoutText)\(recover.stderr)")
        #expect(recover.stdoutText.split(separator: "\n").count == parts.count)
        // Nothing is left .part, every file is complete, no record is doubled
        // and none that was on disk before is lost.
        #expect(!directory.files().contains { $0.hasSuffix(".part") && !$0.hasPrefix("out/.quarantine/") })
        #expect(directory.files().filter { $0.hasSuffix(".ndjson.gz") }.allSatisfy { TestGzip.decompressFile(directory.file($0)) != nil })
        let afterRecovery = checkRecords(directory, input: input)
        #expect(afterRecovery >= flushedBefore)
        #expect(afterRecovery >= killAfter - 1500 - 64, "more than the unflushed tail was lost")

        // Idempotent: a second run has nothing to do.
        let again = try SluiceBinary.run(["recover", "out"], in: directory.path)
        #expect(again.status == 0)
        #expect(again.stdoutText.isEmpty)
        #expect(again.stderr.contains("no .part files, nothing to do"))
    }

    @Test func aFileSizeLimitStopsTheRunWith74NamingTheFileAndRenamesNothingIncomplete() throws {
        let directory = TemporaryDirectory()
        let input = try generate(20000, in: directory)
        // `small` rotates every 100 records (about 6 KB of gzip each); `big` grows past the limit.
        directory.write("p.yaml", """
            version: 1
            destinations:
              small: {type: ndjson, rotate: {max_events: 100}}
              big: {type: ndjson, gzip_level: 0}
            """)
        // dash counts ulimit -f in 512-byte blocks: 64 KiB per file at most. SIGXFSZ is ignored by sluice.
        let result = try SluiceBinary.shell("ulimit -f 128; exec \"$SLUICE\" run --pipeline p.yaml --stats s.json --flush-interval 50ms in.ndjson",
                                            in: directory.path, shell: "/bin/sh")
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.stderr.contains("write failed on out/big/2026-11-20/big-08-0000.ndjson.gz.part: File too large"))
        // The failing file stays .part; nothing of `big` was renamed.
        #expect(directory.files().contains("out/big/2026-11-20/big-08-0000.ndjson.gz.part"))
        #expect(!directory.files().contains { $0.hasPrefix("out/big/") && $0.hasSuffix(".ndjson.gz") })
        // Every renamed file is complete and holds whole records in input order.
        let small = gunzipFiles(directory, under: "out/small/")
        #expect(small.count > 3)
        #expect(small.dropLast().allSatisfy { $0.lines.count == 100 })
        let smallRecords = small.flatMap(\.lines)
        let smallIsAPrefix = smallRecords == Array(input.prefix(smallRecords.count))
        #expect(smallIsAPrefix)
        // The stats of a failed run are still written, and name the error.
        let stats = (try? JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("s.json"))))) as? [String: Any]
        #expect((stats?["error"] as? String)?.contains("big-08-0000.ndjson.gz.part") == true)

        // recover finishes or quarantines what the failure left.
        let recover = try SluiceBinary.run(["recover", "out"], in: directory.path)
        #expect(recover.status == 0 || recover.status == 65, "\(recover.stdoutText)\(recover.stderr)")
        #expect(recover.stdoutText.contains("out/big/2026-11-20/big-08-0000.ndjson.gz.part"))
        #expect(!directory.files().contains { $0.hasSuffix(".part") && !$0.hasPrefix("out/.quarantine/") })
        #expect(directory.files().filter { $0.hasSuffix(".ndjson.gz") }.allSatisfy { TestGzip.decompressFile(directory.file($0)) != nil })
    }
}
