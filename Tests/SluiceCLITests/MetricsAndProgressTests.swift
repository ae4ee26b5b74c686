import Foundation
import SluiceTestSupport
import Testing

/// End-to-end: `--metrics` (a Prometheus textfile) and `--progress` from the real binary.
@Suite struct MetricsAndProgressTests {
    @Test func theMetricsFileHoldsTheSameAccountingAsTheStatsAndIsWrittenAtomically() throws {
        let directory = TemporaryDirectory()
        #expect(try SluiceBinary.shell("$SLUICE generate --events 5000 --malformed 0.05 --seed 9 > in.ndjson", in: directory.path).status == 0)
        let result = try SluiceBinary.run(["run", "--pipeline", repositoryRoot + "/pipelines/providers.yaml",
                                           "--metrics", "metrics/sluice.prom", "--stats", "s.json", "in.ndjson"], in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        let stats = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("s.json")))) as? [String: Any])
        let metrics = prometheusSamples(directory.file("metrics/sluice.prom"))
        #expect(metrics["sluice_lines_in_total"] == Double(stats["lines_in"] as! Int))
        #expect(metrics["sluice_lines_emitted_total"] == Double(stats["emitted"] as! Int))
        for (reason, count) in stats["rejected_by_reason"] as! [String: Int] {
            #expect(metrics["sluice_lines_rejected_total{reason=\"\(reason)\"}"] == Double(count))
        }
        for destination in stats["destinations"] as! [[String: Any]] {
            let labels = "{destination=\"\(destination["name"]!)\",type=\"\(destination["type"]!)\"}"
            #expect(metrics["sluice_destination_records_total" + labels] == Double(destination["records"] as! Int))
            #expect(metrics["sluice_destination_files_total" + labels] == Double(destination["files"] as! Int))
        }
        #expect(metrics["sluice_run_finished"] == 1)
        #expect(metrics["sluice_run_exit_code"] == 0)
        #expect(metrics["sluice_lines_in_flight"] == 0)
        // Only the file itself: the temp file it was written through is gone.
        #expect(directory.files().filter { $0.hasPrefix("metrics/") } == ["metrics/sluice.prom"])
    }

    @Test func progressLinesGoToStderrOnlyWhenAskedForWhenStderrIsNotATerminal() throws {
        let directory = TemporaryDirectory()
        #expect(try SluiceBinary.shell("$SLUICE generate --events 30 --seed 2 > in.ndjson", in: directory.path).status == 0)
        let input = ndjsonLines(Array(FileManager.default.contents(atPath: directory.file("in.ndjson"))!))
        for (flag, shown) in [("--progress", true), ("--no-progress", false), (nil, false)] as [(String?, Bool)] {
            let out = "out-\(flag ?? "default")"
            let sluice = try SluiceProcess(["run", "--out", out, "--metrics", "\(out).prom", "--flush-interval", "100ms"] + (flag.map { [$0] } ?? []),
                                           in: directory.path)
            sluice.send(lines: input)
            #expect(waitUntil(timeout: 30) { linesIn(metrics: directory.file("\(out).prom")) == 30 })
            if shown {
                // One line a second while the input is open (stderr is a file here, so no redrawing).
                #expect(waitUntil(timeout: 10) { sluice.stderr.contains("sluice: 30 events, ") && sluice.stderr.contains(" MB read") })
            }
            sluice.closeInput()
            #expect(sluice.waitForExit(timeout: 30) == 0)
            #expect(sluice.stderr.contains("sluice: 30 events, ") == shown, "\(flag ?? "default"): \(sluice.stderr)")
            #expect(sluice.stdout.isEmpty)
        }
    }
}
