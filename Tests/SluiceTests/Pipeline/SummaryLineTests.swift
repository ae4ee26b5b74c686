import Testing
@testable import Sluice

/// The run's summary line (stderr) names what each destination refused, so a
/// destination that got nothing does not look like one that was sent nothing.
@Suite struct SummaryLineTests {
    private func line(refused: [String: Int]) -> String {
        var summary = RunSummary()
        summary.linesIn = 4
        summary.emitted = 4
        var ga4 = RunSummary.DestinationCounts(name: "ga4", type: "ga4")
        ga4.refused = refused
        summary.destinations = [ga4]
        return summary.summaryLine
    }

    @Test func aDestinationsRefusedCountAndItsTopReasonAreInTheSummaryLine() {
        #expect(line(refused: ["missing_app_instance_id": 4]).contains("ga4 0 records in 0 files [4 refused: missing_app_instance_id]"))
        #expect(line(refused: ["missing_app_instance_id": 3, "event_name_invalid": 1, "too_large": 1])
            .contains("ga4 0 records in 0 files [5 refused: missing_app_instance_id 3, +2 other reasons]"))
        // Ties go to the first name, so the line is the same on every run.
        #expect(line(refused: ["b_reason": 2, "a_reason": 2]).contains("[4 refused: a_reason 2, +1 other reason]"))
        #expect(line(refused: [:]).contains("ga4 0 records in 0 files;") || line(refused: [:]).hasSuffix("ga4 0 records in 0 files"))
    }
}
