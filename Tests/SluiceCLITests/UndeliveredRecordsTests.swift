import Foundation
import SluiceTestSupport
import Testing

/// End-to-end: an output that fails or vanishes under a run. Every record
/// that did not reach a finished file is counted `records_not_delivered`,
/// and the stats do not say `balanced`.
@Suite struct UndeliveredRecordsTests {
    private func json(_ path: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))) as? [String: Any] ?? [:]
    }

    private func destination(_ stats: [String: Any], _ name: String) -> [String: Any] {
        (stats["destinations"] as? [[String: Any]])?.first { $0["name"] as? String == name } ?? [:]
    }

    /// Records per destination in the finished files `--stats` lists.
    private func recordsInFinishedFiles(_ stats: [String: Any], _ name: String) -> Int {
        (stats["files"] as? [[String: Any]] ?? []).filter { $0["destination"] as? String == name }
            .reduce(0) { $0 + ($1["records"] as? Int ?? 0) }
    }

    @Test func aDestinationWhoseFileFailsCountsEveryRecordNotInAFinishedFileAndTheRunIsNotBalanced() throws {
        let directory = TemporaryDirectory()
        let generated = try SluiceBinary.shell("$SLUICE generate --events 20000 --seed 3 > in.ndjson", in: directory.path)
        #expect(generated.status == 0)
        // `small` rotates every 100 records; `big`, uncompressed, outgrows the file size limit.
        directory.write("p.yaml", """
            version: 1
            destinations:
              small: {type: ndjson, rotate: {max_events: 100}}
              big: {type: ndjson, gzip_level: 0}
            """)
        // dash counts ulimit -f in 512-byte blocks: 64 KiB per file at most. SIGXFSZ is ignored by sluice.
        let result = try SluiceBinary.shell("ulimit -f 128; exec \"$SLUICE\" run --pipeline p.yaml --stats s.json --metrics m.prom in.ndjson",
                                            in: directory.path, shell: "/bin/sh")
        #expect(result.status == 74, "\(result.stderr)")
        let stats = json(directory.file("s.json"))
        let big = destination(stats, "big"), small = destination(stats, "small")
        let bigRecords = try #require(big["records"] as? Int)
        #expect(bigRecords > 0)
        #expect(big["records_not_delivered"] as? Int == bigRecords - recordsInFinishedFiles(stats, "big"))
        #expect(big["records_not_delivered"] as? Int == bigRecords, "nothing of big was finished")
        #expect(small["records_not_delivered"] == nil)
        #expect(small["records"] as? Int == recordsInFinishedFiles(stats, "small"))
        #expect(stats["records_not_delivered"] as? Int == bigRecords)
        #expect(stats["balanced"] as? Bool == false)
        #expect(result.stderr.contains("\(bigRecords) records not delivered"))
        let samples = prometheusSamples(directory.file("m.prom"))
        #expect(samples["sluice_destination_records_not_delivered_total{destination=\"big\",type=\"ndjson\"}"] == Double(bigRecords))
        // `stats merge` reads the count back and keeps the shard unbalanced.
        let merged = try SluiceBinary.run(["stats", "merge", "s.json"], in: directory.path)
        #expect(merged.status == 65, "\(merged.stderr)")
        #expect(merged.stdoutText.contains("\"records_not_delivered\":\(bigRecords)"))
    }

    @Test func rejectRecordsThatNeverReachAFinishedRejectsFileAreCountedAndTheRunIsNotBalanced() throws {
        let directory = TemporaryDirectory()
        let generated = try SluiceBinary.shell("$SLUICE generate --events 4000 --seed 3 --malformed 0.5 > in.ndjson", in: directory.path)
        #expect(generated.status == 0)
        // The rejects, uncompressed, outgrow the file size limit; the destination's small files do not.
        directory.write("p.yaml", """
            version: 1
            rejects: {gzip_level: 0}
            destinations:
              small: {type: ndjson, rotate: {max_events: 100}}
            """)
        let result = try SluiceBinary.shell("ulimit -f 128; exec \"$SLUICE\" run --pipeline p.yaml --stats s.json --metrics m.prom in.ndjson",
                                            in: directory.path, shell: "/bin/sh")
        #expect(result.status == 74, "\(result.stderr)")
        let stats = json(directory.file("s.json"))
        let rejected = try #require(stats["rejected"] as? Int)
        #expect(rejected > 0)  // the run stops at the failed write
        let notDelivered = try #require(stats["reject_records_not_delivered"] as? Int)
        #expect(notDelivered > 0 && notDelivered <= rejected, "\(notDelivered) of \(rejected)")
        #expect(stats["records_not_delivered"] == nil, "the destination's records all reached finished files")
        #expect(stats["balanced"] as? Bool == false)
        #expect(result.stderr.contains("\(notDelivered) reject records not delivered"))
        let samples = prometheusSamples(directory.file("m.prom"))
        #expect(samples["sluice_reject_records_not_delivered_total"] == Double(notDelivered))
        let merged = try SluiceBinary.run(["stats", "merge", "s.json"], in: directory.path)
        #expect(merged.status == 65, "\(merged.stderr)")
        #expect(merged.stdoutText.contains("\"reject_records_not_delivered\":\(notDelivered)"))
        #expect(merged.stderr.contains("not balanced: 0 records and \(notDelivered) reject records did not reach a finished file"),
                "\(merged.stderr)")
    }

    @Test func anOutputDirectoryDeletedMidRunIsNamedAndItsRecordsCountedNotDelivered() throws {
        let directory = TemporaryDirectory()
        let generated = try SluiceBinary.shell("$SLUICE generate --events 400 --seed 3 > in.ndjson", in: directory.path)
        #expect(generated.status == 0)
        let lines = ndjsonLines(Array(FileManager.default.contents(atPath: directory.file("in.ndjson"))!))
        let sluice = try SluiceProcess(["run", "--stats", "s.json", "--metrics", "m.prom", "--flush-interval", "50ms"], in: directory.path)
        sluice.send(lines: lines[..<200])
        #expect(waitUntil(timeout: 30) { linesIn(metrics: directory.file("m.prom")) == 200 })
        #expect(waitUntil(timeout: 30) { directory.files().contains { $0.hasPrefix("out/archive/") && $0.hasSuffix(".part") } })
        try FileManager.default.removeItem(atPath: directory.file("out"))
        // The next flush finds the file gone; the run ends on it.
        sluice.send(lines: lines[200...])
        sluice.closeInput()
        let status = sluice.waitForExit(timeout: 60)
        #expect(status == 74, "\(sluice.stderr)")
        #expect(sluice.stderr.contains("was deleted while the run was writing it (was the output directory removed?)"), "\(sluice.stderr)")
        #expect(!sluice.stderr.contains("free space"))
        let stats = json(directory.file("s.json"))
        let archive = destination(stats, "archive")
        let records = try #require(archive["records"] as? Int)
        #expect(records > 0)
        #expect(archive["records_not_delivered"] as? Int == records - recordsInFinishedFiles(stats, "archive"))
        #expect((archive["records_not_delivered"] as? Int ?? 0) >= 200)
        #expect(stats["balanced"] as? Bool == false)
    }
}
