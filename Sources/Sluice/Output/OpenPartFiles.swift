import Foundation

/// The `.part` files this run created and has not renamed yet, so a shutdown
/// that runs out of time (or a second Ctrl-C) can name exactly what it leaves
/// behind for `sluice recover`.
///
/// Compression threads add a file when they create it; finisher threads remove
/// it once it is renamed. A file abandoned after a write error stays listed:
/// it is left as `.part`.
///
/// Sendable: `paths`, its one mutable field, is read and written only under `lock`.
public final class OpenPartFiles: @unchecked Sendable {
    private let lock = NSLock()
    private var paths: Set<String> = []

    public init() {}

    func insert(_ path: String) {
        lock.lock()
        paths.insert(path)
        lock.unlock()
    }

    func remove(_ path: String) {
        lock.lock()
        paths.remove(path)
        lock.unlock()
    }

    /// The `.part` paths now, sorted.
    public var current: [String] {
        lock.lock()
        defer { lock.unlock() }
        return paths.sorted()
    }
}
