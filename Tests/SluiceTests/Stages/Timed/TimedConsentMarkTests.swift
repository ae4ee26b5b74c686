@testable import Sluice
@testable import SluiceJSON
import Testing

private typealias T = TimedHarness

/// The timed stage lets out events it rebuilt (a completed pair, an abandoned
/// start, an orphan stop): each must keep the consent marks (`Event.withheld`)
/// an earlier stage set, a pair the stricter of its start's and its stop's,
/// also when the start was carried over a run in a `--state` file.
@Suite struct TimedConsentMarkTests {
    private static func mark(_ indexes: Int...) -> WithheldDestinations {
        var mark = WithheldDestinations(reason: .consent)
        for index in indexes { mark.insert(index) }
        return mark
    }

    private static func marked(_ line: String, _ number: Int64, _ mark: WithheldDestinations?, source: Int32 = 0) -> Event {
        var event = T.decode(line, line: number)
        event = Event(document: event.document, origin: Origin(source: source, line: number), type: event.type,
                      time: event.time, name: event.name)
        event.withheld = mark
        return event
    }

    private static func process(_ events: [Event], into stage: inout TimedEventPairing, finish: Bool = true) -> [Event] {
        var emitted: [Event] = []
        for event in events {
            var output = StageOutput()
            stage.process(event, into: &output)
            emitted += output.events
        }
        if finish {
            var output = StageOutput()
            stage.finish(into: &output)
            emitted += output.events
        }
        return emitted
    }

    private static func timed(_ event: Event) -> String? { T.written(event).string(at: JSONPath("timed")) }

    @Test func aCompletedPairIsWithheldFromEveryDestinationItsStartOrItsStopWasWithheldFrom() {
        var stage = TimedEventPairing()
        let out = Self.process([Self.marked(T.start("video", at: 0), 1, Self.mark(0)),
                                Self.marked(T.stop("video", at: 5), 2, Self.mark(2))], into: &stage)
        #expect(out.count == 1 && Self.timed(out[0]) == "completed")
        #expect(out[0].withheld == Self.mark(0, 2))
    }

    @Test func aCompletedPairKeepsTheStartsMarkWhenTheStopHasNone() {
        var stage = TimedEventPairing()
        let out = Self.process([Self.marked(T.start("video", at: 0), 1, Self.mark(1)),
                                Self.marked(T.stop("video", at: 5), 2, nil)], into: &stage)
        #expect(out.count == 1 && Self.timed(out[0]) == "completed")
        #expect(out[0].withheld == Self.mark(1))
    }

    @Test func aStopThatCameFirstPairsWithALateStartKeepingBothMarks() {
        var stage = TimedEventPairing()
        let out = Self.process([Self.marked(T.stop("video", at: 5), 1, Self.mark(3)),
                                Self.marked(T.start("video", at: 0), 2, Self.mark(70))], into: &stage)
        #expect(out.count == 1 && Self.timed(out[0]) == "completed")
        #expect(out[0].withheld == Self.mark(3, 70))
    }

    @Test func abandonedStartsAndOrphanStopsKeepTheirMarks() {
        var stage = TimedEventPairing()
        let out = Self.process([Self.marked(T.start("video", at: 0), 1, Self.mark(0)),
                                Self.marked(T.start("video", at: 1), 2, Self.mark(1)),   // restarts: line 1 abandoned now
                                Self.marked(T.stop("other", at: 2), 3, Self.mark(2)),    // held, then an orphan at the end
                                Self.marked(T.start("late", at: 3), 4, Self.mark(4))],  // abandoned at the end
                               into: &stage)
        let byLine = Dictionary(uniqueKeysWithValues: out.map { ($0.origin.line, $0) })
        #expect(out.count == 4)
        #expect(byLine[1]?.withheld == Self.mark(0) && byLine[1].map(Self.timed) == "abandoned")
        #expect(byLine[2]?.withheld == Self.mark(1) && byLine[2].map(Self.timed) == "abandoned")
        #expect(byLine[3]?.withheld == Self.mark(2) && byLine[3].map(Self.timed) == "orphan_stop")
        #expect(byLine[4]?.withheld == Self.mark(4) && byLine[4].map(Self.timed) == "abandoned")
    }

    @Test func anEventAnEarlierStageEditedKeepsItsMarkThroughTheStage() {
        var event = Self.marked(T.start("video", at: 0), 1, Self.mark(5))
        event.document.set(JSONPath("context.ip"), string: "10.0.0.0")
        #expect(event.document.isModified)
        var stage = TimedEventPairing()
        let out = Self.process([event, Self.marked(T.stop("video", at: 5), 2, nil)], into: &stage)
        #expect(out.count == 1 && Self.timed(out[0]) == "completed")
        #expect(out[0].withheld == Self.mark(5))
    }

    @Test(arguments: ["{}", "{on_abandoned: drop}"])
    func aStartCarriedInTheStateFileKeepsItsMark(yaml: String) throws {
        var first = StagePipeline(StateCase.stages("[{timed: \(yaml)}]"))
        first.feed([Self.marked(T.start("video", at: 0), 1, Self.mark(0, 65)),
                    Self.marked(T.stop("seen", at: 1), 2, Self.mark(1))])
        #expect(first.heldLines == 2)
        var second = StagePipeline(StateCase.stages("[{timed: \(yaml)}]"))
        try second.restore(first.save())
        var stage = second.stages[0] as! TimedEventPairing
        let out = Self.process([Self.marked(T.stop("video", at: 30), 1, Self.mark(2), source: 1)], into: &stage)
        let completed = out.first { Self.timed($0) == "completed" }
        #expect(completed?.withheld == Self.mark(0, 2, 65))
        let orphan = out.first { Self.timed($0) == "orphan_stop" }
        #expect(orphan?.withheld == Self.mark(1))
    }
}
