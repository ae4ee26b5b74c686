@testable import Sluice
import Testing

/// `session:` and `dedupe:` in the pipeline file.
@Suite struct SessionAndDedupeSettingsTests {
    private func load(_ stage: String) throws -> [any Stage] {
        try PipelineConfiguration.load(yaml: """
        version: 1
        stages:
          - \(stage)
        destinations:
          archive: {type: ndjson}
        """, file: "p.yaml").stages
    }

    private func errors(_ stage: String) -> [String] {
        do {
            _ = try load(stage)
            return []
        } catch let error as ConfigurationError {
            return error.diagnostics.map(\.description)
        } catch {
            return ["\(error)"]
        }
    }

    @Test(arguments: ["session: {}", "session:", "session: null"])
    func everySessionKeyIsOptionalWithTheDocumentedDefaults(_ stage: String) throws {
        let settings = try #require(try load(stage).first as? SessionTracking).settings
        #expect(settings.inactivity == .seconds(1800))
        #expect(settings.maxLength == .seconds(86400))
        #expect(settings.maxDevices == 1_000_000)
        #expect(settings.lateness == .seconds(300))
        #expect(settings.signOutEvents == ["signed_out"])
        #expect(settings.attachSettings)
        #expect(settings.attachTraits.isEmpty)
    }

    @Test func everySessionKeyIsRead() throws {
        let settings = try #require(try load("""
        session: {inactivity: 5m, max_length: 2h, max_devices: 1_000, lateness: 30s, sign_out_events: [logout, Signed Out],
                      attach: {settings: false, traits: [plan, country]}}
        """).first as? SessionTracking).settings
        #expect(settings.inactivity == .seconds(300))
        #expect(settings.maxLength == .seconds(7200))
        #expect(settings.maxDevices == 1000)
        #expect(settings.lateness == .seconds(30))
        #expect(settings.signOutEvents == ["logout", "Signed Out"])
        #expect(!settings.attachSettings)
        #expect(settings.attachTraits == ["plan", "country"])
    }

    @Test(arguments: ["dedupe: {}", "dedupe:", "dedupe: null"])
    func everyDedupeKeyIsOptionalWithTheDocumentedDefaults(_ stage: String) throws {
        let settings = try #require(try load(stage).first as? MessageDeduplication).settings
        #expect(settings.maxIDs == 1_000_000)
        #expect(settings.window == nil)
        #expect(settings.onCollision == .rename)
        #expect(settings.ignoreFields == ["sentAt", "receivedAt"])
    }

    @Test func everyDedupeKeyIsRead() throws {
        let settings = try #require(try load("dedupe: {max_ids: 500, window: 24h, on_collision: keep, ignore_fields: []}").first
            as? MessageDeduplication).settings
        #expect(settings.maxIDs == 500)
        #expect(settings.window == .seconds(86400))
        #expect(settings.onCollision == .keep)
        #expect(settings.ignoreFields.isEmpty)
    }

    @Test func bothStagesRunInTheOrderWritten() throws {
        let stages = try load("dedupe: {}\n  - session: {}")
        #expect(stages.map(\.name) == ["dedupe", "session"])
    }

    @Test func unknownKeysAreErrorsWithTheNearestKeySuggested() {
        #expect(errors("session: {inactivty: 10m}") == [
            "p.yaml:3:15: unknown key 'inactivty' in the session stage; did you mean 'inactivity'?",
        ])
        #expect(errors("session: {attach: {trait: [plan]}}") == [
            "p.yaml:3:24: unknown key 'trait' in session.attach; did you mean 'traits'?",
        ])
        #expect(errors("dedupe: {max_id: 10}") == [
            "p.yaml:3:14: unknown key 'max_id' in the dedupe stage; did you mean 'max_ids'?",
        ])
    }

    @Test func badValuesAreAllReportedWithTheirPlace() {
        #expect(errors("session: {inactivity: 0s, max_length: forever, max_devices: 0, attach: {settings: maybe, traits: [plan, plan]}}") == [
            "p.yaml:3:27: session.inactivity must be longer than 0",
            "p.yaml:3:43: session.max_length must be a duration such as 500ms, 30s, 1h30m or 1.5s",
            "p.yaml:3:65: session.max_devices must be between 1 and 100000000, not 0",
            "p.yaml:3:87: session.attach.settings must be true or false",
            "p.yaml:3:109: session.attach.traits names 'plan' twice",
        ])
        #expect(errors("dedupe: {max_ids: -1, window: 0s, on_collision: renam, ignore_fields: [messageId]}") == [
            "p.yaml:3:23: dedupe.max_ids must be between 1 and 100000000, not -1",
            "p.yaml:3:35: dedupe.window must be longer than 0 (leave it out for no window)",
            "p.yaml:3:53: dedupe.on_collision must be one of rename, keep, not 'renam'; did you mean 'rename'?",
            "p.yaml:3:76: dedupe.ignore_fields cannot hold messageId: it is the key, never part of the comparison",
        ])
    }
}
