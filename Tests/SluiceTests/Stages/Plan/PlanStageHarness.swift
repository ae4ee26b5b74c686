import Foundation
@testable import Sluice

/// Builds a `plan` stage from pipeline YAML (the real config path) and runs messages through it.
struct PlanHarness {
    enum Fate: Equatable {
        /// Passed on; the event as canonical JSON.
        case passed(String)
        case rejected(RejectReason, String)
    }

    var stage: TrackingPlan

    /// `plan` is the stage's settings as a YAML flow mapping; `privacy`, a privacy stage's after it.
    init(_ plan: String, privacy: String? = nil) throws {
        let after = privacy.map { "  - privacy: \($0)\n" } ?? ""
        let configuration = try PipelineConfiguration.load(
            yaml: "version: 1\nstages:\n  - plan: \(plan)\n\(after)destinations:\n  a: {type: ndjson}\n", file: "p.yaml")
        stage = configuration.stages[0] as! TrackingPlan
    }

    mutating func run(_ json: String) throws -> Fate {
        let event = try Array(json.utf8).withUnsafeBufferPointer { Event.decode($0, origin: Origin(source: 0, line: 1)) }.get()
        var output = StageOutput()
        stage.process(event, into: &output)
        if let passed = output.events.first {
            return .passed(String(decoding: passed.document.canonicalJSON, as: UTF8.self))
        }
        guard case let .rejected(_, rejection)? = output.settled.first else { fatalError("the plan stage neither passed nor rejected") }
        return .rejected(rejection.reason, rejection.detail)
    }

    func counter(_ name: String) -> Int? { stage.counters.first { $0.name == name }?.value }

    func group(_ path: String...) -> [(name: String, value: Int)]? {
        var groups = stage.counterGroups
        var found: CounterGroup?
        for name in path {
            found = groups.first { $0.name == name }
            groups = found?.groups ?? []
        }
        return found?.counters
    }
}

/// A message with the usual fields and the given type-specific JSON members.
func message(_ members: String, type: String = "track") -> String {
    #"{"type":"\#(type)","anonymousId":"d1","messageId":"m1","timestamp":"2026-11-20T09:00:00Z",\#(members)}"#
}

/// The repository root, from this file's path (for `pipelines/`).
let repositoryRootForUnitTests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
