/// A stage whose state outlives a run: with `sluice run --state FILE` the
/// runner saves it at the end of input (instead of calling `finish`) and
/// restores it before the next run reads its first line, so a timer started
/// in hour 1's log is stopped by hour 2's and sessions continue.
///
/// The runner calls these generically, never by stage name; each stage
/// encodes its own section of the file (`StateFile`) beside its code. A
/// stage's save followed by a restore into a fresh stage with the same
/// settings must behave exactly as if the run had never stopped: the same
/// output for the same following input, however the input is split.
public protocol StatefulStage: Stage {
    /// The settings that decide what the saved state *means*, as text in the
    /// pipeline file's syntax (`{marker: timed, correlate: [timerId], on_abandoned: emit}`).
    /// A state saved under other ones is refused (exit 65) rather than
    /// misread. Caps and durations are left out: they may change between runs.
    var stateSignature: String { get }

    /// Input lines the stage holds right now whose fate is not settled (open
    /// timer starts, stops waiting for their start). At the end of a run with
    /// `--state` they are counted `carried`; the next run counts them
    /// `carried_in` and then settles them like any other line.
    var heldLines: Int { get }

    /// Writes everything needed to go on where the stage stopped.
    func saveState(to writer: StateWriter)

    /// Reads what `saveState` wrote into a stage that has not processed
    /// anything yet; throws `StateError.corrupt` on anything that does not fit.
    mutating func restoreState(from reader: inout StateReader) throws(StateError)
}
