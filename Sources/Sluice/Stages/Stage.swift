/// A step between parsing and fan-out: one event in, zero or more out.
///
/// A stage is a mutating value that keeps its own state (open timers, sessions)
/// and is driven by event time only, never the wall clock. `finish` is the
/// end-of-input hook: whatever the stage still holds is emitted or accounted
/// for there, with a reason, never silently lost (swift-nio's `decodeLast`).
public protocol Stage {
    /// The stage's key in the pipeline file (`timed`, `privacy`); rejects name it.
    var name: String { get }
    mutating func process(_ event: consuming Event, into output: inout StageOutput)
    mutating func finish(into output: inout StageOutput)
    /// `finish` a step at a time: lets out about `limit` of what the stage
    /// holds (in `finish`'s order) and returns true once nothing is left. The
    /// runner calls it until then, handing each step on before the next, so a
    /// stage holding a million timers never has them all parsed at once.
    /// Default: `finish`, all in one step.
    mutating func finish(into output: inout StageOutput, limit: Int) -> Bool
    /// Event time has reached `time` with no event at it (`sluice run --watermark-end`):
    /// the stage lets out what an event at `time` would have made due (a timer
    /// expired by then) and moves its clock there, so shards of one stream end
    /// alike. A `time` behind the stage's clock changes nothing. Default: nothing.
    mutating func advance(to time: EventTime, into output: inout StageOutput)
    /// What the stage counted (`completed`, `abandoned_expired`, ...), for `--stats`; names are snake_case.
    var counters: [(name: String, value: Int)] { get }
    /// Counters that need a nested shape in `--stats` (per event, per kind), after the flat ones.
    var counterGroups: [CounterGroup] { get }
    /// What `sluice validate` reports about this stage's settings given the
    /// destinations (the tracking plan checks its events against them); default none.
    func lint(destinations: [DestinationSettings]) -> [LintDiagnostic]
    /// Called once before the first event with the pipeline's destinations, so a
    /// stage can mark events "not for these" (`Event.withheld`) by index; default nothing.
    mutating func prepare(destinations: [DestinationDescriptor])
    /// How late (in event time) a message may arrive for the stage to still
    /// place it (its `lateness` setting); nil (the default) when the order of
    /// events does not matter to it. A merge of several inputs puts lines in
    /// order over the largest of these (`--reorder-window`'s default).
    var toleratedLateness: Duration? { get }
    /// Whether the stage finds and scrubs personal data (`privacy`): rejected
    /// lines are then scrubbed too, and `rejects: {raw: keep}` is worth a warning; default false.
    var scrubsPersonalData: Bool { get }
    /// What scrubs personal data out of text taken from events before it is
    /// reported (the `privacy` stage: its detectors and patterns); default nil.
    var reportedTextScrubber: (any TextScrubber)? { get }
    /// Called once, when the pipeline file is read, with every stage's
    /// `reportedTextScrubber`, for a stage that reports text taken from events
    /// (the `plan` stage's unplanned names); default nothing.
    mutating func scrubReportedText(with scrubbers: [any TextScrubber])
    /// Called once per run (unless `rejects: {raw: keep}`): what scrubs
    /// rejected lines before they are written, kept by the stage to report
    /// what it counted; default nil.
    mutating func makeRejectScrubber() -> (any RejectScrubber)?
}

extension Stage {
    public var counters: [(name: String, value: Int)] { [] }
    public var counterGroups: [CounterGroup] { [] }
    public func lint(destinations: [DestinationSettings]) -> [LintDiagnostic] { [] }
    public mutating func prepare(destinations: [DestinationDescriptor]) {}
    public var scrubsPersonalData: Bool { false }
    public var reportedTextScrubber: (any TextScrubber)? { nil }
    public mutating func scrubReportedText(with scrubbers: [any TextScrubber]) {}
    public mutating func makeRejectScrubber() -> (any RejectScrubber)? { nil }
    public mutating func advance(to time: EventTime, into output: inout StageOutput) {}
    public var toleratedLateness: Duration? { nil }
    public mutating func finish(into output: inout StageOutput, limit: Int) -> Bool {
        finish(into: &output)
        return true
    }
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
