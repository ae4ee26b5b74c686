import Testing
@testable import Sluice

@Suite struct SurveyLinesTests {
    private func lines(_ count: Int, from: Int = 0) -> [OrderSurvey.Line] {
        (from..<(from + count)).map { OrderSurvey.Line(time: Int64($0 * 3), bytes: Int32($0 % 1000)) }
    }

    @Test(arguments: [0, 1, SurveyLines.chunkSize - 1, SurveyLines.chunkSize, SurveyLines.chunkSize + 1, 3 * SurveyLines.chunkSize + 17])
    func linesAcrossChunksReadBackInOrder(_ count: Int) {
        let expected = lines(count)
        let recorded = SurveyLines(expected)
        #expect(recorded.count == count && recorded.isEmpty == (count == 0))
        #expect(recorded.all == expected)
        #expect((0..<count).allSatisfy { recorded[$0] == expected[$0] })
    }

    @Test func linesAppendedAfterOthersFollowThemWhereverTheChunksEnd() {
        for first in [0, 5, SurveyLines.chunkSize, SurveyLines.chunkSize + 3] {
            var joined = SurveyLines(lines(first))
            joined.append(contentsOf: SurveyLines(lines(SurveyLines.chunkSize + 9, from: first)))
            #expect(joined == SurveyLines(lines(first + SurveyLines.chunkSize + 9)))
            #expect(joined != SurveyLines(lines(first + SurveyLines.chunkSize + 8)))
        }
    }
}
