/// One destination as the fan-out sees it: which events it takes (its
/// routing rules, a stage's withholding by its index), how it renames them,
/// its adapter, its output and side outputs, and what it did with events.
struct DestinationLane {
    var destination: any Destination
    /// The destination's `profileTypes`, read once.
    let profileTypes: MessageTypes
    var routes: RoutingRules
    /// `rename:`, event name to new name.
    let rename: [[UInt8]: String]
    /// The events' output (`OutputSet` keeps it too), and the same lent for every event's append.
    let output: DestinationOutput
    let lent: LentOutput
    /// The side outputs (`OutputSet.sides`), their kinds, and the records one message makes for them.
    let sides: [DestinationOutput]
    let sideKinds: [SideOutputKind]
    var sideRecords: SideRecords
    var counts: DestinationCounts
    /// Events it did not take, by reason (added to `counts` by `FanOut.destinationCounts`).
    var notTaken = ReasonTally()

    init(settings: DestinationSettings, output: DestinationOutput, sides: [DestinationOutput]) {
        destination = settings.destination
        profileTypes = settings.destination.profileTypes
        routes = RoutingRules(patterns: settings.events, destinationName: settings.name, destinationType: settings.type.name)
        rename = settings.rename
        self.output = output
        lent = LentOutput(output)
        self.sides = sides
        sideKinds = settings.sideOutputs.map(\.kind)
        sideRecords = SideRecords(count: settings.sideOutputs.count)
        counts = DestinationCounts(name: settings.name, type: settings.type.name)
        counts.outputs = settings.sideOutputs.map { OutputCounts(name: $0.kind.name) }
    }
}
