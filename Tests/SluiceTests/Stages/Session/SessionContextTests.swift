@testable import Sluice
@testable import SluiceJSON
import Testing

private typealias C = StageCase

/// What `context.session` holds: id, start_ms, engagement, settings and traits.
@Suite struct SessionContextTests {
    private func sessions(_ lines: [String], _ settings: String = "{}") -> [StageCase.SessionView] {
        var stage = C.sessionStage(settings)
        return C.run(lines, through: &stage).documents.map { C.session($0)! }
    }

    @Test func theContextHasEveryFieldInAFixedOrderAndTheRestOfTheMessageIsUnchanged() {
        var stage = C.sessionStage()
        let line = #"{"type":"track","event":"tap","anonymousId":"d1","timestamp":"2026-11-20T08:00:00.250Z","context":{"ip":"203.0.113.9"},"properties":{"n":1e21}}"#
        let outcome = C.run([line], through: &stage)
        let text = outcome.lines[0]
        let id = C.session(outcome.documents[0])!.id
        #expect(text == #"{"type":"track","event":"tap","anonymousId":"d1","timestamp":"2026-11-20T08:00:00.250Z","context":{"ip":"203.0.113.9","session":{"id":""#
            + id + #"","start_ms":1795161600250,"number":1,"seq":1,"authenticated":false,"engagement_ms":1}},"properties":{"n":1e21}}"#)
    }

    @Test func aMessageWithoutContextGetsOne() {
        let view = sessions([C.track(0)])[0]
        #expect(view.number == 1)
        #expect(view.document.find(JSONPath("context.session.id")) != nil)
    }

