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
