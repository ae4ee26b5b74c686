// Unsafe code: the signal numbers go to the C helper
// `sluice_signal_pipe_install` as a pointer and count
// (`withUnsafeBufferPointer`); it reads them during the call and keeps none.

import CSignalPipe
import Foundation
import Logging

/// Turns signals into `RunControl` requests and enforces the shutdown deadline.
///
/// The C handler only counts the signal and writes a byte to a pipe; this
/// thread polls that pipe, so nothing but async-signal-safe code runs in a
/// handler. The thread is also the watchdog: from the first SIGTERM or SIGINT
/// it gives the run `shutdownTimeout` to drain; past that, or at a second
/// SIGINT, it names the `.part` files left behind and exits at once with
/// `forcedExitStatus`, whatever the other threads are doing.
///
/// One per process: signal dispositions are process-wide.
///
/// Sendable: `forcedExitHook` is read and written only under `hookLock`; every
/// other field is a `let` set in `init` (`RunControl`, `OpenPartFiles` and
/// `Logger` are Sendable themselves); the listening thread keeps its deadline
/// in a local.
public final class SignalListener: @unchecked Sendable {
    /// Exit status of a shutdown that did not drain (deadline passed, second SIGINT): EX_TEMPFAIL.
    public static let forcedExitStatus: Int32 = ExitStatus.shutdownIncomplete

    private let control: RunControl
    private let openParts: OpenPartFiles
    private let shutdownTimeout: Duration
    private let leftoverAdvice: String
    private let logger: Logger
    private let signalPipe: Int32
    private let hookLock = NSLock()
    private var forcedExitHook: (@Sendable (String) -> Void)?

    /// What to do just before a forced exit (the `--stats` and `--metrics`
    /// files, with exit 75 and why), given the error the exit logs. Set once
    /// the reports exist; runs on the listener's thread, then the process exits.
    public func onForcedExit(_ hook: @escaping @Sendable (String) -> Void) {
        hookLock.lock()
        forcedExitHook = hook
        hookLock.unlock()
    }

    /// Installs the handlers and starts the listening thread.
    /// - Parameters:
    ///   - shutdownTimeout: how long a drain may take after SIGTERM/SIGINT.
    ///   - leftoverAdvice: what to do about the `.part` files left, said after their list
    ///     (run `sluice recover` on `--out`; with `--staging`, run the attempt again).
    public init(control: RunControl, openParts: OpenPartFiles, shutdownTimeout: Duration,
                leftoverAdvice: String, logger: Logger) throws {
        self.control = control
        self.openParts = openParts
        self.shutdownTimeout = shutdownTimeout
        self.leftoverAdvice = leftoverAdvice
        self.logger = logger
        let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGUSR1]
        let fd = signals.withUnsafeBufferPointer { sluice_signal_pipe_install($0.baseAddress, Int32($0.count)) }
        if fd < 0 { throw SignalSetupError(errno: errno) }
        signalPipe = fd
        let thread = Thread { [self] in listen() }
        thread.name = "sluice-signals"
        thread.start()
    }

    private func listen() {
        var deadline: UInt64?
        var scratch = [UInt8](repeating: 0, count: 64)
        while true {
            var descriptor = pollfd(fd: signalPipe, events: Int16(POLLIN), revents: 0)
            var timeout: Int32 = -1
            if let deadline {
                let now = Monotonic.nanoseconds()
                timeout = now >= deadline ? 0 : Int32(min((deadline - now) / 1_000_000 + 1, UInt64(Int32.max)))
            }
            _ = poll(&descriptor, 1, timeout)
            while read(signalPipe, &scratch, scratch.count) > 0 {}

            if sluice_signal_take(SIGTERM) > 0 {
                control.requestStop(.terminate)
                if deadline == nil { deadline = startDeadline(.terminate) }
            }
            if sluice_signal_take(SIGINT) > 0 {
                if sluice_signal_total(SIGINT) >= 2 && !control.isFinished {
                    forceExit("a second SIGINT: exiting without finishing the drain")
                }
                control.requestStop(.interrupt)
                if deadline == nil { deadline = startDeadline(.interrupt) }
            }
            if sluice_signal_take(SIGHUP) > 0 { control.requestRotation() }
            if sluice_signal_take(SIGUSR1) > 0 { control.requestStats() }

            if let deadline, Monotonic.nanoseconds() >= deadline, !control.isFinished {
                forceExit("the shutdown did not finish within --shutdown-timeout \(shutdownTimeout)")
            }
        }
    }

    private func startDeadline(_ reason: RunControl.StopReason) -> UInt64 {
        logger.info("\(reason.signalName): stopping input, draining (up to \(shutdownTimeout); a second SIGINT exits at once)")
        return Monotonic.nanoseconds() + UInt64(max(shutdownTimeout.nanoseconds, 0))
    }

    private func forceExit(_ why: String) -> Never {
        let parts = openParts.current
        let message = parts.isEmpty ? "\(why); no file was left as .part"
            : "\(why); left as .part: \(parts.joined(separator: ", ")); \(leftoverAdvice)"
        logger.error("\(message)")
        hookLock.lock()
        let hook = forcedExitHook
        hookLock.unlock()
        hook?(message)
        _exit(SignalListener.forcedExitStatus)
    }
}

/// The signal handlers could not be installed.
public struct SignalSetupError: Error, CustomStringConvertible {
    public var errno: Int32
    public var description: String { "cannot install signal handlers: \(String(cString: strerror(errno)))" }
}
