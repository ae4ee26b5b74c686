import Foundation
import SluiceTestSupport
import Testing

/// End-to-end: sluice as a sidecar (`tail -F app.log | sluice run`), input
/// arriving slowly and then stopping for a while.
@Suite struct SidecarTests {
    private func generate(_ events: Int, in directory: TemporaryDirectory) throws -> [[UInt8]] {
        let result = try SluiceBinary.shell("$SLUICE generate --events \(events) --duplicates 0 --seed 5 > in.ndjson", in: directory.path)
        #expect(result.status == 0)
        return ndjsonLines(Array(FileManager.default.contents(atPath: directory.file("in.ndjson"))!))
    }

    /// The lines in the complete gzip members of every `.part` under `prefix`.
    private func flushedLines(_ directory: TemporaryDirectory, under prefix: String) -> [[UInt8]] {
        directory.files().filter { $0.hasPrefix(prefix) && $0.hasSuffix(".part") }.sorted().flatMap { file -> [[UInt8]] in
            guard let bytes = FileManager.default.contents(atPath: directory.file(file)) else { return [] }
            return ndjsonLines(TestGzip.decompressCompleteMembers(Array(bytes)).data)
        }
    }

    @Test func finishedDataIsReadableInThePartFileWithinTheFlushIntervalWhileInputIsIdle() throws {
        let directory = TemporaryDirectory()
        let input = try generate(60, in: directory)
        directory.write("p.yaml", "version: 1\ndestinations:\n  archive: {type: ndjson, rotate: {max_age: 0s}}\n")
        let flushInterval = 0.5
        let sluice = try SluiceProcess(["run", "--pipeline", "p.yaml", "--flush-interval", "500ms"], in: directory.path)
        for batch in [input[..<20], input[20..<40], input[40...]] {
            let sent = Date()
            sluice.send(lines: batch)
            let expected = Array(input[..<batch.endIndex])
            // No more input comes: only the flush timer can put these lines on disk.
            #expect(waitUntil(timeout: flushInterval + 5) { flushedLines(directory, under: "out/archive/") == expected })
            let latency = Date().timeIntervalSince(sent)
            // The bound is the flush interval; the slack is for a loaded 2-core machine.
            #expect(latency < flushInterval + 2, "finished data took \(latency)s to reach the .part")
            #expect(!directory.files().contains { $0.hasSuffix(".ndjson.gz") })
        }
        sluice.closeInput()
        #expect(sluice.waitForExit(timeout: 30) == 0, "\(sluice.stderr)")
        let files = gunzipFiles(directory, under: "out/archive/")
        #expect(files.count == 1)
        let everyLineOnce = files.first?.lines == input
        #expect(everyLineOnce)
    }

    @Test func maxAgeRenamesFilesWhileInputIsIdleAndMetricsKeepComing() throws {
        let directory = TemporaryDirectory()
        let input = try generate(40, in: directory)
        directory.write("p.yaml", "version: 1\ndestinations:\n  archive: {type: ndjson, rotate: {max_age: 1s}}\n")
        let sluice = try SluiceProcess(["run", "--pipeline", "p.yaml", "--flush-interval", "200ms", "--metrics", "m.prom"],
                                       in: directory.path)
        let finished = { directory.files().filter { $0.hasPrefix("out/archive/") && $0.hasSuffix(".ndjson.gz") } }

        sluice.send(lines: input[..<20])
        #expect(waitUntil(timeout: 30) { linesIn(metrics: directory.file("m.prom")) == 20 })
        #expect(prometheusSamples(directory.file("m.prom"))["sluice_run_finished"] == 0)
        // Input stays open and idle: the age limit alone renames the file.
        #expect(waitUntil(timeout: 30) { finished().count == 1 && !directory.files().contains { $0.hasSuffix(".part") } })
        #expect(waitUntil(timeout: 30) { prometheusSamples(directory.file("m.prom"))["sluice_destination_files_total{destination=\"archive\",type=\"ndjson\"}"] == 1 })

        sluice.send(lines: input[20...])
        #expect(waitUntil(timeout: 30) { finished().count == 2 })
        sluice.closeInput()
        #expect(sluice.waitForExit(timeout: 30) == 0, "\(sluice.stderr)")
        let files = gunzipFiles(directory, under: "out/archive/")
        #expect(files.map(\.file) == ["out/archive/2026-11-20/archive-08-0000.ndjson.gz", "out/archive/2026-11-20/archive-08-0001.ndjson.gz"])
        let split = files.count == 2 && files[0].lines == Array(input[..<20]) && files[1].lines == Array(input[20...])
        #expect(split)
    }
}
