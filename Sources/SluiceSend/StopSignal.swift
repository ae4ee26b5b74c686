import Foundation
import Sluice

/// SIGTERM or SIGINT (or a failure) asked sending to stop: no new request
/// starts, a wait between retries ends, requests in flight finish.
///
/// Sendable: `reason`, its one mutable field, is read and written only under `lock`.
final class StopSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var reason: RunControl.StopReason?

    var isStopping: Bool { lock.withLock { reason != nil } }
    /// The exit status of the signal that came: 143 (SIGTERM) or 130 (SIGINT); nil before one came.
    var signalCode: Int32? { lock.withLock { reason?.exitStatus } }

    /// The first signal's reason is kept.
    func stop(_ reason: RunControl.StopReason) { lock.withLock { if self.reason == nil { self.reason = reason } } }

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
