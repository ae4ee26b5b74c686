import Foundation
@testable import Sluice
import Testing

/// Builds `privacy` stages from YAML and runs messages through them.
enum PrivacyCase {
    /// A key for tests that need one: 32 bytes.
    static let key = "0123456789abcdef0123456789abcdef"
    static let environment: @Sendable (String) -> String? = { $0 == "SLUICE_HMAC_KEY" || $0 == "TEST_KEY" ? key : nil }

    /// A privacy stage configured by the YAML text of its value (`{ip: false}`), prepared for `destinations`.
    static func stage(_ yaml: String = "{}", destinations: [DestinationDescriptor] = []) throws -> PrivacyProtection {
        let configuration = try PipelineConfiguration.load(yaml: """
            version: 1
            stages: [{privacy: \(yaml)}]
            destinations: {archive: {type: ndjson}}
            """, file: "/tmp/test.yaml", environment: environment)
        var stage = try #require(configuration.stages.first as? PrivacyProtection)
        stage.prepare(destinations: destinations)
        return stage
    }

    /// The configuration errors of a privacy stage's YAML value.
    static func errors(_ yaml: String, environment: @escaping @Sendable (String) -> String? = environment) -> [String] {
        do {
            _ = try PipelineConfiguration.load(yaml: """
                version: 1
                stages: [{privacy: \(yaml)}]
                destinations: {archive: {type: ndjson}}
                """, file: "/tmp/test.yaml", environment: environment)
            return []
        } catch {
            return error.diagnostics.map(\.message)
        }
    }

    /// A track message with `members` (raw JSON members) after the common ones.
    static func track(_ members: String = "", event: String = "tap") -> String {
        #"{"type":"track","event":"\#(event)","anonymousId":"d1","timestamp":"2026-11-20T08:00:00Z""#
            + (members.isEmpty ? "" : "," + members) + "}"
    }

    /// Runs one line through `stage`; the written line, or nil if it was dropped.
    static func apply(_ line: String, _ stage: inout PrivacyProtection) -> String? {
        StageCase.run([line], through: &stage).lines.first
    }

    /// The written event as a Foundation object, to compare fields.
    static func object(_ line: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
    }

    static func counter(_ stage: PrivacyProtection, _ name: String) -> Int {
        stage.counters.first { $0.name == name }?.value ?? -1
    }
}
