import Foundation
import Sluice
import SluiceTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `--stats` and `--metrics` as a monitor reads them: written on every exit,
/// failures included, with the exit code, the error, the times and the last
/// success carried from the previous file; checked at the start; parsed by a
/// real Prometheus text-format parser.
@Suite struct RunReportsTests {
    static let event = #"{"type":"track","event":"e","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z"}"# + "\n"

    private func json(_ path: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    /// A first run that succeeds, then `failing` (run in bash, `$SLUICE` the binary) with the same reports.
    static let failures: [(name: String, setup: String, command: String, status: Int32)] = [
        ("a missing input", "", "\"$SLUICE\" run --stats s.json --metrics m.prom missing.ndjson", 66),
        ("a pipeline with errors", "printf 'version: 1\\ndestinations:\\n  x: {type: ndjsn}\\n' > bad.yaml",
         "\"$SLUICE\" run --pipeline bad.yaml --stats s.json --metrics m.prom in.ndjson", 78),
        ("an output that cannot be created", "touch blocked",
         "\"$SLUICE\" run --out blocked/out --stats s.json --metrics m.prom in.ndjson", 73),
        ("a state in use by another run", "",
         "exec 9> app.state.lock && flock 9 && \"$SLUICE\" run --state app.state --stats s.json --metrics m.prom in.ndjson", 75),
        ("a corrupt state", "printf 'SLUICEST garbage' > app.state",
         "\"$SLUICE\" run --state app.state --stats s.json --metrics m.prom in.ndjson", 65),
    ]

    @Test(arguments: failures)
    func aFailedRunStillWritesItsReportsWithTheExitCodeTheErrorAndTheLastSuccess(
        _ failure: (name: String, setup: String, command: String, status: Int32)) throws {
        let directory = TemporaryDirectory()
        directory.write("in.ndjson", Self.event)
        let first = try SluiceBinary.shell("\"$SLUICE\" run --quiet --stats s.json --metrics m.prom in.ndjson", in: directory.path)
        #expect(first.status == 0, "\(first.stderr)")
        let success = try json(directory.file("s.json"))
        let successMetrics = prometheusSamples(directory.file("m.prom"))
        let lastSuccess = try #require(successMetrics["sluice_last_success_timestamp_seconds"])
        #expect(success["exit_code"] as? Int == 0 && success["last_success_at"] as? String == success["ended_at"] as? String)

        let failed = try SluiceBinary.shell(failure.setup + "\n" + failure.command, in: directory.path)
        #expect(failed.status == failure.status, "\(failure.name): \(failed.stderr)")
        let stats = try json(directory.file("s.json"))
        #expect(stats["exit_code"] as? Int == Int(failure.status), "\(failure.name): \(stats)")
        #expect((stats["error"] as? String)?.isEmpty == false, "\(failure.name): \(stats)")
        #expect(stats["version"] as? String == SluiceVersion.text)
        #expect(stats["last_success_at"] as? String == success["ended_at"] as? String, "\(failure.name): the last success is carried")
        let started = try #require(RunProcess.seconds(rfc3339: stats["started_at"] as? String ?? ""))
        let ended = try #require(RunProcess.seconds(rfc3339: stats["ended_at"] as? String ?? ""))
        #expect(started <= ended && started >= lastSuccess, "\(failure.name)")
        let metrics = prometheusSamples(directory.file("m.prom"))
        #expect(metrics["sluice_run_exit_code"] == Double(failure.status), "\(failure.name)")
        #expect(metrics["sluice_run_finished"] == 1)
        #expect(metrics["sluice_last_success_timestamp_seconds"] == lastSuccess, "\(failure.name)")
        #expect(metrics["sluice_run_end_timestamp_seconds"] == ended)
        #expect(metrics["sluice_build_info{version=\"\(SluiceVersion.text)\"}"] == 1)
    }

    @Test func aMissingInputExits66BeforeAnythingIsCreated() throws {
        let directory = TemporaryDirectory()
        directory.write("in.ndjson", Self.event)
        let result = try SluiceBinary.run(["run", "--out", "out", "--stats", "s.json", "in.ndjson", "gone.ndjson"], in: directory.path)
        #expect(result.status == 66)
        #expect(result.stderr.hasPrefix("sluice: error: cannot open input gone.ndjson"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out")), "an empty out/ was left behind")
        #expect(try json(directory.file("s.json"))["exit_code"] as? Int == 66)
    }

    /// The run waits on a stdin that never ends: only a check made before
    /// reading lets it exit, with nothing created.
    @Test(arguments: ["--stats", "--metrics"])
    func anUnwritableReportFailsTheRunAtItsStartNotItsEnd(_ flag: String) throws {
        let directory = TemporaryDirectory()
        directory.write("file", "")
        let sluice = try SluiceProcess(["run", "--out", "out", flag, "file/report"], in: directory.path)
        let status = sluice.waitForExit(timeout: 60)
        #expect(status == 73, "\(sluice.stderr)")
        #expect(sluice.stderr.hasPrefix("sluice: error: cannot write \(flag) file/report: Not a directory; nothing was read"),
                "\(sluice.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out")))
    }

    @Test func statsDashWritesTheJSONToStdoutUnlessRecordsGoThere() throws {
        let directory = TemporaryDirectory()
        directory.write("in.ndjson", Self.event)
        let result = try SluiceBinary.run(["run", "--quiet", "--stats", "-", "in.ndjson"], in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        let stats = try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any]
        #expect(stats?["lines_in"] as? Int == 1 && stats?["exit_code"] as? Int == 0)
        #expect(!FileManager.default.fileExists(atPath: directory.file("-")))

        let refused = try SluiceBinary.run(["run", "--stdout", "archive", "--stats", "-", "in.ndjson"], in: directory.path)
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("--stats - is the standard output, where the records go: give it a file"), "\(refused.stderr)")
    }

    static let pythonHasPrometheusClient: Bool = {
        (try? SluiceBinary.shell("python3 -c 'import prometheus_client'", in: "/tmp").status) == 0
    }()

    /// The textfile of a run with every stateful stage and a failed one, read
    /// by prometheus_client's parser (what node_exporter's format is): every
    /// family typed, levels are gauges with a unit, no label names an input.
    @Test(.enabled(if: pythonHasPrometheusClient, "needs Python's prometheus_client (pip install prometheus_client; .ci/run installs it)"))
    func theMetricsFileIsValidPrometheusTextWithTypedGaugesAndBoundedLabels() throws {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", """
        version: 1
        stages:
          - dedupe: {}
          - session: {}
          - timed: {}
        destinations:
          archive: {type: ndjson}
        """)
        directory.write("check.py", #"""
        import sys
        from prometheus_client.parser import text_string_to_metric_families
        families = list(text_string_to_metric_families(open(sys.argv[1]).read()))
        problems = []
        names = set()
        for family in families:
            names.add(family.name)
            if family.type not in ("counter", "gauge"):
                problems.append(f"{family.name}: type {family.type}")
            level = any(word in family.name for word in ("high_water", "timestamp", "devices", "in_flight", "held", "info"))
            if level and family.type != "gauge":
                problems.append(f"{family.name}: a level typed {family.type}")
            for sample in family.samples:
                if "input" in sample.labels:
                    problems.append(f"{sample.name}: an input's name as a label")
                if "counter" in sample.labels and "high_water" in sample.labels["counter"]:
                    problems.append(f"{sample.name}: a high-water mark as a counter label")
        needed = ["sluice_build_info", "sluice_run_start_timestamp_seconds", "sluice_run_end_timestamp_seconds",
                  "sluice_last_success_timestamp_seconds", "sluice_run_exit_code"]
        if sys.argv[2] == "ran":
            needed += ["sluice_stage_timed_open_high_water_bytes", "sluice_stage_session_high_water_devices",
                       "sluice_stage_dedupe_high_water_ids", "sluice_lines_in"]
        for needed in needed:
            if needed not in names:
                problems.append(f"{needed}: missing")
        print("\n".join(problems))
        sys.exit(1 if problems else 0)
        """#)
        let run = try SluiceBinary.shell("""
            "$SLUICE" generate --events 3000 --seed 4 > in-08.ndjson && "$SLUICE" generate --events 3000 --seed 5 > in-09.ndjson \
            && "$SLUICE" run --quiet --pipeline p.yaml --metrics ok.prom in-08.ndjson in-09.ndjson \
            && cp ok.prom failed.prom && { "$SLUICE" run --quiet --pipeline p.yaml --metrics failed.prom in-08.ndjson gone; test $? = 66; }
            """, in: directory.path)
        #expect(run.status == 0, "\(run.stderr)")
        for (file, mode) in [("ok.prom", "ran"), ("failed.prom", "failed")] {
            let check = try SluiceBinary.shell("python3 check.py \(file) \(mode)", in: directory.path)
            #expect(check.status == 0, "\(file): \(check.stdoutText)\(check.stderr)")
        }
    }
}
