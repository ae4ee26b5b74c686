@testable import Sluice
import Testing

/// Unplanned names come from the events: with a privacy stage in the pipeline
/// (even after the plan) they are counted under their scrubbed form, and
/// every name is cut to `ReportedText.maxBytes`.
@Suite struct PlanReportedNamesTests {
    @Test func anUnplannedNameIsCountedScrubbedWhenThePipelineHasAPrivacyStageAfterThePlan() throws {
        var plan = try PlanHarness("{unplanned_events: pass}", privacy: "{patterns: {order: \"ORD-[0-9]{4}\"}}")
        for name in ["signup jane@example.com", "signup bob@example.org", "call +1 (415) 555-0100", "paid ORD-1234", "signup jane@example.com"] {
            _ = try plan.run(message(#""event":"\#(name)""#))
        }
        let names = try #require(plan.group("unplanned_events"))
        // Two addresses become one name: counted together, as one label.
        #expect(names.map(\.name) == ["signup [email]", "call [phone]", "paid [order]"])
        #expect(names.map(\.value) == [3, 1, 1])
    }

    @Test func withoutAPrivacyStageANameIsReportedAsItCameBelowTheLengthCap() throws {
        var plan = try PlanHarness("{unplanned_events: pass}")
        _ = try plan.run(message(#""event":"signup jane@example.com""#))
        #expect(plan.group("unplanned_events")?.map(\.name) == ["signup jane@example.com"])
    }

    @Test func aLongNameIsCutToSixtyFourBytesAtACharacterBoundaryAndNamesThatShareTheirStartShareTheEntry() throws {
        var plan = try PlanHarness("{unplanned_events: pass}")
        let stem = String(repeating: "é", count: 40)  // 80 bytes
        _ = try plan.run(message(#""event":"\#(stem)a""#))
        _ = try plan.run(message(#""event":"\#(stem)b""#))
        let names = try #require(plan.group("unplanned_events"))
        #expect(names.count == 1 && names[0].value == 2)
        let reported = Array(names[0].name.utf8)
        #expect(reported.count <= ReportedText.maxBytes)
        #expect(names[0].name == String(repeating: "é", count: 30) + "…")
    }

    @Test func distinctScrubbedNamesAreCappedAtAHundredWhateverTheirRawNames() throws {
        var plan = try PlanHarness("{unplanned_events: pass}", privacy: "{}")
        // 300 distinct raw names that scrub to one, then 150 distinct clean names.
        for index in 0..<300 { _ = try plan.run(message(#""event":"signup user\#(index)@example.com""#)) }
        for index in 0..<150 { _ = try plan.run(message(#""event":"e\#(index)""#)) }
        let names = try #require(plan.group("unplanned_events"))
        #expect(names.first?.name == "signup [email]" && names.first?.value == 300)
        #expect(names.count == 101 && names.last?.name == "(other)" && names.last?.value == 51)
    }
}
