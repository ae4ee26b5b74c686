import Foundation
import SluiceTestSupport
import Testing

/// End-to-end: the `plan` stage on a generated stream, and `validate`'s lint of a plan.
@Suite struct PlanStageTests {
    private func json(_ bytes: [UInt8]) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] ?? [:]
    }

    @Test func unplannedAndViolatingEventsAreRejectedWithReasonsAndCountedPerEvent() throws {
        let directory = TemporaryDirectory()
        let generated = try SluiceBinary.shell("$SLUICE generate --events 5000 --seed 3 > in.ndjson", in: directory.path)
        #expect(generated.status == 0)
        let result = try SluiceBinary.run(["run", "--pipeline", repositoryRoot + "/pipelines/plan.yaml", "--stats", "stats.json",
                                           "in.ndjson"], in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        let stats = json(Array(try Data(contentsOf: URL(fileURLWithPath: directory.file("stats.json")))))
        #expect(stats["balanced"] as? Bool == true)
        let stages = try #require(stats["stages"] as? [[String: Any]])
        let plan = try #require(stages.first { $0["stage"] as? String == "plan" })
        let events = try #require(plan["events"] as? [String: [String: Int]])
        #expect(Set(events.keys) == ["movie_tapped", "like_toggled"])
        #expect((events["movie_tapped"]?["checked"] ?? 0) > 0)
        let byKind = try #require(plan["violations_by_kind"] as? [String: Int])
        let unplanned = try #require(plan["unplanned_events"] as? [String: Int])
        #expect(byKind["unplanned_event"] == plan["unplanned"] as? Int)
        #expect(unplanned.values.reduce(0, +) == plan["unplanned"] as? Int)
        let rejected = try #require(stats["rejected_by_reason"] as? [String: Int])
        #expect(rejected["unplanned_event"] == plan["unplanned"] as? Int)
        #expect(rejected["plan_violation"] == plan["violating"] as? Int)

        // Every reject of the plan names its stage and why.
        let rejectFiles = directory.files().filter { $0.hasPrefix("out/rejects/") && $0.hasSuffix(".gz") }
        let rejects = rejectFiles.flatMap { ndjsonLines(TestGzip.decompressFile(directory.file($0)) ?? []) }.map(json)
        let fromPlan = rejects.filter { $0["stage"] as? String == "plan" }
        #expect(fromPlan.count == rejected["unplanned_event", default: 0] + rejected["plan_violation", default: 0])
        for reject in fromPlan where reject["reason"] as? String == "plan_violation" {
            let detail = try #require(reject["detail"] as? String)
            #expect(detail.hasPrefix("properties."))
            #expect(["missing_required", "wrong_type", "not_in_enum", "unplanned_property"].contains { detail.contains($0) }, "\(detail)")
        }
    }

    @Test func validateReportsLintErrorsAndWarningsWithTheirLocations() throws {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", """
        version: 1
        stages:
          - plan:
              events:
                Movie Tapped: {properties: {tags: array}}
                purchase_completed: {}
        destinations:
          ga4: {type: ga4}
          strict_ga4: {type: ga4, names: reject}
          adjust: {type: adjust, app_token: 4w565xzmb54d, tokens: {purchase_completed: f0ob4r}, rename: {purchase_completed: buy}}

        """)
        let result = try SluiceBinary.run(["validate", "p.yaml"], in: directory.path)
        #expect(result.status == 78)
        #expect(result.stderr.contains("p.yaml:5:9: warning: destination 'ga4' (ga4): event 'Movie Tapped' is not a valid GA4 event name and would be sent as 'Movie_Tapped'"))
        #expect(result.stderr.contains("p.yaml:5:37: warning: destination 'ga4' (ga4): property 'tags' is an array"))
        #expect(result.stderr.contains("p.yaml:5:9: warning: destination 'adjust' (adjust): event 'Movie Tapped' has no Adjust event token"))
        #expect(result.stderr.contains("p.yaml:5:9: error: destination 'strict_ga4' (ga4): event 'Movie Tapped' is not a valid GA4 event name"))
        #expect(result.stderr.contains("p.yaml:6:9: warning: destination 'adjust' (adjust): event 'purchase_completed' is renamed to 'buy'"))
    }

    @Test func lintWarningsAloneExit0UnlessStrict() throws {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", "version: 1\nstages:\n  - plan: {events: {Movie Tapped: {}}}\ndestinations:\n  ga4: {type: ga4}\n")
        let lenient = try SluiceBinary.run(["validate", "p.yaml"], in: directory.path)
        #expect(lenient.status == 0)
        #expect(lenient.stdoutText.hasSuffix("\np.yaml: ok (1 warning)\n"))
        #expect(lenient.stderr.hasPrefix("p.yaml:3:21: warning: "))
        let strict = try SluiceBinary.run(["validate", "--strict", "p.yaml"], in: directory.path)
        #expect(strict.status == 78)
    }
}
