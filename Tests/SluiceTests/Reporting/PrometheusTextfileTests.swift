import Testing
@testable import Sluice

@Suite struct PrometheusTextfileTests {
    private var summary: RunSummary {
        var summary = RunSummary()
        summary.linesIn = 10
        summary.emitted = 7
        summary.rejected = [.invalidJSON: 2]
        summary.dropped = [.unrouted: 1]
        var archive = RunSummary.DestinationCounts(name: "archive", type: "ndjson")
        archive.records = 7
        archive.refused = ["invalid_event_name": 1]
        summary.destinations = [archive]
        summary.stages = [("timed", [("completed", 3), ("open_high_water", 5), ("open_bytes_high_water", 4096)]), ("plan", []),
                          ("session", [("devices", 12), ("devices_high_water", 20)])]
        summary.stageGroups = [[], [CounterGroup(name: "events", counters: [],
                                                 groups: [CounterGroup(name: "we\"ird\\name\nx", counters: [("checked", 4)])])], []]
        summary.inputs = [RunSummary.InputCounts(path: "logs/events-2026-11-20-08.ndjson.gz", lines: 11, bytes: 900),
                          RunSummary.InputCounts(path: "logs/events-2026-11-20-09.ndjson.gz", lines: 5, bytes: 300, error: "corrupt")]
        summary.elapsedSeconds = 1.5
        return summary
    }

    @Test func everyFamilyHasHelpAndTypeAndEverySampleIsWellFormed() {
        let text = PrometheusTextfile.render(summary)
        var declared: Set<String> = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# HELP ") {
                declared.insert(String(line.split(separator: " ")[2]))
            } else if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                #expect(declared.contains(String(parts[2])))
                #expect(parts[3] == "counter" || parts[3] == "gauge")
            } else {
                let name = String(line.prefix { $0 != "{" && $0 != " " })
                #expect(name.hasPrefix("sluice_"))
                #expect(declared.contains(name), "\(name) has no # HELP before it")
                #expect(Double(line.split(separator: " ").last!) != nil)
            }
        }
    }

    @Test func theAccountingIsThereWithLabelsForReasonDestinationAndStage() {
        let text = PrometheusTextfile.render(summary)
        #expect(text.contains("sluice_lines_in_total 10\n"))
        #expect(text.contains("sluice_lines_rejected_total{reason=\"invalid_json\"} 2\n"))
        #expect(text.contains("sluice_lines_dropped_total{reason=\"unrouted\"} 1\n"))
        #expect(text.contains("sluice_destination_records_total{destination=\"archive\",type=\"ndjson\"} 7\n"))
        #expect(text.contains("sluice_destination_refused_total{destination=\"archive\",reason=\"invalid_event_name\"} 1\n"))
        #expect(text.contains("sluice_stage_counter_total{stage=\"timed\",counter=\"completed\"} 3\n"))
        #expect(text.contains(#"sluice_stage_group_counter_total{stage="plan",group="events/we\"ird\\name\nx",counter="checked"} 4"# + "\n"))
        #expect(text.contains("sluice_run_elapsed_seconds 1.500\n"))
        #expect(text.contains("sluice_run_finished 0\n"))
        #expect(!text.contains("\nsluice_run_exit_code "))
        #expect(PrometheusTextfile.render(summary, outcome: .init(exitStatus: 143)).contains("sluice_run_exit_code 143\n"))
    }

    @Test func withStateTheCarriedLinesAreCounted() {
        #expect(!PrometheusTextfile.render(summary).contains("carried"))
        var withState = summary
        withState.usesState = true
        withState.carriedIn = 4
        withState.carried = 2
        let text = PrometheusTextfile.render(withState)
        #expect(text.contains("sluice_lines_carried_in_total 4\n"))
        #expect(text.contains("sluice_lines_carried_total 2\n"))
    }

    @Test func stageLevelsAreGaugesWithTheirUnitInTheNameNotCountersNamedByALabel() {
        let text = PrometheusTextfile.render(summary)
        for (name, value) in [("sluice_stage_timed_open_high_water_timers", 5), ("sluice_stage_timed_open_high_water_bytes", 4096),
                              ("sluice_stage_session_tracked_devices", 12), ("sluice_stage_session_high_water_devices", 20)] {
            #expect(text.contains("# TYPE \(name) gauge\n"), "\(name)")
            #expect(text.contains(name + "{stage=\"" + (name.contains("timed") ? "timed" : "session") + "\"} \(value)\n"), "\(name)")
        }
        #expect(!text.contains("high_water\""), "a level left among the counters")
        #expect(!text.contains("counter=\"devices\""))
        #expect(text.contains("sluice_stage_counter_total{stage=\"timed\",counter=\"completed\"} 3\n"))
    }

    @Test func inputsAreAddedUpWithoutASeriesPerFileName() {
        let text = PrometheusTextfile.render(summary)
        #expect(!text.contains("events-2026"), "an input's name in a label: one series per hourly log")
        #expect(text.contains("sluice_inputs 2\n"))
        #expect(text.contains("sluice_input_lines_total 16\n"))
        #expect(text.contains("sluice_input_bytes_total 1200\n"))
        #expect(text.contains("sluice_input_errors_total 1\n"))
    }

    @Test func theBuildAndTheRunsTimesAreThereAndTheEndOnlyOnceItEnded() {
        var running = summary
        running.process = RunProcess(startedAt: 1_795_000_000.25)
        running.process?.lastSuccessAt = 1_794_990_000
        let text = PrometheusTextfile.render(running)
        #expect(text.contains("sluice_build_info{version=\"\(SluiceVersion.text)\"} 1\n"))
        #expect(text.contains("sluice_run_start_timestamp_seconds 1795000000.250\n"))
        #expect(text.contains("sluice_last_success_timestamp_seconds 1794990000.000\n"))
        #expect(!text.contains("sluice_run_end_timestamp_seconds"))
        var ended = running
        ended.process?.end(exitCode: 66, at: 1_795_000_010)
        let failed = PrometheusTextfile.render(ended, outcome: .init(exitStatus: 66))
        #expect(failed.contains("sluice_run_end_timestamp_seconds 1795000010.000\n"))
        #expect(failed.contains("sluice_last_success_timestamp_seconds 1794990000.000\n"), "a failure keeps the last success")
        ended.process?.end(exitCode: 0, at: 1_795_000_020)
        #expect(PrometheusTextfile.render(ended).contains("sluice_last_success_timestamp_seconds 1795000020.000\n"))
    }
}
