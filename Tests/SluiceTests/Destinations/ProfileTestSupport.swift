import Testing
@testable import Sluice
@testable import SluiceJSON

/// A destination built from pipeline YAML (the real config path), given
/// identify, group and alias messages through `encodeProfile` and other events
/// through `encode`, the same adapter for both, as the fan-out does.
struct ProfileHarness {
    var events: DestinationHarness
    /// The destination's side outputs, in its type's order.
    let sideOutputs: [SideOutputSettings]

    init(_ yaml: String) throws {
        let configuration = try PipelineConfiguration.load(yaml: "version: 1\ndestinations:\n  d: " + yaml + "\n", file: "test.yaml")
        events = DestinationHarness(destination: configuration.destinations[0].destination)
        sideOutputs = configuration.destinations[0].sideOutputs
    }

    /// What one message made: the outcome, the records for the events' file set, and each side output's records.
    struct Made {
        var outcome: ProfileOutcome
        var records: [String]
        var sides: [String: [String]]
        var weights: [String: Int]
    }

    mutating func profile(_ json: String) throws -> Made {
        let event = try DestinationHarness.event(json)
        #expect(events.destination.profileTypes.contains(event.type))
        var context = EncodingContext()
        var out = ByteBuffer()
        var side = SideRecords(count: sideOutputs.count)
        let outcome = events.destination.encodeProfile(event, context: &context, into: &out, side: &side)
        func lines(_ buffer: ByteBuffer) -> [String] {
            buffer.array.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
        }
        var sides: [String: [String]] = [:]
        var weights: [String: Int] = [:]
        for (index, output) in sideOutputs.enumerated() {
            sides[output.kind.name] = lines(side.buffers[index])
            weights[output.kind.name] = side.weights[index]
            #expect(side.counts[index] == sides[output.kind.name]!.count)
        }
        return Made(outcome: outcome, records: lines(out), sides: sides, weights: weights)
    }

    mutating func encode(_ json: String) throws -> Result<String, Rejection> { try events.encode(json) }

    func change(_ name: String) -> Int { events.change(name) }
}
