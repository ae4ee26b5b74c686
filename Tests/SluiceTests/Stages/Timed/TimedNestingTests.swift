@testable import Sluice
@testable import SluiceJSON
import Testing

private typealias T = TimedHarness

/// Every event the timed stage lets out is read back by Sluice under the same
/// limits it read its input with: rewriting a start and a stop whose
/// properties nest as deep as a line may (64 levels) never makes a deeper one.
@Suite struct TimedNestingTests {
    /// An object that nests `depth` levels (itself the first): `{"k":{"k":...{"k":1}}}`.
    static func nested(_ depth: Int, key: String = "k") -> String {
        String(repeating: #"{"\#(key)":"#, count: depth - 1) + #"{"\#(key)":1}"# + String(repeating: "}", count: depth - 1)
    }

    /// The deepest a line's properties may nest: the line itself is one level more.
    static let deepest = JSONParser.maxDepth - 1

    private static func readsBack(_ event: Event) -> Bool {
        (try? JSONDocument.parse(event.document.canonicalJSON)) != nil
    }

    @Test(arguments: [(deepest, deepest), (deepest, 1), (1, deepest), (deepest - 1, deepest)])
    func aPairWhosePropertiesNestAsDeepAsALineMayIsReadBack(start: Int, stop: Int) {
        let lines = [T.start("video", at: 0, properties: Self.nested(start, key: "a")),
                     T.stop("video", at: 5, properties: Self.nested(stop, key: "b"))]
        for line in lines { #expect(T.decode(line, line: 1).document.bytes.count > 0) }
        let outcome = T.run(lines)
        #expect(outcome.summary == ["video L2 completed 5000ms", "merged L1"])
        #expect(outcome.events.allSatisfy(Self.readsBack))
        // The stop's members and the start's are both there, at the depth they came.
        let text = String(decoding: outcome.events[0].document.canonicalJSON, as: UTF8.self)
        #expect(text.contains(#""properties":{"b":"#) && text.contains(#""a":"#))
    }

    @Test func abandonedStartsAndOrphanStopsNestedToTheLimitAreReadBack() {
        let deep = Self.nested(Self.deepest)
        let outcome = T.run([T.start("a", at: 0, properties: deep), T.start("a", at: 1, properties: deep),
                             T.stop("b", at: 2, properties: deep)])
        #expect(outcome.events.count == 3)
        #expect(outcome.events.allSatisfy(Self.readsBack))
    }

    @Test func aPairCarriedThroughTheStateNestedToTheLimitIsReadBack() throws {
        var first = StagePipeline(StateCase.stages("[{timed: {}}]"))
        first.feed([T.decode(T.start("video", at: 0, properties: Self.nested(Self.deepest)), line: 1)])
        var second = StagePipeline(StateCase.stages("[{timed: {}}]"))
        try second.restore(first.save())
        second.feed([T.decode(T.stop("video", at: 5, properties: Self.nested(Self.deepest, key: "j")), line: 2)])
        second.finish()
        let emitted = second.log.filter { $0.hasPrefix("emit ") }
        #expect(emitted.count == 1)
        let text = emitted[0].drop { $0 != "{" }
        #expect((try? JSONDocument.parse(Array(text.utf8))) != nil)
        #expect(text.contains(#""timed":"completed""#))
    }
}
