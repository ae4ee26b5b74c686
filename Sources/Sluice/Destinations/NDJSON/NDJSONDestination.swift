import SluiceJSON

/// The event after all stages, as canonical JSON: the archive format, and
/// what `--stdout` pipes into `jq`.
public struct NDJSONDestination: Destination {
    public static let type = DestinationType(name: "ndjson") { _, _, _ in NDJSONDestination() }

    public var supportedTypes: MessageTypes { .all }

    public init() {}

    public mutating func encode(_ event: Event, context: inout EncodingContext, into out: inout ByteBuffer) -> EncodeOutcome {
        event.document.write(to: &out)
        out.append(UInt8(ascii: "\n"))
        return .records(1)
    }
}
