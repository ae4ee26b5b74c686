/// A message of the tracking plan as one destination will get it: what
/// `Destination.lint` reads to predict, before any event flows, what the
/// provider would refuse, leave out or rename.
public struct PlannedMessage: Sendable {
    /// The planned event, screen or identify, with its properties and their types.
    public var plan: MessagePlan
    /// The name the destination gets: the planned name after the destination's `rename:`.
    public var deliveredName: String
    /// Whether the destination's `rename:` has an entry for this name.
    public var isRenamed: Bool

    public init(plan: MessagePlan, deliveredName: String, isRenamed: Bool) {
        self.plan = plan
        self.deliveredName = deliveredName
        self.isRenamed = isRenamed
    }

    public var type: MessageType { plan.type }
    public var name: String { plan.name }
    public var properties: [PlannedProperty] { plan.properties }
}

/// One thing a destination predicts about a planned message.
public struct LintFinding: Sendable, Equatable {
    public enum Severity: String, Sendable, Comparable {
        /// Said for information (what `{shard}` becomes in a run without
        /// `--shard`): `sluice validate` prints it and exits 0, even with `--strict`.
        case note
        /// The message or a property would arrive changed, or not at all by the
        /// destination's own rule (counted, not rejected): `sluice validate` prints it and exits 0.
        case warning
        /// The destination would refuse the message (it would go to the rejects): exit 78.
        case error

        private var rank: Int { self == .note ? 0 : self == .warning ? 1 : 2 }

        public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
    }

    public var severity: Severity
    /// The property it is about (its location is reported), or nil for the message itself.
    public var property: String?
    public var message: String

    public init(_ severity: Severity, property: String? = nil, _ message: String) {
        self.severity = severity
        self.property = property
        self.message = message
    }
}
