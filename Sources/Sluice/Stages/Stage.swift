/// A step between parsing and fan-out: one event in, zero or more out.
///
/// A stage is a mutating value that keeps its own state (open timers, sessions)
/// and is driven by event time only, never the wall clock. `finish` is the
/// end-of-input hook: whatever the stage still holds is emitted or accounted
/// for there, with a reason, never silently lost (swift-nio's `decodeLast`).
///
/// These are what every stage does. What only some do is a protocol of its
/// own that those stages adopt (`StageCapabilities.swift`): keeping a clock of
/// event time (`EventTimeStage`), finding personal data (`PersonalDataStage`),
/// reporting text taken from events (`ReportedTextStage`), looking at the
/// destinations (`DestinationLintingStage`, `DestinationWithholdingStage`), and
/// keeping state across runs (`StatefulStage`). The runner and the
/// configuration ask for them once, when a run or a pipeline file is set up.
public protocol Stage {
    /// The stage's key in the pipeline file (`timed`, `privacy`); rejects name it.
    var name: String { get }
    mutating func process(_ event: consuming Event, into output: inout StageOutput)
    mutating func finish(into output: inout StageOutput)
    /// What the stage counted (`completed`, `abandoned_expired`, ...), for `--stats`; names are snake_case.
    var counters: [(name: String, value: Int)] { get }
    /// Counters that need a nested shape in `--stats` (per event, per kind), after the flat ones.
    var counterGroups: [CounterGroup] { get }
}

extension Stage {
    public var counters: [(name: String, value: Int)] { [] }
    public var counterGroups: [CounterGroup] { [] }
}

/// A named set of counters, possibly nested: one JSON object in `--stats`
/// (`"violations_by_kind": {"wrong_type": 3}`, `"events": {"movie_tapped": {...}}`).
public struct CounterGroup: Sendable {
    public var name: String
    public var counters: [(name: String, value: Int)]
    public var groups: [CounterGroup]

    public init(name: String, counters: [(name: String, value: Int)], groups: [CounterGroup] = []) {
        self.name = name
        self.counters = counters
        self.groups = groups
    }
}

/// What a stage did with its input, in order: events passed on, and the lines
/// it settled (merged, dropped, rejected), so the runner's accounting stays exact.
public struct StageOutput {
    public enum Settled {
        case merged(Origin)
        case dropped(Origin, DropReason)
        case rejected(Event, Rejection)
    }

    public internal(set) var events: [Event] = []
    public internal(set) var settled: [Settled] = []

    public init() {}

    public mutating func emit(_ event: consuming Event) { events.append(event) }
    /// The event's line was folded into another event (a timed start into its stop).
    public mutating func merge(_ origin: Origin) { settled.append(.merged(origin)) }
    public mutating func drop(_ origin: Origin, _ reason: DropReason) { settled.append(.dropped(origin, reason)) }
    public mutating func reject(_ event: Event, _ rejection: Rejection) { settled.append(.rejected(event, rejection)) }

    mutating func removeAll() {
        if !events.isEmpty { events.removeAll(keepingCapacity: true) }
        if !settled.isEmpty { settled.removeAll(keepingCapacity: true) }
    }
}

/// How a stage is read from the pipeline file: its key, the reasons it
/// rejects and drops events with, and a function from its value in the
/// pipeline file to a configured stage (reporting errors with locations).
public struct StageType: Sendable {
    public let key: String
    /// The reasons the stage rejects events with (declared in its folder).
    public let rejectReasons: [RejectReason]
    /// The reasons the stage drops events with (declared in its folder).
    public let dropReasons: [DropReason]
    /// Its counters that are levels, not counts (a high-water mark, devices
    /// tracked now): `--metrics` types them `gauge`, each under a name of its own.
    public let gauges: [StageGauge]
    public let make: @Sendable (ConfigValue, inout ConfigReader) -> (any Stage)?

    public init(key: String, rejectReasons: [RejectReason] = [], dropReasons: [DropReason] = [], gauges: [StageGauge] = [],
                make: @escaping @Sendable (ConfigValue, inout ConfigReader) -> (any Stage)?) {
        self.key = key
        self.gauges = gauges
        self.rejectReasons = rejectReasons
        self.dropReasons = dropReasons
        self.make = make
    }
}

/// A stage counter that is a level: its name in `--stats`, and its metric in
/// `--metrics` (`sluice_stage_` + `metric`, the unit last: `_bytes`, `_devices`).
public struct StageGauge: Sendable {
    public let counter: String
    public let metric: String
    public let help: String

    public init(counter: String, metric: String, help: String) {
        self.counter = counter
        self.metric = metric
        self.help = help
    }
}

/// Every stage Sluice knows; a new stage is one folder and one line here.
public enum StageRegistry {
    public static let types: [StageType] = [
        MessageDeduplication.type,
        TimedEventPairing.type,
        SessionTracking.type,
        PrivacyProtection.type,
        TrackingPlan.type,
    ]

    public static var keys: [String] { types.map(\.key) }

    public static func type(key: String) -> StageType? {
        types.first { $0.key == key }
    }
}
