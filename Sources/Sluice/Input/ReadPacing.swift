/// What passes between the inputs' reads and the run that drives them.
///
/// A read never calls out to the run. Where the run has something to do
/// before a read goes on (hand buffered output on before a line buffer is
/// refilled; serve signals and timers before a read(2), and for a pipe or a
/// terminal wait for its data together with the signals), the read returns
/// at once with no line (`InputLine.paused`, `InputRecord.paused`,
/// `ReadPacing.paused` from a `ByteSource`) and says here what is due. The
/// run does it and asks again; the read goes on where it stood, so the lines
/// are the same however often it pauses. The run says here when reading must
/// stop.
///
/// One run's inputs share one (they are all read on its thread); a reader
/// without one (a test's, `sluice shard-of`'s) never pauses.
final class ReadPacing {
    /// What a read that paused needs before it goes on.
    enum Due: Equatable {
        /// A line buffer is about to be refilled: buffered output can be handed on first.
        case refill
        /// A read(2) of `fd` is next. `mayBlock`: it may wait for data (a pipe,
        /// a terminal, a FIFO without a writer yet), so the wait is the run's,
        /// in poll(2) with its signals and timers; a regular file never waits.
        case read(fd: Int32, mayBlock: Bool)
    }

    /// What a `ByteSource`'s read returns when it paused (it read nothing).
    static let paused = -1

    /// What the last read that paused needs.
    @exclusivity(unchecked) var due = Due.refill
    /// A shutdown was asked for (SIGTERM, SIGINT): a read that may be stopped
    /// throws `InputStopped` when it goes on, and so does every later one.
    @exclusivity(unchecked) var stopRequested = false
    /// Reading must stop (a shutdown, or stdout's reader went away): no input is begun any more.
    @exclusivity(unchecked) var readingStopped = false

    init() {}
}

/// Reading stops here: the run was asked to shut down. Not an input error:
/// what was read so far is processed as if the input had ended.
struct InputStopped: Error {}
