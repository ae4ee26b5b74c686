import Testing
@testable import Sluice
import SluiceJSON
import SluiceTestSupport

@Suite struct InOrderTiesTests {
    private func line(_ name: String, _ second: Int, id: String) -> String {
        #"{"type":"track","event":"\#(name)","anonymousId":"d","messageId":"\#(id)","timestamp":"2026-11-20T08:00:0\#(second)Z"}"#
    }

    private func input(_ lines: [String]) -> InputLines {
        let reading = InputReading(maxLineBytes: 1 << 20, scratch: JSONParseScratch())
        let bytes = Array(lines.map { $0 + "\n" }.joined().utf8)
        return InputLines(bytes: bytes, named: "in", source: 0, reading: reading)
    }

    /// The instants the first read finds (`OrderSurvey`), as exact order gives them to the feed.
    private func surveyed(_ lines: [String]) -> InOrderTies.Ties {
        var survey = OrderSurvey(inputs: 1, mostLines: 1 << 20)
        let first = input(lines)
        survey.begin(first, index: 0)
        while survey.read(first, index: 0) == .paused {}
        #expect(survey.runs[0].ties == InOrderTies.Ties(survey.lines[0]))
        return survey.runs[0].ties
    }

    /// What the feed gives: event names, and `!reason` for a line rejected at input.
    private func drain(_ lines: [String]) throws -> [String] {
        try InOrderTies(input(lines), ties: surveyed(lines)).drainedNames()
    }

    @Test func linesAloneAtTheirInstantGoAsRead() throws {
        #expect(try drain([line("a", 1, id: "9"), line("b", 2, id: "1"), line("c", 3, id: "5")]) == ["a", "b", "c"])
    }

    @Test func linesThatShareAnInstantGoInEventOrderWithTheRejectedAfterTheEvents() throws {
        let lines = [line("a", 1, id: "1"), line("d", 2, id: "3"), "not json", line("c", 2, id: "2"), line("b", 2, id: "1"),
                     line("e", 3, id: "0"), line("f", 4, id: "2"), line("g", 4, id: "1")]
        #expect(surveyed(lines) == InOrderTies.Ties(starts: [1, 6], counts: [4, 2]))
        #expect(try drain(lines) == ["a", "b", "c", "d", "!invalid_json", "e", "g", "f"])
    }

    @Test func aRejectedLineWhoseTimestampTiesWithTheNextGoesWithTheEventBeforeIt() throws {
        // Its timestamp is read by the first read, but the line is rejected (a track without an event name):
        // it belongs to the instant of the event before it, and goes before the next instant's events.
        let rejected = #"{"type":"track","anonymousId":"d","messageId":"x","timestamp":"2026-11-20T08:00:02Z"}"#
        let lines = [line("a", 1, id: "1"), rejected, line("c", 2, id: "2"), line("b", 2, id: "1")]
        let names = try drain(lines)
        #expect(names.count == 4)
        #expect(names[0] == "a" && names[1].hasPrefix("!") && names[2...] == ["b", "c"])
    }

    @Test func anInstantAtTheEndOfTheInputIsGivenWhole() throws {
        #expect(try drain([line("z", 1, id: "2"), line("y", 1, id: "1")]) == ["y", "z"])
        #expect(try drain([]) == [])
    }

    @Test func aLineAtAnotherInstantThanTheFirstReadFoundFailsTheRun() throws {
        let lines = [line("a", 1, id: "1"), line("b", 1, id: "2"), line("c", 2, id: "3")]
        // As if the first read had found every line at an instant of its own.
        let apart = InOrderTies.Ties(SurveyLines([OrderSurvey.Line(time: 1, bytes: 1), OrderSurvey.Line(time: 2, bytes: 1),
                                                  OrderSurvey.Line(time: 3, bytes: 1)]))
        #expect(throws: InputChangedWhileRead.self) { try InOrderTies(input(lines), ties: apart).drainedNames() }
        // And as if it had found the first two apart but the last two together.
        let shifted = InOrderTies.Ties(SurveyLines([OrderSurvey.Line(time: 1, bytes: 1), OrderSurvey.Line(time: 2, bytes: 1),
                                                    OrderSurvey.Line(time: 2, bytes: 1)]))
        #expect(throws: InputChangedWhileRead.self) { try InOrderTies(input(lines), ties: shifted).drainedNames() }
    }

    /// Each run of more than one equal time, found by looking ahead from its first line.
    private static func ties(_ times: [Int64]) -> InOrderTies.Ties {
        var starts: [Int] = [], counts: [Int] = [], start = 0
        while start < times.count {
            var end = start + 1
            while end < times.count && times[end] == times[start] { end += 1 }
            if end - start > 1 {
                starts.append(start)
                counts.append(end - start)
            }
            start = end
        }
        return InOrderTies.Ties(starts: starts, counts: counts)
    }

    @Test func runsRecordedApartJoinAsTheRunsOfAllTheLines() {
        // Times with ties, lines that are not events (before the first event, `Int64.min`), and a part
        // that is one run, split at every line.
        var random = TestRandom(state: 3)
        let long = (0..<(2 * SurveyLines.chunkSize + 50)).map { Int64($0 / 3) }
        let cases: [[Int64]] = [[], [1], [1, 1], [.min, .min, 1, 1, 2], [1, 1, 1, 1], [.min, .min], [3, 3, 4, 4, 4, 5, 6, 6]]
            + (0..<40).map { _ in (0..<(1 + random.below(30))).map { _ in Int64(random.below(4)) } }
        for times in cases + [long] {
            // Every split of the short ones; the long one (a part over several chunks) near its ends and middle.
            let splits = times.count < 100 ? Array(0...times.count) : [0, 1, 2, 3, times.count / 2, times.count - 1, times.count]
            for split in splits {
                // The part records its lines that are not events, before its first event, at `Int64.min`.
                let firstTimes = Array(times[..<split])
                var partTimes = Array(times[split...])
                let leading = random.below(min(partTimes.count, 8) + 1)
                for index in partTimes.indices.prefix(leading) { partTimes[index] = .min }
                let lastTime = firstTimes.last ?? .min
                var expected = firstTimes
                var fixed = partTimes
                for index in fixed.indices {
                    guard fixed[index] == .min else { break }
                    fixed[index] = lastTime
                }
                expected += fixed
                var runs = InOrderTies.Runs(), part = InOrderTies.Runs()
                firstTimes.forEach { runs.add($0) }
                partTimes.forEach { part.add($0) }
                var partLines = SurveyLines(partTimes.map { OrderSurvey.Line(time: $0, bytes: 1) })
                partLines.setLeadingTimes(lastTime)
                runs.append(part, over: partLines)
                #expect(runs.ties == Self.ties(expected) && runs.lines == expected.count,
                        "\(times.prefix(40)) split at \(split), the part's first \(leading) lines not events")
                #expect(runs.ties == InOrderTies.Ties(SurveyLines(expected.map { OrderSurvey.Line(time: $0, bytes: 1) })))
            }
        }
    }
}
