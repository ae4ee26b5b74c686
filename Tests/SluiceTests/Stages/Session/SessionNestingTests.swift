@testable import Sluice
@testable import SluiceJSON
import Testing

private typealias S = StageCase

/// The session stage copies a `session` message's `settings` and an
/// `identify`'s traits into `context.session` of later events, levels deeper
/// than they came: an event it lets out must still be read back by Sluice
/// under the same nesting limit (64), so a value too deep to attach is not.
@Suite struct SessionNestingTests {
    private static func nested(_ depth: Int) -> String { TimedNestingTests.nested(depth) }

    private static func readsBack(_ event: Event) -> Bool {
        (try? JSONDocument.parse(event.document.canonicalJSON)) != nil
    }

    private static func stage(_ attach: String) -> SessionTracking {
        S.stages("[{session: {attach: \(attach)}}]")[0] as! SessionTracking
    }

    @Test(arguments: [JSONParser.maxDepth - 1, JSONParser.maxDepth - 3, JSONParser.maxDepth - 4])
    func settingsAsDeepAsAMessageMayHoldNeverMakeAnEventTooDeepToReadBack(depth: Int) {
        var stage = Self.stage("{settings: true}")
        let outcome = S.run([S.sessionStart(0, settings: Self.nested(depth)), S.track(1000)], through: &stage)
        #expect(outcome.events.count == 2)
        #expect(outcome.events.allSatisfy(Self.readsBack))
        // Settings that fit below context.session are attached as they came.
        let attached = ((try? JSONDocument.parse(outcome.events[1].document.canonicalJSON))?.find(JSONPath("context.session.settings")) ?? nil) != nil
        #expect(attached == (depth <= JSONParser.maxDepth - 3))
        #expect(outcome.counters["too_deep_to_attach"] == (attached ? 0 : 1))
    }

    @Test func settingsTooDeepToAttachReplaceTheOldOnesWithNone() {
        var stage = Self.stage("{settings: true}")
        let outcome = S.run([S.sessionStart(0, settings: #"{"v":1}"#), S.track(1000),
                             S.sessionStart(2000, settings: Self.nested(JSONParser.maxDepth - 1)), S.track(3000)], through: &stage)
        let settings = outcome.events.map { event in
            (try? JSONDocument.parse(event.document.canonicalJSON))?.find(JSONPath("context.session.settings")) != nil
        }
        #expect(settings == [true, true, false, false])
    }

    @Test(arguments: [JSONParser.maxDepth - 2, JSONParser.maxDepth - 4, JSONParser.maxDepth - 5])
    func traitsAsDeepAsAMessageMayHoldNeverMakeAnEventTooDeepToReadBack(depth: Int) {
        var stage = Self.stage("{traits: [plan]}")
        let outcome = S.run([S.identify(0, user: "u1", traits: #"{"plan":\#(Self.nested(depth))}"#), S.track(1000, user: "u1")],
                            through: &stage)
        #expect(outcome.events.count == 2)
        #expect(outcome.events.allSatisfy(Self.readsBack))
        let attached = ((try? JSONDocument.parse(outcome.events[1].document.canonicalJSON))?.find(JSONPath("context.session.traits.plan")) ?? nil) != nil
        #expect(attached == (depth <= JSONParser.maxDepth - 4))
        #expect(outcome.counters["too_deep_to_attach"] == (attached ? 0 : 1))
    }

    @Test func aTraitTooDeepToAttachIsDroppedAndTheOtherTraitsStay() {
        var stage = Self.stage("{traits: [plan, tier]}")
        let outcome = S.run([S.identify(0, user: "u1", traits: #"{"plan":"pro","tier":1}"#),
                             S.identify(1000, user: "u1", traits: #"{"plan":\#(Self.nested(JSONParser.maxDepth - 2))}"#),
                             S.track(2000, user: "u1")], through: &stage)
        let last = try? JSONDocument.parse(outcome.events[2].document.canonicalJSON)
        #expect(last.flatMap { $0.find(JSONPath("context.session.traits.plan")) } == nil)
        #expect(last.flatMap { $0.find(JSONPath("context.session.traits.tier")) } != nil)
        #expect(outcome.events.allSatisfy(Self.readsBack))
    }

    @Test func theDepthOfAValueIsCountedAsTheParserCountsIt() {
        #expect(JSONNesting.depth(of: Array("1".utf8)) == 0)
        #expect(JSONNesting.depth(of: Array(#"{"a":[1,{"b":"}}]]"}]}"#.utf8)) == 3)
        #expect(JSONNesting.depth(of: Array(#"["\"[",[]]"#.utf8)) == 2)
        #expect(JSONNesting.depth(of: Array(Self.nested(JSONParser.maxDepth).utf8)) == JSONParser.maxDepth)
    }
}
