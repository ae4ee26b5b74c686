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
