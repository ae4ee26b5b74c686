import Testing
@testable import Sluice

/// A stage with a clock, counting what reached it.
private struct ClockStage: EventTimeStage {
    let name: String
    var advanced: [EventTime] = []

    mutating func process(_ event: consuming Event, into output: inout StageOutput) { output.emit(event) }
    mutating func finish(into output: inout StageOutput) {}
    mutating func advance(to time: EventTime, into output: inout StageOutput) { advanced.append(time) }
}

/// A stage with nothing but what every stage has.
private struct PlainStage: Stage {
    let name: String

    mutating func process(_ event: consuming Event, into output: inout StageOutput) { output.emit(event) }
    mutating func finish(into output: inout StageOutput) {}
}

/// What only some stages do is asked for by capability, once at setup
/// (`StageCapabilities.swift`).
@Suite struct StageCapabilitiesTests {
    @Test func aStageIsMutatedThroughItsCapabilityInPlaceAndTheOthersAreLeftAlone() {
        var stages: [any Stage] = [PlainStage(name: "a"), ClockStage(name: "b"), PlainStage(name: "c")]
        let time = EventTime(microseconds: 1_000_000)
        var had: [Bool] = []
        for index in stages.indices {
            var output = StageOutput()
            had.append(stages.mutate(index, as: (any EventTimeStage).self) { $0.advance(to: time, into: &output) })
        }
        #expect(had == [false, true, false])
        #expect(stages.map(\.name) == ["a", "b", "c"])
        #expect((stages[1] as? ClockStage)?.advanced == [time])
    }

    @Test func aStageWithoutStepsFinishesInOneStep() {
        var stage = ClockStage(name: "b")
        var output = StageOutput()
        #expect(stage.finish(into: &output, limit: 1))
        #expect(stage.toleratedLateness == nil)
    }

    @Test func eachStageAdoptsWhatItDoesAndNothingElse() throws {
        let yaml = """
            version: 1
            stages:
              - dedupe: {window: 1h}
              - timed: {}
              - session: {attach: {traits: [plan]}}
              - plan: {events: {first_open: {}}}
              - privacy: {}
            destinations: {archive: {type: ndjson}}
            """
        let stages = try PipelineConfiguration.load(yaml: yaml, file: "test.yaml").stages
        #expect(stages.map { $0 is any EventTimeStage } == [true, true, true, false, false])
        #expect(stages.map { $0 is any PersonalDataStage } == [false, false, false, false, true])
        #expect(stages.map { $0 is any ReportedTextStage } == [false, false, false, true, false])
        #expect(stages.map { $0 is any DestinationLintingStage } == [false, false, false, true, false])
        #expect(stages.map { $0 is any DestinationWithholdingStage } == [false, false, false, false, true])
    }
}
