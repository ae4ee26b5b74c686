/// Something told how a run is going, at its own interval while input is read
/// (and while the run waits for input): the metrics file, the progress line.
///
/// Called on the run's main thread only, between reads, never in the middle
/// of an event, so the summary it gets is consistent.
public protocol RunReporter: AnyObject {
    /// How often `report` is called while the run goes on.
    var interval: Duration { get }
    /// The stats so far. A thrown error is logged (once per reporter); the run goes on.
    func report(_ summary: RunSummary) throws
}
