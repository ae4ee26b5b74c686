import Foundation

/// Requests to a running pipeline from outside its thread: stop (SIGTERM,
/// SIGINT), rotate every output (SIGHUP), print the stats so far (SIGUSR1).
///
/// Any thread may post a request; the run's main thread takes them at its
/// next read of input. Posting also writes a byte to a wake-up pipe the main
/// thread polls beside a blocking input, so a request is served at once even
/// when `tail -F` has sent nothing for an hour.
///
/// Sendable: `stopReason`, `stopTaken`, `rotations`, `statsReports` and
/// `finishedValue` are read and written only under `lock`; the wake-up pipe's
/// two descriptors are `let`s set in `init`.
public final class RunControl: @unchecked Sendable {
    /// Why a run was asked to stop, and the exit status of a clean drain after it.
    public enum StopReason: Sendable, Equatable {
        /// SIGINT: exit 130.
        case interrupt
        /// SIGTERM: exit 143.
        case terminate

        public var exitStatus: Int32 { self == .interrupt ? 130 : 143 }
        public var signalName: String { self == .interrupt ? "SIGINT" : "SIGTERM" }
    }

    /// What the main thread has to do, taken all at once.
    package struct Requests {
        package var stop: StopReason?
        package var rotations = 0
        package var statsReports = 0
    }

    private let lock = NSLock()
    private var stopReason: StopReason?
    private var stopTaken = false
    private var rotations = 0
    private var statsReports = 0
    private var finishedValue = false
    private let wakeRead: Int32
    private let wakeWrite: Int32

    public init() {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            }
        }
        wakeRead = fds[0]
        wakeWrite = fds[1]
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    /// The descriptor the main thread polls to learn that a request is waiting.
    package var wakeDescriptor: Int32 { wakeRead }

    /// Asks the run to stop reading, drain and finish. The first reason wins.
    public func requestStop(_ reason: StopReason) {
        lock.lock()
        if stopReason == nil { stopReason = reason }
        lock.unlock()
        wake()
    }

    /// Asks the run to close and rename its current files and start new ones.
    public func requestRotation() {
        lock.lock()
        rotations += 1
        lock.unlock()
        wake()
    }

    /// Asks the run to log its stats so far.
    public func requestStats() {
        lock.lock()
        statsReports += 1
        lock.unlock()
        wake()
    }

    /// The stop asked for, if any.
    public var stopRequested: StopReason? {
        lock.lock()
        defer { lock.unlock() }
        return stopReason
    }

    /// Set once the run has written everything (outputs, stats, metrics):
    /// a shutdown deadline passing after that changes nothing.
    public var isFinished: Bool {
        lock.lock()
        defer { lock.unlock() }
        return finishedValue
    }

    public func markFinished() {
        lock.lock()
        finishedValue = true
        lock.unlock()
    }

    /// Waits until `fd` is readable (data, or its writer gone) and returns
    /// true, or returns false as soon as a stop is asked for: a wait before
    /// the run (a FIFO's writer) that a signal must be able to end. Other
    /// requests stay pending for the run.
    func awaitReadable(fd: Int32) -> Bool {
        var scratch = [UInt8](repeating: 0, count: 64)
        while stopRequested == nil {
            var descriptors = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            if poll(&descriptors, 2, -1) > 0 {
                if descriptors[0].revents != 0 { return stopRequested == nil }
                // The counters hold the requests; the bytes only woke us.
                while read(wakeRead, &scratch, scratch.count) > 0 {}
            }
        }
        return false
    }

    /// Takes the pending requests (the main thread only). A stop is reported once.
    package func take() -> Requests {
        var scratch = [UInt8](repeating: 0, count: 64)
        while read(wakeRead, &scratch, scratch.count) > 0 {}
        lock.lock()
        defer { lock.unlock() }
        var requests = Requests(rotations: rotations, statsReports: statsReports)
        if !stopTaken, let stopReason {
            requests.stop = stopReason
            stopTaken = true
        }
        rotations = 0
        statsReports = 0
        return requests
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }
}
