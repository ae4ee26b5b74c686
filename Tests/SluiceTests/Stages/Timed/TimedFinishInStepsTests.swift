@testable import Sluice
import Testing

private typealias T = TimedHarness

/// At the end of input the timed stage lets out what it holds a bounded number
/// at a time (`EventTimeStage.finish(into:limit:)`), so a million open timers are not
/// all parsed into events at once; the order is the one `finish` gives.
@Suite struct TimedFinishInStepsTests {
    private static func lines() -> [String] {
        [T.start("a", at: 3), T.stop("late", at: 1), T.start("b", at: 0), T.start("c", at: 2), T.start("d", at: 0)]
    }

    @Test func finishingInStepsLetsOutAtMostTheLimitEachTimeInTheOrderFinishGives() {
        var whole = TimedEventPairing()
        _ = T.feed(Self.lines(), into: &whole, firstLine: 1)
        var all = StageOutput()
        whole.finish(into: &all)

        var stepped = TimedEventPairing()
        _ = T.feed(Self.lines(), into: &stepped, firstLine: 1)
        var steps: [[Event]] = []
        var done = false
        while !done {
            var output = StageOutput()
            done = stepped.finish(into: &output, limit: 2)
            steps.append(output.events)
            #expect(steps.count <= 10, "finishing must end")
            if steps.count > 10 { break }
        }
        #expect(steps.map(\.count) == [2, 2, 1])
        #expect(steps.flatMap { $0 }.map(T.summary) == all.events.map(T.summary))
        #expect(stepped.openCount == 0)
        #expect(stepped.counters.first { $0.name == "abandoned_end_of_input" }?.value == 4)
    }

    @Test func aStageWithNothingHeldIsDoneAtOnce() {
        var stage = TimedEventPairing()
        var output = StageOutput()
        #expect(stage.finish(into: &output, limit: 2))
        #expect(output.events.isEmpty)
    }
}
