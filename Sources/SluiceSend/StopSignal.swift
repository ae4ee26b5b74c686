import Foundation

/// SIGTERM or SIGINT (or a failure) asked sending to stop: no new request
/// starts, a wait between retries ends, requests in flight finish.
///
/// Sendable: `code`, its one mutable field, is read and written only under `lock`.
final class StopSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var code: Int32?

    var isStopping: Bool { lock.withLock { code != nil } }
    /// 143 (SIGTERM) or 130 (SIGINT), once a signal came.
    var signalCode: Int32? { lock.withLock { code } }

    func stop(code: Int32) { lock.withLock { if self.code == nil { self.code = code } } }

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
