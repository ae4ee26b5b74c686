import Foundation
import Sluice

/// SIGTERM or SIGINT (or a failure) asked sending to stop: no new request
/// starts, a wait between retries ends, requests in flight finish within the
/// shutdown timeout, or are cut off after it.
///
/// Sendable: `reason` and `stoppedAt`, its mutable fields, are read and written only under `lock`.
final class StopSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var reason: RunControl.StopReason?
    private var stoppedAt: ContinuousClock.Instant?
    /// `--shutdown-timeout`.
    let shutdownTimeout: Duration

    init(shutdownTimeout: Duration = .seconds(30)) {
        self.shutdownTimeout = shutdownTimeout
    }

    var isStopping: Bool { lock.withLock { reason != nil } }
    /// The exit status of the signal that came: 143 (SIGTERM) or 130 (SIGINT); nil before one came.
    var signalCode: Int32? { lock.withLock { reason?.exitStatus } }

    /// The first signal's reason is kept.
    func stop(_ reason: RunControl.StopReason) {
        lock.withLock {
            if self.reason == nil {
                self.reason = reason
                stoppedAt = .now
            }
        }
    }

    /// Returns once a stop came and the shutdown timeout since it ran out (a request still in flight is then
    /// cut off), or when the calling task is cancelled (the request finished first).
    func shutdownTimeoutPassed() async {
        while !Task.isCancelled {
            if let stoppedAt = lock.withLock({ self.stoppedAt }), stoppedAt.duration(to: .now) >= shutdownTimeout { return }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Sleeps `duration`, in steps that notice a stop; false when stopped first.
    func sleep(_ duration: Duration) async -> Bool {
        let end = ContinuousClock.now + duration
        while ContinuousClock.now < end {
            if isStopping { return false }
            try? await Task.sleep(for: min(.milliseconds(50), ContinuousClock.now.duration(to: end)))
        }
        return !isStopping
    }
}
