@testable import Sluice
@testable import SluiceJSON
import Testing

private typealias C = StageCase

/// The session stage's `--state` section: devices, their recent past sessions
/// and the settings and traits they hold survive a save and a restore, so the
/// next run continues each session with the right number and seq.
@Suite struct SessionStateTests {
    private func stage(_ yaml: String = "{}") -> SessionTracking {
        StateCase.stages("[{session: \(yaml)}]")[0] as! SessionTracking
    }

    private func events(_ lines: [String], source: Int32) -> [Event] {
        lines.enumerated().map { offset, line in
            guard case .success(let event) = Array(line.utf8).withUnsafeBufferPointer({
                Event.decode($0, origin: Origin(source: source, line: Int64(offset + 1)))
            }) else { fatalError("bad test line") }
            return event
        }
    }

    private func sessions(_ log: [String]) -> [String] {
        log.map { entry in
            let json = Array(entry.drop { $0 != "{" }.utf8)
            guard let document = try? JSONDocument.parse(json), let view = C.session(document) else { return "none" }
            return view.short + " " + view.id.prefix(6)
        }
    }

    @Test func aSessionGoesOnInTheNextRunWithItsNumberSeqSettingsAndTraits() throws {
        let yaml = "{attach: {traits: [plan]}}"
        var first = StagePipeline([stage(yaml)])
        first.feed(events([C.sessionStart(0, settings: #"{"dark":true}"#), C.identify(1000, user: "u1", traits: #"{"plan":"pro"}"#),
                           C.track(2000, user: "u1"), C.track(50 * C.minute, user: "u1")], source: 0))
        var second = StagePipeline([stage(yaml)])
        try second.restore(first.save())
        second.feed(events([C.track(51 * C.minute, user: "u1"), C.track(52 * C.minute, who: "d2")], source: 1))
        let before = sessions(first.log)
        let after = sessions(second.log)
        #expect(before.map { $0.prefix(4) } == ["1.1 ", "1.2*", "1.3*", "2.1*"])
        #expect(after[0] == "2.2* " + before[3].suffix(6), "the same session, next seq: \(after)")
        #expect(after[1].hasPrefix("1.1 "), "a new device starts at 1")
        #expect(second.log[0].contains(#""settings":{"dark":true},"traits":{"plan":"pro"}"#))
    }

    static let cases: [(yaml: String, cut: Int)] = [
        ("{}", 1500), ("{max_devices: 15}", 800),
        ("{inactivity: 2m, lateness: 30s, max_length: 20m, attach: {traits: [plan]}}", 2200),
        ("{attach: {settings: false}, sign_out_events: []}", 1),
    ]

    @Test(arguments: cases)
    func aRunCutAnywhereAndResumedFromItsStateGivesTheSameOutcomes(yaml: String, cut: Int) throws {
        let events = StateCase.events(count: 3000, seed: 3, devices: 60, late: 0.08, cut: cut)
        let (uncut, resumed) = try StateCase.uncutAndCut("[{session: \(yaml)}]", events, cut: cut)
        #expect(StateCase.firstDifference(uncut, resumed) == "none")
    }

    @Test(arguments: [300, 1999])
    func dedupeTimedAndSessionTogetherResumeAsOneRun(cut: Int) throws {
        let yaml = "[{dedupe: {window: 10m}}, {timed: {max_open: 30}}, {session: {max_devices: 40, attach: {traits: [plan]}}}]"
        let events = StateCase.events(count: 3000, seed: 5, devices: 50, duplicates: 0.05, late: 0.05, cut: cut)
        let (uncut, resumed) = try StateCase.uncutAndCut(yaml, events, cut: cut)
        #expect(StateCase.firstDifference(uncut, resumed) == "none")
    }

    @Test func aLoweredMaxDevicesKeepsTheMostRecentlyActiveDevices() throws {
        var first = StagePipeline([stage()])
        first.feed(events((0..<6).map { C.track($0 * 1000, who: "d\($0)") }, source: 0))
        var second = StagePipeline([stage("{max_devices: 2}")])
        try second.restore(first.save())
        let restored = second.stages[0] as! SessionTracking
        #expect(restored.devices.count == 2)
        #expect(restored.counters.first { $0.name == "evicted" }?.value == 4)
        second.feed(events([C.track(10_000, who: "d5"), C.track(11_000, who: "d0")], source: 1))
        #expect(sessions(second.log).map { $0.prefix(3) } == ["1.2", "1.1"], "d5 goes on, d0 was forgotten")
    }

    @Test func theSignatureNamesTheSettingsThatGiveTheStateItsMeaning() {
        #expect(stage().stateSignature == "{sign_out_events: [signed_out], attach: {settings: true, traits: []}}")
        #expect(stage("{inactivity: 1m, max_devices: 3, lateness: 0s}").stateSignature == stage().stateSignature)
        #expect(stage("{attach: {traits: [plan]}}").stateSignature != stage().stateSignature,
                "traits kept under another allowlist must not be attached")
    }
}
