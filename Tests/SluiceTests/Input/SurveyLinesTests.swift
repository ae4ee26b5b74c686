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
        #expect(Array(recorded) == expected)
    }

    @Test func linesAppendedAfterOthersFollowThemWhereverTheChunksEnd() {
        for first in [0, 5, SurveyLines.chunkSize, SurveyLines.chunkSize + 3] {
            var joined = SurveyLines(lines(first))
            joined.append(contentsOf: SurveyLines(lines(SurveyLines.chunkSize + 9, from: first)))
            #expect(joined == SurveyLines(lines(first + SurveyLines.chunkSize + 9)))
            #expect(joined != SurveyLines(lines(first + SurveyLines.chunkSize + 8)))
            #expect(Array(joined) == lines(first + SurveyLines.chunkSize + 9) && joined.count == first + SurveyLines.chunkSize + 9)
        }
        // Joined again and again, short chunks among long ones, and empty parts.
        var joined = SurveyLines(), expected: [OrderSurvey.Line] = []
        for count in [3, 0, SurveyLines.chunkSize + 1, 1, 0, 2] {
            joined.append(contentsOf: SurveyLines(lines(count, from: expected.count)))
            expected += lines(count, from: expected.count)
        }
        joined.append(OrderSurvey.Line(time: -1, bytes: 7))
        expected.append(OrderSurvey.Line(time: -1, bytes: 7))
        #expect(Array(joined) == expected && joined.all == expected && joined.count == expected.count)
        // A short last chunk joined grows past a chunk's size; a full one joined is followed by a new one.
        for joinedLast in [1, SurveyLines.chunkSize] {
            var grown = SurveyLines(lines(5))
            grown.append(contentsOf: SurveyLines(lines(joinedLast, from: 5)))
            for line in lines(SurveyLines.chunkSize + 2, from: 5 + joinedLast) { grown.append(line) }
            #expect(Array(grown) == lines(5 + joinedLast + SurveyLines.chunkSize + 2), "\(joinedLast) lines joined")
        }
    }

    @Test func linesBeforeTheFirstEventTakeTheTimeTheyAreGivenAndNoOthers() {
        let unknown = OrderSurvey.Line(time: .min, bytes: 1)
        for leading in [0, 2, SurveyLines.chunkSize, SurveyLines.chunkSize + 5] {
            var part = SurveyLines([OrderSurvey.Line](repeating: unknown, count: leading))
            part.append(contentsOf: SurveyLines([OrderSurvey.Line(time: 5, bytes: 2), unknown]))
            part.setLeadingTimes(4)
            let times = part.map(\.time)
            #expect(times == [Int64](repeating: 4, count: leading) + [5, .min], "\(leading) lines before the first event")
        }
        var none = SurveyLines([unknown, unknown])
        none.setLeadingTimes(9)
        #expect(none.map(\.time) == [9, 9])
    }
}
