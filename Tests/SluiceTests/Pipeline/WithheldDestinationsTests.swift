@testable import Sluice
import SluiceTestSupport
import Testing

/// The fan-out honours a stage's "not for these destinations" mark without
/// knowing the stage: here the `privacy` stage's consent categories.
@Suite struct WithheldDestinationsTests {
    @Test func markedDestinationsCountTheEventAndAnEventNoneMayTakeIsDroppedForConsent() throws {
        let directory = TemporaryDirectory()
        let configuration = try PipelineConfiguration.load(yaml: """
            version: 1
            stages: [{privacy: {}}]
            destinations:
              mixpanel: {type: mixpanel}
              adjust: {type: adjust, app_token: 4w565xzmb54d, tokens: {buy: abc123}}
              notes: {type: ndjson, consent_category: Functional}
            """, file: "p.yaml")
        #expect(configuration.destinations.map(\.consentCategory) == ["Analytics", "Advertising", "Functional"])
        func line(_ prefs: String) -> String {
            #"{"type":"track","event":"buy","anonymousId":"device-1","timestamp":"2026-11-20T08:00:00Z","context":{"consent":{"categoryPreferences":\#(prefs)}}}"# + "\n"
        }
        let input = line(#"{"Analytics":true,"Advertising":true,"Functional":true}"#)
            + line(#"{"Analytics":false,"Advertising":true,"Functional":true}"#)
            + line(#"{"Analytics":false,"advertising":false}"#)
        let path = directory.write("in.ndjson", input)
        var options = RunOptions()
        options.outDirectory = directory.file("out")
        let summary = try PipelineRunner(configuration: configuration, options: options).run(inputs: [path])
        #expect(summary.emitted == 2 && summary.dropped == [.consent: 1] && summary.isBalanced)
        let withheld = summary.destinations.map { $0.notTaken["consent", default: 0] }
        #expect(withheld == [2, 1, 1])
        #expect(summary.destinations.map(\.events) == [1, 2, 2])
        #expect(summary.json.contains(#""not_taken_by_reason":{"consent":2}"#))
    }

    @Test func aTimedPairIsKeptFromTheDestinationsItsStartWasWithheldFromAfterTheStageMergesIt() throws {
        let directory = TemporaryDirectory()
        let configuration = try PipelineConfiguration.load(yaml: """
            version: 1
            stages: [{privacy: {}}, {timed: {}}]
            destinations:
              mixpanel: {type: mixpanel}
              notes: {type: ndjson, consent_category: Functional}
            """, file: "p.yaml")
        func line(_ marker: String, _ time: String, _ prefs: String) -> String {
            #"{"type":"track","event":"video","anonymousId":"device-1","timed":"\#(marker)","timestamp":"2026-11-20T08:00:\#(time)Z","context":{"consent":{"categoryPreferences":\#(prefs)}}}"# + "\n"
        }
        // The start denies Analytics (mixpanel); the stop grants everything: the pair must still not reach mixpanel.
        let input = line("start", "00", #"{"Analytics":false,"Functional":true}"#)
            + line("stop", "05", #"{"Analytics":true,"Functional":true}"#)
        let path = directory.write("in.ndjson", input)
        var options = RunOptions()
        options.outDirectory = directory.file("out")
        let summary = try PipelineRunner(configuration: configuration, options: options).run(inputs: [path])
        #expect(summary.emitted == 1 && summary.merged == 1 && summary.isBalanced)
        #expect(summary.destinations.map(\.events) == [0, 1])
        #expect(summary.destinations.map { $0.notTaken["consent", default: 0] } == [1, 0])
    }

    @Test func consentCategoryCanBeSetOrRemoved() throws {
        let configuration = try PipelineConfiguration.load(yaml: """
            version: 1
            destinations:
              a: {type: mixpanel, consent_category: Marketing}
              b: {type: adjust, app_token: 4w565xzmb54d, tokens: {buy: abc123}, consent_category: null}
              c: {type: segment}
            """, file: "p.yaml")
        #expect(configuration.destinations.map(\.consentCategory) == ["Marketing", nil, nil])
    }
}
