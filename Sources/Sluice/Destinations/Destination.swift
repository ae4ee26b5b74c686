import Yams

/// A provider adapter: turns an event into that provider's import records, or
/// refuses it with a reason. No I/O: the runner owns files, the adapter owns
/// the provider's rules.
public protocol Destination {
    /// Appends the records for `event` to `out`, each ending in `\n`.
    mutating func encode(_ event: Event, into out: inout [UInt8]) -> EncodeOutcome
}

/// What a destination made of an event.
public enum EncodeOutcome: Equatable {
    /// This many records were appended (a timed event may become two).
    case records(Int)
    /// The provider would not accept it; the event goes to the rejects for this destination.
    case refused(Rejection)
}

/// How a destination type is read from the pipeline file: its `type:` name,
/// the keys it takes beyond the common ones, its default rotation, and a
/// function that builds the configured adapter.
public struct DestinationType {
    public let name: String
    public let extraKeys: [String]
    public let defaultRotation: RotationPolicy
    public let make: (_ name: String, _ options: [String: Node], inout ConfigReader) -> (any Destination)?

    public init(name: String, extraKeys: [String] = [], defaultRotation: RotationPolicy = RotationPolicy(),
                make: @escaping (_ name: String, _ options: [String: Node], inout ConfigReader) -> (any Destination)?) {
        self.name = name
        self.extraKeys = extraKeys
        self.defaultRotation = defaultRotation
        self.make = make
    }
}

/// Every destination type Sluice knows; a new provider is one folder and one line here.
public enum DestinationRegistry {
    public static let types: [DestinationType] = [
        NDJSONDestination.type,
    ]

    public static func type(named name: String) -> DestinationType? {
        types.first { $0.name == name }
    }
}
