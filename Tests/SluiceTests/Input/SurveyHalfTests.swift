import Foundation
import Testing
@testable import Sluice
import SluiceJSON
import SluiceTestSupport

@Suite struct SurveyHalfTests {
    private func event(_ name: String, _ second: Int) -> String {
        #"{"type":"track","event":"\#(name)","anonymousId":"d","timestamp":"2026-11-20T08:00:\#(second < 10 ? "0" : "")\#(second)Z"}"#
    }

    private static let maxLineBytes = 200

    private func reading() -> InputReading { InputReading(maxLineBytes: Self.maxLineBytes, scratch: JSONParseScratch()) }

    private func survey(_ input: InputLines) -> OrderSurvey {
        var survey = OrderSurvey(inputs: 1, mostLines: 1 << 20)
        survey.begin(input, index: 0)
        while survey.read(input, index: 0) == .paused {}
        return survey
    }

    @Test func twoPartsJoinedAtAnyNewlineFindWhatOneReadOfTheFileFinds() throws {
        let mark = "\u{FEFF}"
        // A byte order mark on the first line (dropped) and on one inside (kept: the line is rejected),
        // CRLF, blank and whitespace lines, a line over the limit, disorder, ties, no newline at the end.
        let text = [mark + event("a", 5), event("b", 3) + "\r", "", "   ", "not json", String(repeating: "x", count: 300),
                    mark + event("c", 1), event("d", 9), event("e", 9), "\r", event("f", 7), event("g", 2)].joined(separator: "\n")
        let directory = TemporaryDirectory()
        let path = directory.write("in.ndjson", text)
        let whole = survey(InputLines(path: path, source: 0, reading: reading()))
        #expect(whole.lines[0].count == 9 && whole.window == 7_000_000)
        let bytes = Array(text.utf8)
        var splits = 0
        for (offset, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") {
            let split = offset + 1
            guard let first = InputLines(path: path, source: 0, reading: reading()).firstPart(endingAt: split) else {
                Issue.record("the first part could not be opened")
                return
            }
            var joined = survey(first)
            guard case let .read(half) = SurveyHalf(path: path, from: split, maxLineBytes: Self.maxLineBytes, mostLines: 1 << 20).wait() else {
                Issue.record("the second half could not be read")
                return
            }
            let appended = joined.append(half, to: 0)
            #expect(appended)
            #expect(joined.lines == whole.lines, "split at byte \(split)")
            #expect(joined.runs[0].ties == whole.runs[0].ties && joined.runs[0].lines == whole.lines[0].count, "split at byte \(split)")
            #expect(joined.lineCounts == whole.lineCounts && joined.checksums == whole.checksums, "split at byte \(split)")
            #expect(joined.window == whole.window && joined.latest == whole.latest, "split at byte \(split)")
            splits += 1
        }
        #expect(splits == 11)
        // And the second read, whole, sums its lines as the joined halves did.
        let again = InputLines(path: path, source: 0, reading: reading())
        again.checksumsLines = true
        while try again.next() != nil {}
        #expect(again.lineChecksum == whole.checksums[0] && again.lines == whole.lineCounts[0])
    }

    @Test func onlyLargePlainFilesAreSplitAfterANewlinePastTheirMiddle() throws {
        let directory = TemporaryDirectory()
        let lines = (0..<100).map { event("e\($0)", $0 % 60) }.joined(separator: "\n") + "\n"
        let path = directory.write("in.ndjson", lines)
        let size = lines.utf8.count
        let split = try #require(SurveyHalf.splitOffset(of: path, smallest: 1))
        #expect(split > size / 2 && split < size && Array(lines.utf8)[split - 1] == UInt8(ascii: "\n"))
        #expect(SurveyHalf.splitOffset(of: path, smallest: size + 1) == nil)
        let gzip = directory.file("in.ndjson.gz")
        try Data(TestGzip.compress(Array(lines.utf8))).write(to: URL(fileURLWithPath: gzip))
        #expect(SurveyHalf.splitOffset(of: gzip, smallest: 1) == nil)
        // No newline past the middle: nothing to split at.
        let oneLine = directory.write("one.ndjson", String(repeating: "x", count: 1000))
        #expect(SurveyHalf.splitOffset(of: oneLine, smallest: 1) == nil)
    }
}
