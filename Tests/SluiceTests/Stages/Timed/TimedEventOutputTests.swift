@testable import Sluice
@testable import SluiceJSON
import Testing

private typealias H = TimedHarness

/// The exact text of what the timed stage lets out.
@Suite struct TimedEventOutputTests {
    private let start = #"{"type":"track","messageId":"m1","event":"video","anonymousId":"d1","timestamp":"2026-11-20T09:00:00.000+01:00","timed":"start","timerId":"p1","properties":{"a":1,"shared":"start","duration_ms":99,"nested":{"x":[1,2]}}}"#
    private let stop = #"{"type":"track","messageId":"m2","event":"video","anonymousId":"d1","timestamp":"2026-11-20T08:00:01.2345Z","timed":"stop","timerId":"p1","properties":{"shared":"stop","b":[true,null]},"context":{"app":"x"}}"#
    private let completed = #"{"type":"track","messageId":"m2","event":"video","anonymousId":"d1","timestamp":"2026-11-20T08:00:01.2345Z","timed":"completed","timerId":"p1","properties":{"shared":"stop","b":[true,null],"a":1,"nested":{"x":[1,2]},"duration_ms":1234},"context":{"app":"x"},"started_at":"2026-11-20T09:00:00.000+01:00"}"#

    @Test(arguments: [TimedSettings.OnAbandoned.emit, .drop])
    func aCompletedEventIsTheStopWithTheStartsPropertiesUnderItsOwnADurationAndStartedAt(_ mode: TimedSettings.OnAbandoned) {
        let outcome = H.run([start, stop], H.settings { $0.onAbandoned = mode })
        #expect(outcome.lines == [completed])
        #expect(outcome.merged == [Origin(source: 0, line: 1)])
    }

    @Test func aStopThatCameFirstMakesTheSameCompletedEvent() {
        let outcome = H.run([stop, start])
        #expect(outcome.lines == [completed])
        #expect(outcome.merged == [Origin(source: 0, line: 2)])
    }

