import Foundation

/// Records kept in memory instead of files or stdout: the spy `sluice test`
/// runs pipelines with (`RunOptions.memoryOutputs`). The runner, the stages,
/// the encoders and the batching are the ones `sluice run` uses; only the
/// last step, compressing and writing files, is replaced by an append here.
///
/// Sendable: `received`, its one mutable field, is read and written only under `lock`.
public final class MemoryOutputs: @unchecked Sendable {
    private let lock = NSLock()
    private var received: [String: [UInt8]] = [:]

    public init() {}

    func append(_ name: String, _ data: [UInt8]) {
        lock.lock()
        received[name, default: []].append(contentsOf: data)
        lock.unlock()
    }

    /// Everything the output called `name` received (a destination's name, or `rejects`).
    public func bytes(_ name: String) -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        return received[name] ?? []
    }

    /// The records `name` received, in order, each without its newline.
    public func records(_ name: String) -> [[UInt8]] {
        bytes(name).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).map(Array.init)
    }
}