    @Test func aContextThatIsNotAnObjectIsLeftAloneAndCounted() {
        var stage = C.sessionStage()
        let outcome = C.run([C.message(at: 0, extra: #""context":"oops""#)], through: &stage)
        #expect(outcome.lines[0].contains(#""context":"oops""#))
        #expect(outcome.counters["not_attached"] == 1)
    }

    @Test func theIdIs32HexDigitsTheSameForTheWholeSessionAndDifferentForTheNext() {
        let views = sessions([C.track(0), C.track(1000), C.sessionStart(2000), C.track(3000, who: "d2")])
        for view in views {
            #expect(view.id.count == 32)
            #expect(view.id.allSatisfy { "0123456789abcdef".contains($0) })
        }
        #expect(views[0].id == views[1].id)
        #expect(views[1].id != views[2].id)
        #expect(views[3].id != views[0].id)
    }

    @Test func theIdIsDeterministic() {
        let lines = [C.track(0), C.sessionStart(1000), C.track(2000, who: "d2")]
        #expect(sessions(lines).map(\.id) == sessions(lines).map(\.id))
        #expect(SessionContext.idString(keyA: 1, keyB: 2, start: 3, number: 4)
            == SessionContext.idString(keyA: 1, keyB: 2, start: 3, number: 4))
        #expect(SessionContext.idString(keyA: 1, keyB: 2, start: 3, number: 4)
            != SessionContext.idString(keyA: 1, keyB: 2, start: 3, number: 5))
    }

    @Test func startIsTheSessionsFirstEventInMillisecondsTheAmplitudeConvention() {
        let views = sessions([C.track(1234), C.track(5000), C.sessionStart(9000)])
        let base = Int(StageCase.base.milliseconds)
        #expect(views.map(\.startMilliseconds) == [base + 1234, base + 1234, base + 9000])
    }

    @Test func engagementIsTheTimeSinceTheSessionsPreviousEventAndAtLeastOne() {
        let lines = [
            C.track(0),
            C.track(1500),
            C.message(at: 1500, extra: ""),        // same instant: 1, not 0
            C.track(2000),
            C.track(1800),                         // late: 1
            C.sessionStart(2500),                  // a new session begins at 1
            C.track(2700),
        ]
        #expect(sessions(lines).map(\.engagement) == [1, 1500, 1, 500, 1, 1, 200])
    }

    @Test func aGapUnderAMillisecondIsOne() {
        let line = #"{"type":"track","event":"t","anonymousId":"d1","timestamp":"2026-11-20T08:00:00.000100Z"}"#
        let later = #"{"type":"track","event":"t","anonymousId":"d1","timestamp":"2026-11-20T08:00:00.000900Z"}"#
        #expect(sessions([line, later]).map(\.engagement) == [1, 1])
    }

    @Test func settingsComeFromTheLatestSessionMessageAndLastAcrossSessions() {
        let views = sessions([
            C.track(0),
            C.sessionStart(1000, settings: #"{"voiceOver": true, "largeText": false}"#),
            C.track(2000),
            C.track(60 * StageCase.minute),
            C.sessionStart(61 * StageCase.minute, settings: #"{"voiceOver":false}"#),
            C.sessionStart(62 * StageCase.minute),
        ])
        #expect(views.map { $0.raw("settings") } == [
            nil, #"{"voiceOver":true,"largeText":false}"#, #"{"voiceOver":true,"largeText":false}"#,
            #"{"voiceOver":true,"largeText":false}"#, #"{"voiceOver":false}"#, #"{"voiceOver":false}"#,
        ])
    }

    @Test func settingsAreLeftOutWhenAttachSettingsIsFalse() {
        let views = sessions([C.sessionStart(0, settings: #"{"a":1}"#), C.track(1)], "{attach: {settings: false}}")
        #expect(views.allSatisfy { $0.raw("settings") == nil })
    }

    @Test func onlyAllowlistedTraitsAreAttachedMergedAcrossIdentifies() {
        let views = sessions([
            C.track(0),
            C.identify(1000, user: "u1", traits: #"{"email":"a@example.com","plan":"pro","phone":"+1 555"}"#),
            C.track(2000, user: "u1"),
            C.identify(3000, user: "u1", traits: #"{"country":"DE"}"#),
            C.identify(4000, user: "u1", traits: #"{"plan":"free"}"#),
        ], "{attach: {traits: [plan, country]}}")
        #expect(views.map { $0.raw("traits") } == [
            nil, #"{"plan":"pro"}"#, #"{"plan":"pro"}"#, #"{"plan":"pro","country":"DE"}"#, #"{"plan":"free","country":"DE"}"#,
        ])
    }

    @Test func traitsAreNotAttachedByDefault() {
        let views = sessions([C.identify(0, user: "u1", traits: #"{"plan":"pro"}"#), C.track(1, user: "u1")])
        #expect(views.allSatisfy { $0.raw("traits") == nil })
    }

    @Test func traitsBelongToThePersonAndGoWhenTheUserChangesOrSignsOut() {
        let views = sessions([
            C.identify(0, user: "u1", traits: #"{"plan":"pro"}"#),
            C.identify(1000, user: "u2", traits: #"{"email":"x"}"#),
            C.identify(2000, user: "u2", traits: #"{"plan":"team"}"#),
            C.signedOut(3000, user: "u2"),
            C.track(4000),
            C.track(5000, user: "u3"),
        ], "{attach: {traits: [plan]}}")
        #expect(views.map { $0.raw("traits") } == [#"{"plan":"pro"}"#, nil, #"{"plan":"team"}"#, #"{"plan":"team"}"#, nil, nil])
        #expect(views.map(\.short) == ["1.1*", "2.1*", "2.2*", "2.3*", "3.1", "3.2*"])
    }

    @Test func anonymousTraitsStayWhenThePersonSignsIn() {
        let views = sessions([
            C.identify(0, user: nil, traits: #"{"plan":"trial"}"#),
            C.track(1000, user: "u1"),
        ], "{attach: {traits: [plan]}}")
        #expect(views.map { $0.raw("traits") } == [#"{"plan":"trial"}"#, #"{"plan":"trial"}"#])
    }

    @Test func aLateEventCarriesTheSettingsOfItsOwnSession() {
        let views = sessions([
            C.sessionStart(0, settings: #"{"v":1}"#),
            C.sessionStart(60_000, settings: #"{"v":2}"#),
            C.track(30_000),
        ])
        #expect(views.map { $0.raw("settings") } == [#"{"v":1}"#, #"{"v":2}"#, #"{"v":1}"#])
        #expect(views.map(\.short) == ["1.1", "2.1", "1.2"])
    }

    @Test func theCountersAreNamedForTheStats() {
        let stage = C.sessionStage()
        #expect(stage.counters.map(\.name) == [
            "started_session_message", "started_inactivity", "started_user_change", "started_max_length",
            "started_first_seen", "evicted", "late_events_placed", "late_events_too_late", "devices",
            "devices_high_water", "not_attached", "too_deep_to_attach",
        ])
    }

    @Test func aDeviceRecordIs72Bytes() {
        #expect(MemoryLayout<DeviceRecord>.stride == 72)
        #expect(MemoryLayout<PastSession>.stride == 48)
    }
}
