/// What runs before every read(2) of an input: the run's housekeeping
/// (signals, metrics, progress) and, for inputs that can block (pipes,
/// terminals, sockets), the wait for data, so a signal or a timer is served
/// promptly even while `tail -F` sends nothing.
protocol InputGate: AnyObject {
    /// Returns when `fd` is worth reading (data, end of input or an error to
    /// report); `mayBlock` is false for regular files, which never block.
    /// Throws `InputStopped` when the run must stop reading (SIGTERM, SIGINT).
    func awaitReadable(fd: Int32, mayBlock: Bool) throws
}

/// Reading stops here: the run was asked to shut down. Not an input error:
/// what was read so far is processed as if the input had ended.
struct InputStopped: Error {}

/// A gate that serves the run's housekeeping but never stops a read: for
/// what a run reads after its inputs (exact order's sorted runs and the
/// in-order starts it reads again), which must be read to the end whatever
/// the stop, since their lines were counted as read already.
final class HousekeepingGate: InputGate {
    private let inner: InputGate?

    init(_ inner: InputGate?) { self.inner = inner }

    func awaitReadable(fd: Int32, mayBlock: Bool) throws {
        do {
            try inner?.awaitReadable(fd: fd, mayBlock: false)
        } catch is InputStopped {}
    }
}
