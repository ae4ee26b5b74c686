/// The gate of what `sluice run` reads before the run (the pipeline file):
/// a FIFO's wait for its writer, and each wait for data, end as soon as a
/// stop (SIGTERM, SIGINT) is asked for, with `InputStopped`.
final class StopGate: InputGate {
    private let control: RunControl

    init(_ control: RunControl) { self.control = control }

    func awaitReadable(fd: Int32, mayBlock: Bool) throws {
        // A regular file does not wait: an early signal is served once the run starts, as ever.
        guard mayBlock else { return }
        if !control.awaitReadable(fd: fd) { throw InputStopped() }
    }
}
