import Testing
@testable import Sluice

/// A destination's side outputs in `--stats`, in `--metrics`, read back, and
/// added up by `sluice stats merge`.
@Suite struct SideOutputStatsTests {
    private func summary(records: [Int]) -> RunSummary {
        var summary = RunSummary()
        summary.linesIn = 3
        summary.emitted = 3
        var mixpanel = RunSummary.DestinationCounts(name: "mixpanel", type: "mixpanel")
        mixpanel.events = 3
        mixpanel.records = 1
        mixpanel.files = 1
        mixpanel.outputs = zip(["profiles", "groups"], records).map { name, count in
            var output = RunSummary.OutputCounts(name: name)
            output.records = count
            output.files = count > 0 ? 1 : 0
            output.uncompressedBytes = 100 * count
            output.compressedBytes = 40 * count
            return output
        }
        summary.destinations = [mixpanel, RunSummary.DestinationCounts(name: "archive", type: "ndjson")]
        summary.files = [FinishedFile(destination: "mixpanel", output: "profiles", path: "mixpanel/profiles/p-0000.ndjson.gz",
                                      records: records[0], uncompressedBytes: 100, compressedBytes: 40)]
        return summary
    }

    @Test func theStatsListEachSideOutputUnderItsDestinationAndEachOfItsFilesWithItsOutput() {
        let json = summary(records: [2, 1]).json
        #expect(json.contains(#""outputs":[{"name":"profiles","records":2,"files":1,"uncompressed_bytes":200,"compressed_bytes":80},"#
            + #"{"name":"groups","records":1,"files":1,"uncompressed_bytes":100,"compressed_bytes":40}]"#))
        #expect(json.contains(#"{"destination":"mixpanel","output":"profiles","path":"out/mixpanel/profiles/p-0000.ndjson.gz","records":2,"#))
        // A destination without side outputs is written as before.
        #expect(json.contains(#""name":"archive","type":"ndjson","events":0,"records":0,"refused_by_reason":{},"not_taken_by_reason":{},"changes":{},"files":0,"uncompressed_bytes":0,"compressed_bytes":0}"#))
    }

    @Test func theSummaryLineSaysWhatEachSideOutputGot() {
        #expect(summary(records: [2, 0]).summaryLine.contains("mixpanel 1 records in 1 file (profiles 2 in 1 file), archive 0 records in 0 files"))
    }

    @Test func statsReadBackKeepTheSideOutputsAndTheMergeAddsThemUp() throws {
        let first = try RunSummary(statsJSON: Array(summary(records: [2, 1]).json.utf8), path: "a.json")
        #expect(first.json == summary(records: [2, 1]).json)
        let second = try RunSummary(statsJSON: Array(summary(records: [5, 0]).json.utf8), path: "b.json")
        let merged = try StatsMerge.merge([("a.json", first), ("b.json", second)])
        #expect(merged.destinations[0].outputs.map(\.records) == [7, 1])
        #expect(merged.destinations[0].outputs.map(\.uncompressedBytes) == [700, 100])
        #expect(merged.files.map(\.output) == ["profiles", "profiles"])
    }

    @Test func shardsWithoutTheSameSideOutputsAreNotOnePipeline() throws {
        var other = summary(records: [1, 1])
        other.destinations[0].outputs.removeLast()
        #expect(throws: StatsMergeError.self) {
            try StatsMerge.merge([("a.json", summary(records: [1, 1])), ("b.json", other)])
        }
    }

    @Test func theMetricsHaveASeriesPerSideOutput() {
        let text = PrometheusTextfile.render(summary(records: [2, 1]))
        #expect(text.contains("sluice_destination_output_records_total{destination=\"mixpanel\",output=\"profiles\"} 2\n"))
        #expect(text.contains("sluice_destination_output_records_total{destination=\"mixpanel\",output=\"groups\"} 1\n"))
        #expect(text.contains("sluice_destination_output_files_total{destination=\"mixpanel\",output=\"profiles\"} 1\n"))
        #expect(text.contains("sluice_destination_output_uncompressed_bytes_total{destination=\"mixpanel\",output=\"groups\"} 100\n"))
        #expect(text.contains("sluice_destination_output_compressed_bytes_total{destination=\"mixpanel\",output=\"profiles\"} 80\n"))
        #expect(text.contains("sluice_destination_records_total{destination=\"mixpanel\",type=\"mixpanel\"} 1\n"))
    }
}