    @Test func aStopWithoutPropertiesGetsTheStartsAndTheDuration() {
        let outcome = H.run([H.start("v", at: 0, properties: #"{"a":"x"}"#), H.stop("v", at: 0.25)])
        #expect(outcome.lines == [#"{"type":"track","event":"v","anonymousId":"d1","timestamp":"2026-11-20T08:00:00.250Z","timed":"completed","properties":{"a":"x","duration_ms":250},"started_at":"2026-11-20T08:00:00.000Z"}"#])
    }

    @Test func aZeroLengthTimerHasDurationZero() {
        let outcome = H.run([H.start("v", at: 3), H.stop("v", at: 3, properties: "{}")])
        #expect(outcome.lines.first?.contains(#""properties":{"duration_ms":0}"#) == true)
    }

    @Test func anAbandonedStartIsTheStartLineMarkedWithAReason() {
        let outcome = H.run([start])
        #expect(outcome.lines == [#"{"type":"track","messageId":"m1","event":"video","anonymousId":"d1","timestamp":"2026-11-20T09:00:00.000+01:00","timed":"abandoned","timerId":"p1","properties":{"a":1,"shared":"start","duration_ms":99,"nested":{"x":[1,2]}},"abandon_reason":"end_of_input"}"#])
        #expect(outcome.events.first?.origin == Origin(source: 0, line: 1))
        #expect(outcome.events.first?.time == EventTime.parseISO8601("2026-11-20T08:00:00Z"))
        #expect(outcome.events.first?.nameString == "video")
    }

    @Test func anOrphanStopIsTheStopLineMarkedAndARejectedOneKeepsItsOriginalLine() {
        #expect(H.run([stop]).lines == [stop.replacing(#""timed":"stop""#, with: #""timed":"orphan_stop""#)])
        let rejected = H.run([" " + stop], H.settings { $0.onOrphanStop = .reject }).rejected
        #expect(rejected.map { String(decoding: $0.event.document.bytes, as: UTF8.self) } == [" " + stop])
    }

    @Test func messagesTheStageDoesNotPairAreTheSameEventsByteForByte() {
        let lines = [H.screen("home", at: 0), H.track("tap", nil, at: 1, properties: #"{"n": 1e21}"#),
                     #"{"type":"identify","anonymousId":"d1","timestamp":"2026-11-20T08:00:00Z","timed":"start"}"#]
        let outcome = H.run(lines)
        #expect(outcome.events.map { String(decoding: $0.document.bytes, as: UTF8.self) } == lines)
        #expect(outcome.events.allSatisfy { !$0.document.isModified })
    }

    @Test func editsMadeByAnEarlierStageSurviveWhileTheStartIsHeld() {
        var event = H.decode(H.start("video", at: 0, properties: #"{"email":"a@b.c"}"#), line: 1)
        event.document.set(JSONPath("properties.email"), string: "redacted")
        var stage = TimedEventPairing()
        var output = StageOutput()
        stage.process(event, into: &output)
        stage.finish(into: &output)
        #expect(output.events.map { String(decoding: $0.document.canonicalJSON, as: UTF8.self) } == [
            #"{"type":"track","event":"video","anonymousId":"d1","timestamp":"2026-11-20T08:00:00.000Z","timed":"abandoned","properties":{"email":"redacted"},"abandon_reason":"end_of_input"}"#,
        ])
    }

    /// Destinations and later stages read fields off the tape, so the stage leaves no edits pending.
    @Test func whatTheStageRewritesIsOnTheTapeForLaterReaders() {
        let outcome = H.run([start, stop, H.start("x", at: 0), H.stop("y", at: 1)])
        #expect(outcome.events.count == 3)
        #expect(outcome.events.allSatisfy { !$0.document.isModified })
        let marks = outcome.events.map { $0.document.string(at: JSONPath("timed")) }
        #expect(marks == ["completed", "abandoned", "orphan_stop"])
        let completed = outcome.events[0].document
        #expect(completed.find(JSONPath("properties.duration_ms")).map { completed.rawBytes($0).elementsEqual("1234".utf8) } == true)
        #expect(completed.string(at: JSONPath("started_at")) == "2026-11-20T09:00:00.000+01:00")
        #expect(outcome.events[1].document.string(at: JSONPath("abandon_reason")) == "end_of_input")
    }

    @Test func aKeptLineWithWhitespaceComesOutCanonicalAndMarked() {
        let spaced = #"{ "type" : "track", "event" : "v", "anonymousId" : "d1", "timestamp" : "2026-11-20T08:00:00Z", "timed" : "start" , "properties" : { "a" : [1, 2] } }  "#
        #expect(H.run([spaced]).lines == [
            #"{"type":"track","event":"v","anonymousId":"d1","timestamp":"2026-11-20T08:00:00Z","timed":"abandoned","properties":{"a":[1,2]},"abandon_reason":"end_of_input"}"#,
        ])
    }

    @Test func aStartThatAlreadyHasAnAbandonReasonGetsItReplacedNotDuplicated() {
        let line = #"{"type":"track","event":"v","anonymousId":"d1","abandon_reason":"mine","timestamp":"2026-11-20T08:00:00Z","timed":"start"}"#
        #expect(H.run([line]).lines == [
            #"{"type":"track","event":"v","anonymousId":"d1","abandon_reason":"end_of_input","timestamp":"2026-11-20T08:00:00Z","timed":"abandoned"}"#,
        ])
    }

    @Test func aNestedMarkerIsMarkedInPlace() {
        let settings = H.settings { $0.marker = JSONPath("meta.timed") }
        let start = #"{"type":"track","event":"v","anonymousId":"d1","timestamp":"2026-11-20T08:00:00Z","meta":{"timed":"start","x":1}}"#
        let stop = #"{"type":"track","event":"w","anonymousId":"d1","timestamp":"2026-11-20T08:00:01Z","meta":{"timed":"stop"}}"#
        #expect(H.run([start, stop], settings).lines == [
            #"{"type":"track","event":"v","anonymousId":"d1","timestamp":"2026-11-20T08:00:00Z","meta":{"timed":"abandoned","x":1},"abandon_reason":"end_of_input"}"#,
            #"{"type":"track","event":"w","anonymousId":"d1","timestamp":"2026-11-20T08:00:01Z","meta":{"timed":"orphan_stop"}}"#,
        ])
    }

    @Test func theCountersAreNamedAndOrderedForTheStats() {
        #expect(TimedEventPairing().counters.map(\.name) == [
            "completed", "abandoned_expired", "abandoned_evicted", "abandoned_end_of_input",
            "abandoned_restarted", "orphan_stops", "restarts", "open_high_water", "open_bytes_high_water",
        ])
    }
}
