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
        summary.stages = [("timed", [("completed", 3)]), ("plan", [])]
        summary.stageGroups = [[], [CounterGroup(name: "events", counters: [],
                                                 groups: [CounterGroup(name: "movie_tapped", counters: [("checked", 4)])])]]
        summary.inputs = [RunSummary.InputCounts(path: "we\"ird\\path\nname.ndjson", lines: 11, bytes: 900)]
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
        #expect(text.contains("sluice_stage_group_counter_total{stage=\"plan\",group=\"events/movie_tapped\",counter=\"checked\"} 4\n"))
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

    @Test func labelValuesEscapeQuotesBackslashesAndNewlines() {
        let text = PrometheusTextfile.render(summary)
        #expect(text.contains(#"sluice_input_lines_total{input="we\"ird\\path\nname.ndjson"} 11"#))
    }
}
