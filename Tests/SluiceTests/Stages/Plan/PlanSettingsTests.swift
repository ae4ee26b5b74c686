@testable import Sluice
import Testing

@Suite struct PlanSettingsTests {
    private func errors(_ plan: String) -> [String] {
        do {
            _ = try PipelineConfiguration.load(yaml: "version: 1\nstages:\n  - plan:\n" + plan + "\ndestinations:\n  a: {type: ndjson}\n", file: "p.yaml")
            return []
        } catch {
            return error.diagnostics.map(\.description)
        }
    }

    @Test func theIssuesPlanReadsWithItsTypesRequiredAndAdditionalProperties() throws {
        let configuration = try PipelineConfiguration.load(path: repositoryRootForUnitTests + "/pipelines/plan.yaml")
        let plan = try #require(configuration.stages.first as? TrackingPlan)
        #expect(plan.settings.onViolation == .reject)
        #expect(plan.settings.unplannedEvents == .reject)
        let movie = plan.settings.events[0]
        #expect(movie.name == "movie_tapped")
        #expect(movie.properties.map(\.name) == ["movie_id", "movie_slug", "movie_index"])
        #expect(movie.properties.map(\.required) == [true, false, false])
        #expect(movie.additionalProperties)
        let like = plan.settings.events[1]
        #expect(!like.additionalProperties)
        #expect(like.properties[1].type == PropertyType(.enumeration([.string(Array("feed".utf8)), .string(Array("detail".utf8))])))
        #expect(like.line == 16)
        #expect(like.column == 9)
    }

    @Test func everyMistakeIsReportedWithItsLocation() {
        let found = errors("""
              on_violation: drop
              events:
                a:
                  properties: {id: integr, kind: {enum: []}, n: {enum: [1, null]}, t: {type: string, enum: [x]}, u: {nullable: true}}
                  required: [idd]
                b: {propertes: {}}
        """)
        #expect(found.contains("p.yaml:4:21: plan.on_violation must be one of reject, flag, omit, not 'drop'"))
        #expect(found.contains { $0.hasPrefix("p.yaml:7:28: plan.events.a.properties.id has unknown type 'integr'; did you mean 'integer'?") })
        #expect(found.contains { $0.hasPrefix("p.yaml:7:49: plan.events.a.properties.kind.enum must be a non-empty list") })
        #expect(found.contains { $0.hasPrefix("p.yaml:7:68: plan.events.a.properties.n.enum cannot list null; add `nullable: true` instead") })
        #expect(found.contains { $0.hasPrefix("p.yaml:7:79: plan.events.a.properties.t has both type and enum") })
        #expect(found.contains { $0.hasPrefix("p.yaml:7:109: plan.events.a.properties.u needs `type:` or `enum:`") })
        #expect(found.contains("p.yaml:8:22: plan.events.a.required names 'idd', which is not in its properties; did you mean 'id'?"))
        #expect(found.contains { $0.hasPrefix("p.yaml:9:13: unknown key 'propertes' in plan.events.b; did you mean 'properties'?") })
        #expect(found.count == 8, "\(found)")
    }

    @Test func enumMembersKeepTheirJSONTypes() throws {
        let configuration = try PipelineConfiguration.load(yaml: """
        version: 1
        stages:
          - plan: {events: {a: {properties: {v: {enum: [feed, "5", 5, 2.50, true]}}}}}
        destinations:
          a: {type: ndjson}
        """, file: "p.yaml")
        let plan = try #require(configuration.stages.first as? TrackingPlan)
        #expect(plan.settings.events[0].properties[0].type.base == .enumeration([
            .string(Array("feed".utf8)), .string(Array("5".utf8)), .number(Array("5".utf8)), .number(Array("2.50".utf8)), .boolean(true),
        ]))
    }
}
