@testable import Sluice
@testable import SluiceJSON
import Testing

private typealias T = TimedHarness
private typealias C = StageCase

/// `EventTimeStage.advance(to:)`, what `sluice run --watermark-end` calls at the end of
/// input: each stage with a clock behaves as if an event at that time had been
/// read, and one already past it does nothing.
@Suite struct StageAdvanceTests {
    /// Feeds `before`, advances the stage to `base + seconds` (when given), feeds `after`, then finishes.
    private func run<S: EventTimeStage>(_ stage: inout S, _ before: [String], advanceTo seconds: Double?, _ after: [String] = [])
        -> (advanced: T.Outcome, all: T.Outcome) {
        var all = T.Outcome()
        var advanced = T.Outcome()
        for (index, line) in (before + after).enumerated() {
            if index == before.count, let seconds {
                var output = StageOutput()
                stage.advance(to: EventTime(microseconds: T.base.microseconds + Int64(seconds * 1_000_000)), into: &output)
                T.collect(output, into: &advanced)
                T.collect(output, into: &all)
            }
            var output = StageOutput()
            stage.process(T.decode(line, line: Int64(index + 1)), into: &output)
            T.collect(output, into: &all)
        }
        if after.isEmpty, let seconds {
            var output = StageOutput()
            stage.advance(to: EventTime(microseconds: T.base.microseconds + Int64(seconds * 1_000_000)), into: &output)
            T.collect(output, into: &advanced)
            T.collect(output, into: &all)
        }
        var output = StageOutput()
        stage.finish(into: &output)
        T.collect(output, into: &all)
        all.counters = Dictionary(stage.counters.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        return (advanced, all)
    }

    @Test func aTimerWhoseExpiryTheWatermarkPassesAtTheEndIsAbandonedExpiredTheRestAtEndOfInput() {
        // expire_after 30m, lateness 5m: the start at 0 is due at 30m, so an end at
        // 35m + 1ms (watermark 30m + 1ms) passes it; the start at 1000 s is still open.
        var stage = TimedEventPairing()
        let lines = [T.start("a", at: 0), T.start("b", at: 1000), T.screen("home", at: 1001)]
        let (advanced, all) = run(&stage, lines, advanceTo: 2100.001)
        #expect(advanced.summary == ["a L1 abandoned expired"])
        #expect(all.summary == ["home L3", "a L1 abandoned expired", "b L2 abandoned end_of_input"])
        #expect(all.counters["abandoned_expired"] == 1 && all.counters["abandoned_end_of_input"] == 1)
    }

    @Test func anEndAtTheVeryExpiryLeavesTheTimerForEndOfInputAsAnEventThereWould() {
        var stage = TimedEventPairing()
        let (advanced, all) = run(&stage, [T.start("a", at: 0)], advanceTo: 2100)
        #expect(advanced.summary.isEmpty)
        #expect(all.summary == ["a L1 abandoned end_of_input"])
        // An event at that time does the same.
        #expect(T.run([T.start("a", at: 0), T.screen("home", at: 2100)]).summary == ["home L2", "a L1 abandoned end_of_input"])
    }

    @Test func aStopWaitingForItsStartIsLetOutOnceTheEndPassesItsLateness() {
        var stage = TimedEventPairing()
        let (advanced, _) = run(&stage, [T.stop("a", at: 0)], advanceTo: 300.001)
        #expect(advanced.summary == ["a L1 orphan_stop"])
    }

    @Test func anEndBehindTheStagesClockLeavesTheClockWhereItWas() {
        // With the clock at 2000 s (watermark 1700 s) a stop at 1000 s is an orphan at once;
        // had the end moved the clock back, it would wait for its start until the end.
        var stage = TimedEventPairing()
        let (advanced, all) = run(&stage, [T.start("a", at: 0), T.screen("home", at: 2000)], advanceTo: 10, [T.stop("b", at: 1000)])
        #expect(advanced.summary.isEmpty)
        #expect(all.summary == ["home L2", "b L3 orphan_stop", "a L1 abandoned end_of_input"])
    }

    @Test func theClockStaysAtTheEndSoWhatComesNextIsAsLateAsAfterAnEventThere() {
        // (What a run restored from a --state saved after the end sees.) A stop older than the watermark is an orphan at once.
        var stage = TimedEventPairing()
        let (_, all) = run(&stage, [T.screen("home", at: 0)], advanceTo: 3600, [T.stop("a", at: 100)])
        #expect(all.summary == ["home L1", "a L2 orphan_stop"])
    }

    @Test func theSessionsPastSessionsAreLetGoAsIfAnEventAtTheEndHadComeSoALateEventFindsNone() {
        let lines = [C.track(0), C.sessionStart(10 * C.minute), C.track(20 * C.minute)]
        let late = C.track(5 * C.minute)
        func sessions(advanceTo minutes: Double?) -> [String] {
            var stage = C.sessionStage("{lateness: 15m}")
            let (_, all) = run(&stage, lines, advanceTo: minutes.map { $0 * 60 }, [late])
            return all.events.map { C.session(try! JSONDocument.parse($0.document.canonicalJSON))?.short ?? "none" }
        }
        // Kept until the watermark (latest − 15m) reaches the start of the next session (10m).
        #expect(sessions(advanceTo: nil) == ["1.1", "2.1", "2.2", "1.2"])
        #expect(sessions(advanceTo: 24.99) == ["1.1", "2.1", "2.2", "1.2"])
        #expect(sessions(advanceTo: 25) == ["1.1", "2.1", "2.2", "none"])
    }

    @Test func dedupesWindowForgetsIdsByTheEndAsTheStreamsClockWould() {
        func fates(advanceTo seconds: Double?) -> (passed: Int, counters: [String: Int]) {
            var stage = C.dedupeStage("{window: 1m}")
            let (_, all) = run(&stage, [C.track(0, id: "m1")], advanceTo: seconds, [C.track(0, id: "m1")])
            return (all.events.count, all.counters)
        }
        #expect(fates(advanceTo: nil).passed == 1)
        #expect(fates(advanceTo: 60).passed == 1, "remembered for the whole window")
        let past = fates(advanceTo: 60.001)
        #expect(past.passed == 2, "forgotten once the window passed: the re-send is new")
        #expect(past.counters["expired"] == 1)
    }
}
