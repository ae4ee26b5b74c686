@testable import Sluice
import Testing

/// The dedupe stage's `--state` section: the remembered ids survive a save and
/// a restore, so a message re-sent across a cron boundary is still dropped.
@Suite struct DedupeStateTests {
    private func stage(_ yaml: String = "{}") -> MessageDeduplication {
        StateCase.stages("[{dedupe: \(yaml)}]")[0] as! MessageDeduplication
    }

    private func event(_ id: String, at ms: Int, source: Int32, line: Int64, extra: String = "") -> Event {
        let text = StageCase.message("track", at: ms, id: id, extra: extra)
        guard case .success(let event) = Array(text.utf8).withUnsafeBufferPointer({ Event.decode($0, origin: Origin(source: source, line: line)) })
        else { fatalError("bad test line") }
        return event
    }

    @Test func aMessageSeenInOneRunIsADuplicateInTheNext() throws {
        var first = StagePipeline([stage()])
        first.feed([event("m1", at: 0, source: 0, line: 1), event("m2", at: 1, source: 0, line: 2)])
        var second = StagePipeline([stage()])
        try second.restore(first.save())
        second.feed([event("m2", at: 1, source: 1, line: 1, extra: #""sentAt":"later""#), event("m3", at: 2, source: 1, line: 2)])
        #expect(second.log.map { $0.prefix(20) } == ["dropped S1L1 duplica", "emit S1L2 {\"type\":\"t"])
        #expect(first.heldLines == 0, "ids are kept, never lines")
    }

    static let cases: [(yaml: String, cut: Int)] = [
        ("{}", 1000), ("{max_ids: 40}", 1700), ("{max_ids: 300, window: 3m}", 2100), ("{window: 30s, on_collision: keep}", 600),
    ]

    @Test(arguments: cases)
    func aRunCutAnywhereAndResumedFromItsStateGivesTheSameOutcomes(yaml: String, cut: Int) throws {
        let events = StateCase.events(count: 3000, seed: 7, duplicates: 0.08, cut: cut)
        let (uncut, resumed) = try StateCase.uncutAndCut("[{dedupe: \(yaml)}]", events, cut: cut)
        #expect(StateCase.firstDifference(uncut, resumed) == "none")
        #expect(uncut.contains { $0.hasSuffix(" duplicate") })
    }

    @Test func aLoweredMaxIDsForgetsTheOldestIdsAtRestoreAndCountsThemEvicted() throws {
        var first = StagePipeline([stage()])
        first.feed((0..<10).map { event("m\($0)", at: $0, source: 0, line: Int64($0 + 1)) })
        var second = StagePipeline([stage("{max_ids: 4}")])
        try second.restore(first.save())
        let restored = second.stages[0] as! MessageDeduplication
        #expect(restored.remembered == 4)
        #expect(restored.counters.first { $0.name == "evicted" }?.value == 6)
        second.feed([event("m6", at: 6, source: 1, line: 1), event("m5", at: 5, source: 1, line: 2)])
        #expect(second.log.map { $0.prefix(12) } == ["dropped S1L1", "emit S1L2 {\""], "m6 is remembered, m5 was forgotten")
    }

    @Test func theSignatureNamesTheSettingsThatGiveTheStateItsMeaning() {
        #expect(stage().stateSignature == "{ignore_fields: [sentAt, receivedAt], window: none}")
        #expect(stage("{max_ids: 10, on_collision: keep}").stateSignature == stage().stateSignature)
        #expect(stage("{window: 1h}").stateSignature == stage("{window: 5m}").stateSignature)
        #expect(stage("{window: 1h}").stateSignature != stage().stateSignature)
        #expect(stage("{ignore_fields: []}").stateSignature != stage().stateSignature)
    }
}
