@testable import Sluice
@testable import SluiceJSON

/// Builds a destination from pipeline YAML (the real config path) and encodes events with it.
struct DestinationHarness {
    var destination: any Destination

    init(destination: any Destination) { self.destination = destination }

    init(_ yaml: String) throws {
        let configuration = try PipelineConfiguration.load(yaml: "version: 1\ndestinations:\n  d: " + yaml + "\n", file: "test.yaml")
        destination = configuration.destinations[0].destination
    }

    static func event(_ json: String) throws -> Event {
        try Array(json.utf8).withUnsafeBufferPointer { Event.decode($0, origin: Origin(source: 0, line: 1)) }.get()
    }

    /// The records for one event, without the trailing newline, or the refusal.
    mutating func encode(_ json: String) throws -> Result<String, Rejection> {
        var out: [UInt8] = []
        switch destination.encode(try DestinationHarness.event(json), into: &out) {
        case .records:
            return .success(String(decoding: out.dropLast(), as: UTF8.self))
        case .refused(let rejection):
            return .failure(rejection)
        }
    }

    func change(_ name: String) -> Int { destination.changes.first { $0.name == name }?.value ?? 0 }
}

/// A track message with the usual fields, for provider tests.
func trackJSON(event: String = "movie_tapped", properties: String = #"{"movie_id":5}"#,
               extra: String = "", userId: String? = "user-12345", anonymousId: String = "dev-000001-abcdef12") -> String {
    var fields = [#""type":"track""#, #""event":\#(quoted(event))"#, #""messageId":"m-1""#,
                  #""timestamp":"2026-11-20T08:00:07.269Z""#, #""anonymousId":\#(quoted(anonymousId))"#]
    if let userId { fields.append(#""userId":\#(quoted(userId))"#) }
    fields.append(#""context":{"os":{"name":"iOS","version":"17.1"},"device":{"model":"iPhone15,2","manufacturer":"Apple","appInstanceId":"5c7d2e1f9a8b4c3d2e1f0a9b8c7d6e5f"},"app":{"version":"3.2.1","build":"3210"},"ip":"203.0.113.7"}"#)
    fields.append(#""properties":\#(properties)"#)
    if !extra.isEmpty { fields.append(extra) }
    return "{" + fields.joined(separator: ",") + "}"
}

func quoted(_ text: String) -> String {
    var out: [UInt8] = []
    JSONString.appendQuoted(text, to: &out)
    return String(decoding: out, as: UTF8.self)
}
