import Sluice
import SluiceJSON

/// The events every micro-benchmark runs over: 10,000 generated lines
/// (`sluice generate --seed 1`), parsed once, and the same events after the
/// `session` stage (what Amplitude and GA4 encoders see in a real pipeline).
final class Workload: @unchecked Sendable {
    static let shared = Workload(events: 10_000)

    let lines: [[UInt8]]
    let events: [Event]
    let sessionized: [Event]
    /// The documents with one member changed (the path a stage's edit takes through the writer).
    let edited: [JSONDocument]
    /// The events as the NDJSON the `ndjson` destination writes, for deflate.
    let ndjson: [UInt8]

    init(events count: Int) {
        var options = GeneratorOptions()
        options.events = count
        options.seed = 1
        var generator = EventGenerator(options: options)
        var text: [UInt8] = []
        generator.run { chunk in text.append(contentsOf: chunk) }
        lines = text.split(separator: UInt8(ascii: "\n")).map { Array($0) }
        events = lines.enumerated().compactMap { index, line in
            let result = line.withUnsafeBufferPointer { Event.decode($0, origin: Origin(source: 0, line: Int64(index + 1))) }
            return try? result.get()
        }
        edited = events.map { event in
            var document = event.document
            document.set(JSONPath("context.ip"), string: "203.0.113.0")
            return document
        }
        var session = Workload.stages("[{session: {}}]")[0]
        var output = StageOutput()
        for event in events { session.process(event, into: &output) }
        session.finish(into: &output)
        sessionized = output.events
        var out: [UInt8] = []
        for event in events {
            event.document.write(to: &out)
            out.append(UInt8(ascii: "\n"))
        }
        ndjson = out
    }

    /// Each stage alone, configured as in pipelines/bench.yaml.
    static let stagePipelines: [(name: String, stages: String)] = [
        ("dedupe", "[{dedupe: {}}]"),
        ("timed", "[{timed: {}}]"),
        ("session", "[{session: {}}]"),
        ("privacy", "[{privacy: {}}]"),
    ]

    static let destinationTypes = ["ndjson", "mixpanel", "amplitude", "ga4", "adjust", "segment"]

    /// Options a destination type cannot do without (Adjust's app and event tokens, as in pipelines/providers.yaml).
    static let requiredOptions = [
        "adjust": ", app_token: 4w565xzmb54d, tokens: {purchase_completed: f0ob4r, signed_out: abc123}",
    ]

    /// The configured stages of a `stages:` list (YAML flow text).
    static func stages(_ list: String) -> [any Stage] {
        let yaml = "version: 1\nstages: \(list)\ndestinations: {archive: {type: ndjson}}\n"
        do {
            return try PipelineConfiguration.load(yaml: yaml, file: "<benchmark>").stages
        } catch {
            fatalError("benchmark pipeline: \(error)")
        }
    }

    /// A destination adapter of `type` with its default options.
    static func destination(_ type: String) -> any Destination {
        let yaml = "version: 1\ndestinations: {bench: {type: \(type)\(requiredOptions[type] ?? "")}}\n"
        do {
            return try PipelineConfiguration.load(yaml: yaml, file: "<benchmark>").destinations[0].destination
        } catch {
            fatalError("benchmark pipeline: \(error)")
        }
    }
}
