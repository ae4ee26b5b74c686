// What some stages do besides taking events in and letting them out: each
// a protocol of its own, adopted by the stages that do it. The runner and
// the configuration ask a stage for one (`as? any EventTimeStage`) once, when
// a run or a pipeline file is set up, never per event.

/// A stage that keeps a clock of event time and holds events until it passes
/// (timers, sessions, a dedupe window): `sluice run --watermark-end` moves its
/// clock, a merge of several inputs waits for its lateness, and its end of
/// input may be let out a step at a time.
public protocol EventTimeStage: Stage {
    /// Event time has reached `time` with no event at it (`sluice run --watermark-end`):
    /// the stage lets out what an event at `time` would have made due (a timer
    /// expired by then) and moves its clock there, so shards of one stream end
    /// alike. A `time` behind the stage's clock changes nothing.
    mutating func advance(to time: EventTime, into output: inout StageOutput)
    /// How late (in event time) a message may arrive for the stage to still
    /// place it (its `lateness` setting); nil (the default) when the order of
    /// events does not matter to it. A merge of several inputs puts lines in
    /// order over the largest of these (`--reorder-window`'s default).
    var toleratedLateness: Duration? { get }
    /// `finish` a step at a time: lets out about `limit` of what the stage
    /// holds (in `finish`'s order) and returns true once nothing is left. The
    /// runner calls it until then, handing each step on before the next, so a
    /// stage holding a million timers never has them all parsed at once.
    /// Default: `finish`, all in one step.
    mutating func finish(into output: inout StageOutput, limit: Int) -> Bool
}

extension EventTimeStage {
    public var toleratedLateness: Duration? { nil }
    public mutating func finish(into output: inout StageOutput, limit: Int) -> Bool {
        finish(into: &output)
        return true
    }
}

/// A stage that finds and scrubs personal data (`privacy`): rejected lines
/// are then scrubbed too, and `rejects: {raw: keep}` is worth a warning.
public protocol PersonalDataStage: Stage {
    /// What scrubs personal data out of text taken from events before it is
    /// reported (its detectors and patterns); nil when it has none for text.
    var reportedTextScrubber: (any TextScrubber)? { get }
    /// Called once per run (unless `rejects: {raw: keep}`): what scrubs
    /// rejected lines before they are written, kept by the stage to report
    /// what it counted.
    mutating func makeRejectScrubber() -> any RejectScrubber
}

/// A stage that reports text taken from events (the `plan` stage's unplanned
/// names in the stats and metrics).
public protocol ReportedTextStage: Stage {
    /// Called once, when the pipeline file is read, with every
    /// `PersonalDataStage`'s `reportedTextScrubber`.
    mutating func scrubReportedText(with scrubbers: [any TextScrubber])
}

/// A stage whose settings are checked against the destinations by `sluice
/// validate` (the tracking plan checks its events against them).
public protocol DestinationLintingStage: Stage {
    func lint(destinations: [DestinationSettings]) -> [LintDiagnostic]
}

/// A stage that marks events "not for these destinations" (`Event.withheld`,
/// by index: consent).
public protocol DestinationWithholdingStage: Stage {
    /// Called once before the first event with the pipeline's destinations.
    mutating func prepare(destinations: [DestinationDescriptor])
}

extension Array where Element == any Stage {
    /// Calls `body` with the stage at `index` as `capability` when it has it
    /// (`(any EventTimeStage).self`); returns whether it had it. The stage is
    /// out of the array during the call, so the call's mutations do not copy
    /// its storage (a stage may hold a million timers).
    @discardableResult
    mutating func mutate<Capability>(_ index: Int, as capability: Capability.Type,
                                     _ body: (inout Capability) throws -> Void) rethrows -> Bool {
        guard self[index] is Capability else { return false }
        var taken = remove(at: index) as! Capability
        defer { insert(taken as! any Stage, at: index) }
        try body(&taken)
        return true
    }
}
