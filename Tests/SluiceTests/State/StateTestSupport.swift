@testable import Sluice
import Testing

/// Runs stages the way the runner does (each stage's output into the next),
/// logs every outcome in order, and saves and restores them through the real
/// state format, to check that a run cut anywhere and resumed from its state
/// behaves as the run that was never cut.
struct StagePipeline {
    var stages: [any Stage]
    /// One entry per outcome, in order: `emit S0L12 {...}`, `merged S0L3`, `dropped S1L4 duplicate`, `rejected S0L9 orphan_stop`.
    private(set) var log: [String] = []

    init(_ stages: [any Stage]) { self.stages = stages }

    mutating func feed(_ events: some Sequence<Event>) {
        for event in events { run(0, event) }
    }

    mutating func finish() {
        for index in stages.indices {
            var output = StageOutput()
            stages[index].finish(into: &output)
            settle(output, index)
        }
    }

    private mutating func run(_ index: Int, _ event: Event) {
        guard index < stages.count else {
            log.append("emit \(Self.origin(event.origin)) " + String(decoding: event.document.canonicalJSON, as: UTF8.self))
            return
        }
        var output = StageOutput()
        stages[index].process(event, into: &output)
        settle(output, index)
    }

    private mutating func settle(_ output: StageOutput, _ index: Int) {
        for settled in output.settled {
            switch settled {
            case .merged(let origin): log.append("merged \(Self.origin(origin))")
            case let .dropped(origin, reason): log.append("dropped \(Self.origin(origin)) \(reason.rawValue)")
            case let .rejected(event, rejection): log.append("rejected \(Self.origin(event.origin)) \(rejection.reason.rawValue)")
            }
        }
        for event in output.events { run(index + 1, event) }
    }

    private static func origin(_ origin: Origin) -> String { "S\(origin.source)L\(origin.line)" }

    /// Lines the stages hold.
    var heldLines: Int { stages.reduce(0) { $0 + (($1 as? any StatefulStage)?.heldLines ?? 0) } }

    /// The state file's bytes for these stages.
    func save(sourceNames: [String] = StateCase.sourceNames, latest: EventTime = .epoch) -> [UInt8] {
        let writer = StateWriter(sourceNames: sourceNames)
        StateFormat.encode(stages: stages, latestTime: latest, to: writer)
        return writer.bytes
    }

    /// Restores fresh stages from a state file's bytes.
    @discardableResult
    mutating func restore(_ bytes: [UInt8], sourceBase: Int32 = 0, path: String = "test.state") throws(StateError) -> StateFormat.Header {
        var stages = self.stages
        var outcome: Result<StateFormat.Header, StateError>!
        bytes.withUnsafeBytes { raw in
            do throws(StateError) {
                outcome = .success(try StateFormat.decode(raw, path: path, into: &stages, sourceBase: sourceBase))
            } catch {
                outcome = .failure(error)
            }
        }
        self.stages = stages
        return try outcome.get()
    }
}

enum StateCase {
    /// The two inputs of a run that is cut in two: lines before the cut come from source 0, after it from source 1.
    static let sourceNames = ["hour-08.ndjson", "hour-09.ndjson"]

    /// The stages of a pipeline whose `stages:` list is `yaml` (flow style).
    static func stages(_ yaml: String) -> [any Stage] {
        do {
            return try PipelineConfiguration.load(yaml: "version: 1\nstages: \(yaml)\ndestinations: {archive: {type: ndjson}}\n",
                                                  file: "test.yaml").stages
        } catch {
            fatalError("bad test stages: \(error)")
        }
    }

    /// A generated stream, decoded (the broken lines left out); lines from `cut` on come from source 1.
    static func events(count: Int, seed: UInt64, devices: Int = 0, duplicates: Double = 0.02, late: Double = 0.03,
                       cut: Int = Int.max) -> [Event] {
        var options = GeneratorOptions()
        options.events = count
        options.seed = seed
        options.devices = devices
        options.duplicates = duplicates
        options.late = late
        var generator = EventGenerator(options: options)
        var bytes: [UInt8] = []
        generator.run { bytes.append(contentsOf: $0) }
        var events: [Event] = []
        for (index, line) in bytes.split(separator: 0x0A).enumerated() {
            let origin = Origin(source: index < cut ? 0 : 1, line: Int64(index + 1))
            if case .success(let event) = Array(line).withUnsafeBufferPointer({ Event.decode($0, origin: origin) }) {
                events.append(event)
            }
        }
        return events
    }

    /// Where two logs part, for a failure message.
    static func firstDifference(_ a: [String], _ b: [String]) -> String {
        guard let index = zip(a, b).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset else {
            return a.count == b.count ? "none" : "lengths \(a.count) and \(b.count)"
        }
        return "entry \(index):\n  \(a[index])\n  \(b[index])"
    }

    /// The log of `events` through fresh `yaml` stages in one go, and the log of
    /// the same run cut before event `cut`: saved, restored into fresh stages,
    /// and resumed. Also checks the state survives a second save unchanged.
    static func uncutAndCut(_ yaml: String, _ events: [Event], cut: Int) throws -> (uncut: [String], cut: [String]) {
        var uncut = StagePipeline(stages(yaml))
        uncut.feed(events)
        uncut.finish()

        var first = StagePipeline(stages(yaml))
        first.feed(events[..<cut])
        let saved = first.save()
        var second = StagePipeline(stages(yaml))
        let header = try second.restore(saved)
        #expect(header.carriedLines == first.heldLines)
        #expect(second.heldLines == first.heldLines)
        // Saved again, restored again: the same bytes (ids renumbered once at most).
        let again = second.save()
        var third = StagePipeline(stages(yaml))
        try third.restore(again)
        #expect(third.save() == again, "a restored state saves to the same bytes")
        second.feed(events[cut...])
        second.finish()
        return (uncut.log, first.log + second.log)
    }
}
