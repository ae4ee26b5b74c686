import SluiceJSON

/// A provider adapter: turns an event into that provider's import records, or
/// refuses it with a reason. No I/O: the runner owns files, the adapter owns
/// the provider's rules.
///
/// What a provider lacks is filled in by the shared helpers in `Encoding/`
/// (session data as properties, screens named by a template); each adapter
/// says in its own docs which it uses.
public protocol Destination {
    /// The message types the provider takes; others are not routed to it (counted `unsupported_type`).
    var supportedTypes: MessageTypes { get }
    /// Why this destination does not take the event at all (not a refusal: it
    /// is not routed there), or nil. The default checks `supportedTypes`.
    func skipReason(for event: Event) -> String?
    /// Appends the records for `event` to `out`, each ending in `\n`; a refusal
    /// appends nothing. `context` holds what other destinations already read of
    /// the same event.
    mutating func encode(_ event: Event, context: inout EncodingContext, into out: inout ByteBuffer) -> EncodeOutcome
    /// What the adapter changed to fit the provider, by kind (`string_cut`, `name_normalized`), for `--stats`.
    var changes: [(name: String, value: Int)] { get }
    /// What this provider would predictably refuse, leave out or rename in a
    /// planned message routed here, for `sluice validate` (default: nothing).
    func lint(_ message: PlannedMessage) -> [LintFinding]
    /// The message types `encodeProfile` takes instead of `encode` (identify,
    /// group, alias: profiles and identities, see `SideOutputs.swift`); default
    /// none. They are types `skipReason(for:)` turns away as events (not in
    /// `supportedTypes`): the fan-out asks for them only then.
    var profileTypes: MessageTypes { get }
    /// Encodes a message of one of `profileTypes`: records for the events'
    /// file set into `out`, records for the type's side outputs into `side`.
    mutating func encodeProfile(_ event: Event, context: inout EncodingContext, into out: inout ByteBuffer,
                                side: inout SideRecords) -> ProfileOutcome
    /// What the destination remembers of devices for their later events
    /// (`DeviceMemory`), kept across runs by `--state`, with the settings that
    /// decide what it means (a memory saved under others is not restored); nil
    /// for none (the default).
    var deviceMemory: (memory: DeviceMemory, signature: String)? { get }
}

extension Destination {
    /// Encodes one event on its own (tests, tools): a fresh context.
    public mutating func encode<Out: ByteSink>(_ event: Event, into out: inout Out) -> EncodeOutcome {
        var context = EncodingContext()
        var buffer = ByteBuffer()
        let outcome = encode(event, context: &context, into: &buffer)
        out.append(raw: buffer.bytes)
        return outcome
    }

    public func skipReason(for event: Event) -> String? {
        supportedTypes.contains(event.type) ? nil : "unsupported_type"
    }

    /// `skipReason(for:)` through a mutating access: on an element of an array
    /// of destinations, the adapter is opened where it is instead of copied (a
    /// copy retains and releases its storage, for every event and destination).
    @inline(__always)
    mutating func skipReasonInPlace(for event: Event) -> String? { skipReason(for: event) }
    public var changes: [(name: String, value: Int)] { [] }
    public func lint(_ message: PlannedMessage) -> [LintFinding] { [] }
    public var profileTypes: MessageTypes { [] }
    public mutating func encodeProfile(_ event: Event, context: inout EncodingContext, into out: inout ByteBuffer,
                                       side: inout SideRecords) -> ProfileOutcome {
        .notTaken("unsupported_type")
    }
    public var deviceMemory: (memory: DeviceMemory, signature: String)? { nil }
}

/// A set of message types as bits: asked once per event per destination, so no hashing.
public struct MessageTypes: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public init(_ types: MessageType...) {
        self.init(rawValue: types.reduce(0) { $0 | MessageTypes.bit($1) })
    }

    public static let all = MessageTypes(rawValue: MessageType.allCases.reduce(0) { $0 | bit($1) })

    @inline(__always)
    public func contains(_ type: MessageType) -> Bool { rawValue & MessageTypes.bit(type) != 0 }

    @inline(__always)
    static func bit(_ type: MessageType) -> UInt8 {
        switch type {
        case .track: return 1
        case .screen: return 2
        case .page: return 4
        case .identify: return 8
        case .group: return 16
        case .alias: return 32
        case .session: return 64
        }
    }
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
public struct DestinationType: Sendable {
    public let name: String
    public let extraKeys: [String]
    public let defaultRotation: RotationPolicy
    /// The reasons its adapter refuses events with (declared in its folder).
    public let rejectReasons: [RejectReason]
    /// The consent category a destination of this type is mapped to unless its
    /// `consent_category` says otherwise (Segment's category names: `Analytics`,
    /// `Advertising`, ...); nil: not subject to category preferences.
    public let defaultConsentCategory: String?
    /// The file sets its adapter writes besides the events (`SideOutputKind`), in the order of `SideRecords`.
    public let sideOutputs: [SideOutputKind]
    /// Builds the adapter from the destination's name and its keys beyond the
    /// common ones, as written (reporting errors with locations).
    public let make: @Sendable (_ name: String, _ options: [String: ConfigValue], inout ConfigReader) -> (any Destination)?
    /// What `sluice send` can do for it (its `send:` keys and regions); nil: a `send:` block is refused.
    public let send: SendSupport?
    /// How `sluice send` delivers its files (the provider's APIs, from its folder); set exactly when `send` is.
    public let delivery: ProviderDelivery?

    public init(name: String, extraKeys: [String] = [], defaultRotation: RotationPolicy = RotationPolicy(),
                rejectReasons: [RejectReason] = [], defaultConsentCategory: String? = nil, sideOutputs: [SideOutputKind] = [],
                send: SendSupport? = nil, delivery: ProviderDelivery? = nil,
                make: @escaping @Sendable (_ name: String, _ options: [String: ConfigValue], inout ConfigReader) -> (any Destination)?) {
        self.name = name
        self.extraKeys = extraKeys
        self.defaultRotation = defaultRotation
        self.rejectReasons = rejectReasons
        self.defaultConsentCategory = defaultConsentCategory
        self.sideOutputs = sideOutputs
        self.send = send
        self.delivery = delivery
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

    /// The types whose events `sluice send --validate` posts to a validation endpoint.
    public static var validating: [String] {
        types.filter { $0.delivery?.validates == true }.map(\.name)
    }
}
