import Yams

/// A provider adapter: turns an event into that provider's import records, or
/// refuses it with a reason. No I/O: the runner owns files, the adapter owns
/// the provider's rules.
public protocol Destination {
    /// What the provider has natively; what it lacks is handled by the shared fallbacks.
    var capabilities: DestinationCapabilities { get }
    /// The message types the provider takes; others are not routed to it (counted `unsupported_type`).
    var supportedTypes: Set<MessageType> { get }
    /// Why this destination does not take the event at all (not a refusal: it
    /// is not routed there), or nil. The default checks `supportedTypes`.
    func skipReason(for event: Event) -> String?
    /// Appends the records for `event` to `out`, each ending in `\n`; a refusal appends nothing.
    mutating func encode(_ event: Event, into out: inout [UInt8]) -> EncodeOutcome
    /// What the adapter changed to fit the provider, by kind (`string_cut`, `name_normalized`), for `--stats`.
    var changes: [(name: String, value: Int)] { get }
    /// What this provider would predictably refuse, leave out or rename in a
    /// planned message routed here, for `sluice validate` (default: nothing).
    func lint(_ message: PlannedMessage) -> [LintFinding]
}

extension Destination {
    public var capabilities: DestinationCapabilities { [] }
    public var supportedTypes: Set<MessageType> { allMessageTypes }
    public func skipReason(for event: Event) -> String? {
        supportedTypes.contains(event.type) ? nil : "unsupported_type"
    }
    public var changes: [(name: String, value: Int)] { [] }
    public func lint(_ message: PlannedMessage) -> [LintFinding] { [] }
}

private let allMessageTypes = Set(MessageType.allCases)

/// What a provider models natively.
public struct DestinationCapabilities: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// One event with a duration (Mixpanel's `$duration`).
    public static let timedEvents = DestinationCapabilities(rawValue: 1)
    /// A session id field of its own (Amplitude's `session_id`, GA4's session params).
    public static let sessions = DestinationCapabilities(rawValue: 2)
    /// User properties set from `identify` traits.
    public static let userProperties = DestinationCapabilities(rawValue: 4)
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
        MixpanelDestination.type,
        AmplitudeDestination.type,
        GA4Destination.type,
        AdjustDestination.type,
        SegmentDestination.type,
    ]

    public static func type(named name: String) -> DestinationType? {
        types.first { $0.name == name }
    }
}
