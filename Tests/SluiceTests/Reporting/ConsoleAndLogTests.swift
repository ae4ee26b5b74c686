import Logging
import Testing
@testable import Sluice

@Suite struct ConsoleAndLogTests {
    @Test func aLogLineIsOneLineWithItsLevelAndSortedMetadata() {
        #expect(LineLogHandler.format(prefix: "sluice", level: .info, message: "hello", metadata: [:]) == "sluice: hello")
        #expect(LineLogHandler.format(prefix: "sluice", level: .warning, message: "w", metadata: ["b": "2", "a": "1"]) ==
            "sluice: warning: w a=1 b=2")
        #expect(LineLogHandler.format(prefix: "sluice", level: .critical, message: "two\nlines\r", metadata: [:]) ==
            "sluice: error: two\\nlines\\r")
    }

    @Test func theProgressLineShowsTheRateTheBytesOfTheTotalAndTheTimeLeft() {
        var summary = RunSummary()
        summary.linesIn = 3_000_000
        summary.elapsedSeconds = 10
        summary.inputs = [RunSummary.InputCounts(path: "a", lines: 3_000_000, bytes: 600_000_000)]
        summary.inputBytesTotal = 1_000_000_000
        let line = ProgressReporter.line(summary, since: (lines: 2_000_000, seconds: 9))
        #expect(line == "sluice: 3000000 events, 1000000 events/s, 600.0 of 1000.0 MB (60%), ETA 0:07")
    }

    @Test func withoutATotalTheProgressLineShowsBytesRead() {
        var summary = RunSummary()
        summary.linesIn = 10
        summary.blankLines = 2
        summary.elapsedSeconds = 4
        summary.inputs = [RunSummary.InputCounts(path: "<stdin>", lines: 12, bytes: 2_345_678)]
        #expect(ProgressReporter.line(summary, since: (0, 0)) == "sluice: 10 events, 3 events/s, 2.3 MB read")
    }
}
