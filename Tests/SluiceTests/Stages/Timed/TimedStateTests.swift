@testable import Sluice
import Testing

private typealias T = TimedHarness

/// The timed stage's `--state` section: open starts and held stops survive a
/// save and a restore into a fresh stage, as if the run had never stopped.
@Suite struct TimedStateTests {
    private func stage(_ yaml: String = "{}") -> TimedEventPairing {
        StateCase.stages("[{timed: \(yaml)}]")[0] as! TimedEventPairing
    }

    private func events(_ lines: [String], source: Int32, firstLine: Int64 = 1) -> [Event] {
        lines.enumerated().map { offset, line in
            var event = T.decode(line, line: firstLine + Int64(offset))
            event = Event(document: event.document, origin: Origin(source: source, line: event.origin.line), type: event.type,
                          time: event.time, name: event.name)
            return event
        }
    }

    @Test func aStartSavedInOneRunPairsWithItsStopInTheNext() throws {
        var first = StagePipeline([stage()])
        first.feed(events([T.start("video", at: 0, timer: "t1", properties: #"{"quality":"hd"}"#),
                           T.screen("home", at: 10)], source: 0))
        #expect(first.log.count == 1, "only the screen came out: \(first.log)")
        #expect(first.heldLines == 1)

        var second = StagePipeline([stage()])
        let header = try second.restore(first.save())
        #expect(header.carriedLines == 1)
        #expect(header.sources == [StateCase.sourceNames[0]])
        second.feed(events([T.stop("video", at: 95.5, timer: "t1")], source: 1))
        second.finish()
        #expect(second.log.count == 2)
        #expect(second.log[0] == "merged S0L1", "the start's line, from the first run's input, is merged")
        #expect(second.log[1].hasPrefix("emit S1L1 "))
        #expect(second.log[1].contains(#""properties":{"quality":"hd","duration_ms":95500}"#))
        #expect(second.log[1].contains(#""timed":"completed""#))
    }

    @Test(arguments: ["{}", "{on_abandoned: drop}"])
    func aKeptLineDamagedBehindAValidChecksumIsRefusedAtRestoreNotATrapWhenLetOut(settings: String) throws {
        var first = StagePipeline([stage(settings)])
        first.feed(events([T.start("video", at: 0, timer: "t1", properties: #"{"quality":"hd"}"#)], source: 0))
        var bytes = first.save()
        // `"quality":"hd"` becomes `"quality"x"hd"`, and the file is resealed as a buggy writer would have left it.
        let needle = Array(#""quality":"hd""#.utf8)
        let at = try #require((0...(bytes.count - needle.count)).first { Array(bytes[$0..<($0 + needle.count)]) == needle })
        bytes[at + 9] = UInt8(ascii: "x")
        let crc = StateChecksum.of(bytes.withUnsafeBytes { UnsafeRawBufferPointer(rebasing: $0[..<(bytes.count - 4)]) })
        withUnsafeBytes(of: crc.littleEndian) { bytes.replaceSubrange((bytes.count - 4)..., with: $0) }

        var second = StagePipeline([stage(settings)])
        do {
            try second.restore(bytes)
            Issue.record("restored: letting the start out (at a stop or the end) would trap")
        } catch {
            guard case .corrupt(_, let detail) = error else { Issue.record("\(error)"); return }
            #expect(detail.contains("the timed entry at byte "), "\(detail)")
            #expect(detail.contains("not a JSON object") || detail.contains("not one JSON value"), "\(detail)")
        }
    }

    @Test func aStartStillOpenAtTheEndOfTheLastRunIsAbandonedThereNotBefore() throws {
        var first = StagePipeline([stage()])
        first.feed(events([T.start("video", at: 0)], source: 0))
        var second = StagePipeline([stage()])
        try second.restore(first.save())
        second.feed(events([T.screen("home", at: 60)], source: 1))
        second.finish()
        #expect(second.log.count == 2)
        #expect(second.log[1].hasPrefix("emit S0L1 ") && second.log[1].contains(#""abandon_reason":"end_of_input""#))
    }

    @Test func arrivalOrderBreaksTiesAcrossRunsAsWithinOne() throws {
        var first = StagePipeline([stage()])
        first.feed(events([T.start("a", at: 0), T.start("b", at: 0)], source: 0))
        var second = StagePipeline([stage()])
        try second.restore(first.save())
        second.feed(events([T.start("c", at: 0), T.start("d", at: 0)], source: 1))
        second.finish()
        let names = second.log.map { entry in ["a", "b", "c", "d"].first { entry.contains(#""event":"\#($0)""#) } ?? "?" }
        #expect(names == ["a", "b", "c", "d"], "same time: let out in arrival order, the first run's first")
    }

    @Test(arguments: ["{}", "{on_abandoned: drop}"])
    func startsAnEarlierStageChangedAreKeptAsCheckedAndResumeAsIfUncut(timed: String) throws {
        // The session stage adds context.session to each event before the timed stage keeps it:
        // the kept lines and their offsets must pass the restore's checks as saved.
        let yaml = "[{session: {attach: {settings: true, traits: [plan]}}}, {timed: \(timed)}]"
        let events = StateCase.events(count: 3000, seed: 5, devices: 30)
        let (uncut, cut) = try StateCase.uncutAndCut(yaml, events, cut: 1400)
        #expect(uncut == cut, "\(StateCase.firstDifference(uncut, cut))")
    }

    static let cases: [(yaml: String, cut: Int)] = [
        ("{}", 700), ("{}", 1), ("{}", 2999),
        ("{max_open: 8, lateness: 1m}", 1500),
        ("{on_abandoned: drop, expire_after: 2m}", 1200),
        ("{on_orphan_stop: reject, lateness: 0s}", 900),
    ]

    @Test(arguments: cases)
    func aRunCutAnywhereAndResumedFromItsStateGivesTheSameOutcomes(yaml: String, cut: Int) throws {
        let events = StateCase.events(count: 3000, seed: UInt64(cut), cut: cut)
        let (uncut, resumed) = try StateCase.uncutAndCut("[{timed: \(yaml)}]", events, cut: cut)
        #expect(uncut.count == resumed.count)
        #expect(StateCase.firstDifference(uncut, resumed) == "none")
        #expect(uncut.contains { $0.contains(#""timed":"completed""#) })
    }

    @Test func moreOpenTimersThanALoweredMaxOpenAreEvictedAtTheNextStartOldestFirst() throws {
        var first = StagePipeline([stage()])
        first.feed(events((0..<5).map { T.start("video", at: Double($0), timer: "t\($0)") }, source: 0))
        var second = StagePipeline([stage("{max_open: 2}")])
        try second.restore(first.save())
        #expect(second.heldLines == 5)
        second.feed(events([T.start("video", at: 10, timer: "t9")], source: 1))
        #expect(second.heldLines == 2)
        #expect(second.log.map { $0.prefix(9) } == ["emit S0L1", "emit S0L2", "emit S0L3", "emit S0L4"])
        #expect(second.log.allSatisfy { $0.contains(#""abandon_reason":"evicted""#) })
    }

    @Test func theSignatureNamesTheSettingsThatGiveTheStateItsMeaning() {
        #expect(stage().stateSignature == "{marker: timed, correlate: [timerId], on_abandoned: emit}")
        #expect(stage("{max_open: 5, expire_after: 1h, lateness: 1m}").stateSignature == stage().stateSignature,
                "caps and durations may change between runs")
        #expect(stage("{correlate: [timerId, context.screen]}").stateSignature != stage().stateSignature)
        #expect(stage("{on_abandoned: drop}").stateSignature != stage().stateSignature)
    }
}
