import Foundation
@testable import Sluice
@testable import SluiceJSON
import Testing

/// `timed:` in the pipeline file.
@Suite struct TimedSettingsTests {
    private func load(_ stage: String) throws -> TimedEventPairing {
        let configuration = try PipelineConfiguration.load(yaml: """
        version: 1
        stages:
          - \(stage)
        destinations:
          archive: {type: ndjson}
        """, file: "p.yaml")
        return try #require(configuration.stages.first as? TimedEventPairing)
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

    @Test(arguments: ["timed: {}", "timed:", "timed: null"])
    func everyKeyIsOptionalWithTheDocumentedDefaults(_ stage: String) throws {
        let settings = try load(stage).settings
        #expect(settings.marker == JSONPath("timed"))
        #expect(settings.correlate == [JSONPath("timerId")])
        #expect(settings.expireAfter == .seconds(1800))
        #expect(settings.lateness == .seconds(300))
        #expect(settings.maxOpen == 1_000_000)
        #expect(settings.maxOpenBytes == 512 << 20)
        #expect(settings.onAbandoned == .emit)
        #expect(settings.onOrphanStop == .pass)
    }

    @Test func everyKeyIsRead() throws {
        let settings = try load("""
        timed: {marker: phase, correlate: [timerId, context.device.id], expire_after: 2h, lateness: 30s,
                    max_open: 1_000, max_open_bytes: 64MiB, on_abandoned: drop, on_orphan_stop: reject}
        """).settings
        #expect(settings.marker == JSONPath("phase"))
        #expect(settings.correlate == [JSONPath("timerId"), JSONPath("context.device.id")])
        #expect(settings.expireAfter == .seconds(7200))
        #expect(settings.lateness == .seconds(30))
        #expect(settings.maxOpen == 1000)
        #expect(settings.maxOpenBytes == 64 << 20)
        #expect(settings.onAbandoned == .drop)
        #expect(settings.onOrphanStop == .reject)
        #expect(try load("timed: {correlate: [], lateness: 0s}").settings.correlate.isEmpty)
    }

    @Test func unknownKeysAreErrorsWithTheNearestKeySuggested() {
        #expect(errors("timed: {expire_afer: 10m}") == [
            "p.yaml:3:13: unknown key 'expire_afer' in the timed stage; did you mean 'expire_after'?",
        ])
    }

    @Test func badValuesAreAllReportedWithTheirLocations() {
        let found = errors("timed: {on_abandoned: emitt, on_orphan_stop: keep, max_open: 0, expire_after: 0s, lateness: soon, marker: 'a..b'}")
        #expect(found.count == 6)
        #expect(found.contains { $0.contains("timed.on_abandoned must be one of emit, drop, not 'emitt'; did you mean 'emit'?") })
        #expect(found.contains { $0.contains("timed.on_orphan_stop must be one of pass, reject, not 'keep'") })
        #expect(found.contains { $0.contains("timed.max_open must be between 1 and") })
        #expect(found.contains { $0.contains("timed.expire_after must be longer than 0") })
        #expect(found.contains { $0.contains("timed.lateness must be a duration") })
        #expect(found.contains { $0.contains("timed.marker must be a field name or a dotted path") })
        #expect(found.allSatisfy { $0.hasPrefix("p.yaml:3:") })
    }

    @Test func theStageIsRegisteredUnderTimed() {
        #expect(StageRegistry.keys.contains("timed"))
        #expect(errors("timd: {}").first?.contains("did you mean 'timed'?") == true)
    }

    @Test func theExamplePipelineRunsTheTimedStageWithItsDefaults() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let configuration = try PipelineConfiguration.load(path: root + "/pipelines/timed.yaml")
        let stage = try #require(configuration.stages.first as? TimedEventPairing)
        #expect(configuration.stages.count == 1)
        #expect(stage.settings.expireAfter == .seconds(1800))
        #expect(configuration.destinations.map(\.type.name) == ["ndjson"])
    }
}
