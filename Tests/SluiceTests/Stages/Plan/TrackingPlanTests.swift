@testable import Sluice
@testable import SluiceJSON
import Testing

private let moviePlan = """
{on_violation: reject, unplanned_events: reject, events: {movie_tapped: {properties: {movie_id: integer, movie_slug: string}, required: [movie_id]}, like_toggled: {properties: {liked: boolean, source: {enum: [feed, detail]}}, additional_properties: false}}}
"""

@Suite struct TrackingPlanTests {
    @Test func aConformingEventPassesUntouched() throws {
        var plan = try PlanHarness(moviePlan)
        let line = message(#""event":"movie_tapped","properties":{"movie_id":5,"movie_slug":"up","extra":[1]}"#)
        #expect(try plan.run(line) == .passed(line))
        #expect(plan.counter("conforming") == 1)
    }

    @Test func aMissingRequiredPropertyIsRejectedNamingThePropertyAndTheKind() throws {
        var plan = try PlanHarness(moviePlan)
        #expect(try plan.run(message(#""event":"movie_tapped","properties":{"movie_slug":"up"}"#))
            == .rejected(.planViolation, "properties.movie_id: missing_required, expected integer"))
        // An absent properties object is an empty one.
        #expect(try plan.run(message(#""event":"movie_tapped""#))
            == .rejected(.planViolation, "properties.movie_id: missing_required, expected integer"))
    }

    @Test func everyViolationOfAnEventIsNamedInTheDetail() throws {
        var plan = try PlanHarness(moviePlan)
        let fate = try plan.run(message(#""event":"like_toggled","properties":{"liked":"yes","source":"home","note":null}"#))
        #expect(fate == .rejected(.planViolation, "properties.liked: wrong_type, expected boolean, got string; "
            + "properties.source: not_in_enum, expected enum [feed, detail], got string; properties.note: unplanned_property"))
        #expect(plan.group("violations_by_kind")?.first { $0.name == "wrong_type" }?.value == 1)
        #expect(plan.group("events", "like_toggled")?.map(\.name) == ["checked", "violating", "wrong_type", "not_in_enum", "unplanned_property"])
    }

    @Test func aPropertiesValueThatIsNotAnObjectIsItselfAViolation() throws {
        var plan = try PlanHarness(moviePlan)
        #expect(try plan.run(message(#""event":"movie_tapped","properties":[5]"#))
            == .rejected(.planViolation, "properties.properties: wrong_type, expected object, got array"))
    }

    @Test func flagPassesTheEventWithItsViolationsInContext() throws {
        var plan = try PlanHarness("{on_violation: flag, events: {like_toggled: {properties: {liked: boolean, source: {enum: [feed, detail]}}, required: [liked]}}}")
        let fate = try plan.run(message(#""event":"like_toggled","properties":{"source":"home"},"context":{"ip":"203.0.113.7"}"#))
        #expect(fate == .passed(message(#""event":"like_toggled","properties":{"source":"home"},"context":{"ip":"203.0.113.7","violations":[{"property":"liked","kind":"missing_required","expected":"boolean"},{"property":"source","kind":"not_in_enum","expected":"enum [feed, detail]","got":"string"}]}"#)))
        // Without a context object, one is made.
        #expect(try plan.run(message(#""event":"like_toggled","properties":{"liked":1}"#))
            == .passed(message(#""event":"like_toggled","properties":{"liked":1},"context":{"violations":[{"property":"liked","kind":"wrong_type","expected":"boolean","got":"integer"}]}"#)))
        #expect(plan.counter("flagged") == 2)
    }

    @Test func flagRejectsAnEventWhoseContextCannotCarryTheViolations() throws {
        var plan = try PlanHarness("{on_violation: flag, events: {like_toggled: {properties: {liked: boolean}}}}")
        let fate = try plan.run(message(#""event":"like_toggled","properties":{"liked":1},"context":"web""#))
        guard case let .rejected(reason, detail) = fate else { Issue.record("passed: \(fate)"); return }
        #expect(reason == .planViolation)
        #expect(detail.contains("context is not an object"))
    }

    @Test func omitDropsOnlyTheOffendingProperties() throws {
        var plan = try PlanHarness("{on_violation: omit, events: {like_toggled: {properties: {liked: boolean, source: {enum: [feed, detail]}, \"odd.key\": string}, additional_properties: false}}}")
        let fate = try plan.run(message(#""event":"like_toggled","properties":{"liked":true,"source":"home","odd.key":5,"extra":{"a":1},"x":2}"#))
        #expect(fate == .passed(message(#""event":"like_toggled","properties":{"liked":true}"#)))
        #expect(plan.counter("omitted_properties") == 4)
    }

    @Test func omitRejectsWhatDroppingCannotFix() throws {
        var plan = try PlanHarness("{on_violation: omit, events: {movie_tapped: {properties: {movie_id: integer, slug: string}, required: [movie_id]}}}")
        #expect(try plan.run(message(#""event":"movie_tapped","properties":{"slug":"up"}"#))
            == .rejected(.planViolation, "properties.movie_id: missing_required, expected integer (cannot be omitted: the property is required)"))
        #expect(try plan.run(message(#""event":"movie_tapped","properties":{"movie_id":"5","slug":7}"#))
            == .rejected(.planViolation, "properties.movie_id: wrong_type, expected integer, got string (cannot be omitted: the property is required)"))
        #expect(try plan.run(message(#""event":"movie_tapped","properties":{"movie_id":5,"slug":7}"#))
            == .passed(message(#""event":"movie_tapped","properties":{"movie_id":5}"#)))
    }

    @Test func unplannedEventsAreRejectedFlaggedOrPassedAndCountedByName() throws {
        var reject = try PlanHarness(moviePlan)
        #expect(try reject.run(message(#""event":"movie_tpaped""#))
            == .rejected(.unplannedEvent, #"track "movie_tpaped" is not in the tracking plan's events"#))
        var flag = try PlanHarness("{unplanned_events: flag, events: {a: {}}}")
        #expect(try flag.run(message(#""event":"b""#))
            == .passed(message(#""event":"b","context":{"violations":[{"kind":"unplanned_event","expected":"a planned event"}]}"#)))
        var pass = try PlanHarness("{unplanned_events: pass, events: {a: {}}}")
        #expect(try pass.run(message(#""event":"b""#)) == .passed(message(#""event":"b""#)))
        _ = try pass.run(message(#""event":"b""#))
        #expect(pass.counter("unplanned") == 2)
        #expect(pass.group("unplanned_events")?.map(\.name) == ["b"])
        #expect(pass.group("unplanned_events")?.map(\.value) == [2])
    }

    @Test func unplannedNamesAreCountedForAHundredNamesThenAsOther() throws {
        var plan = try PlanHarness("{unplanned_events: pass}")
        for index in 0..<150 { _ = try plan.run(message(#""event":"e\#(index)""#)) }
        let names = try #require(plan.group("unplanned_events"))
        #expect(names.count == 101)
        #expect(names.last?.name == "(other)")
        #expect(names.last?.value == 50)
    }

    @Test func screensAndIdentifyAreCheckedOnlyWhenPlanned() throws {
        var without = try PlanHarness("{events: {a: {}}}")
        #expect(try without.run(message(#""name":"Anything""#, type: "screen")) == .passed(message(#""name":"Anything""#, type: "screen")))
        #expect(try without.run(message(#""traits":{"x":1}"#, type: "identify")) == .passed(message(#""traits":{"x":1}"#, type: "identify")))
        #expect(try without.run(message(#""name":"Pricing""#, type: "page")) == .passed(message(#""name":"Pricing""#, type: "page")))
        #expect(without.counter("unchecked") == 3)

        var with = try PlanHarness("{screens: {Home: {properties: {tab: {enum: [feed, search]}}}}, identify: {traits: {plan: {enum: [free, pro]}, email: {type: string, nullable: true}}, required: [plan]}}")
        #expect(try with.run(message(#""name":"Home","properties":{"tab":"feed"}"#, type: "screen")) == .passed(message(#""name":"Home","properties":{"tab":"feed"}"#, type: "screen")))
        #expect(try with.run(message(#""name":"Settings""#, type: "screen")) == .rejected(.unplannedEvent, #"screen "Settings" is not in the tracking plan's screens"#))
        #expect(try with.run(message(#""traits":{"plan":"pro","email":null}"#, type: "identify")) == .passed(message(#""traits":{"plan":"pro","email":null}"#, type: "identify")))
        #expect(try with.run(message(#""traits":{"plan":"gold"}"#, type: "identify"))
            == .rejected(.planViolation, "traits.plan: not_in_enum, expected enum [free, pro], got string"))
        #expect(with.group("identify")?.map(\.name) == ["checked", "violating", "not_in_enum"])
        #expect(with.group("unplanned_screens")?.map(\.name) == ["Settings"])
    }

    @Test func countersAddUp() throws {
        var plan = try PlanHarness(moviePlan)
        _ = try plan.run(message(#""event":"movie_tapped","properties":{"movie_id":1}"#))
        _ = try plan.run(message(#""event":"movie_tapped","properties":{}"#))
        _ = try plan.run(message(#""event":"nope""#))
        _ = try plan.run(message(#""previousId":"x""#, type: "alias"))
        let flat = Dictionary(uniqueKeysWithValues: plan.stage.counters.map { ($0.name, $0.value) })
        #expect(flat == ["checked": 2, "conforming": 1, "violating": 1, "rejected": 2, "flagged": 0,
                         "omitted_properties": 0, "unplanned": 1, "unchecked": 1])
        #expect(plan.group("events", "movie_tapped")?.map(\.value) == [2, 1, 1])
        #expect(plan.group("events", "like_toggled")?.map(\.value) == [0, 0])
    }

    @Test func theStatsJSONNestsThePlansCounters() throws {
        var plan = try PlanHarness(moviePlan)
        _ = try plan.run(message(#""event":"movie_tapped","properties":{}"#))
        var summary = RunSummary()
        summary.stages = [(plan.stage.name, plan.stage.counters)]
        summary.stageGroups = [plan.stage.counterGroups]
        let json = try JSONDocument.parse(Array(summary.json.utf8))
        let stage = try #require(json.elements(of: json.member("stages")!).first)
        #expect(json.rawBytes(json.member("violating", of: stage)!).elementsEqual("1".utf8))
        let events = try #require(json.member("events", of: stage))
        let movie = try #require(json.member("movie_tapped", of: events))
        #expect(json.rawBytes(json.member("missing_required", of: movie)!).elementsEqual("1".utf8))
        let kinds = try #require(json.member("violations_by_kind", of: stage))
        #expect(json.members(of: kinds).count == PlanViolation.Kind.allCases.count)
    }

    @Test func anEventAnEarlierStageChangedIsCheckedAsChanged() throws {
        var plan = try PlanHarness(moviePlan)
        var event = try Array(message(#""event":"movie_tapped","properties":{"movie_id":"5"}"#).utf8)
            .withUnsafeBufferPointer { Event.decode($0, origin: Origin(source: 0, line: 1)) }.get()
        event.document.set(JSONPath("properties.movie_id"), integer: 5)
        event.document.set(JSONPath("properties.movie_slug"), string: "up")
        var output = StageOutput()
        plan.stage.process(event, into: &output)
        #expect(output.settled.isEmpty)
        #expect(output.events.map { String(decoding: $0.document.canonicalJSON, as: UTF8.self) }
            == [message(#""event":"movie_tapped","properties":{"movie_id":5,"movie_slug":"up"}"#)])
    }
}
