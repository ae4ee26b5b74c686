import Foundation

/// Finishes completed output files off the compression threads: fsync, close,
/// rename `.part` to its name, fsync the directory.
///
/// A few threads, because fsyncs issued together are committed together by the
/// filesystem journal: on the project machine 100 small files took 0.76 s to
/// finish one after another and 0.06 s four at a time. Rotating Mixpanel files
/// every 2000 events would otherwise stall deflate for about 10 ms per file.
///
/// Sendable: `pending` is guarded by `condition`; each job (a writer and its
/// completion) goes through `queue` to one finisher thread, never used by two;
/// `threads` is used only by the owner's `init` and `shutdown`, not by the threads.
final class FileFinisher: @unchecked Sendable {
    private struct Job {
        var writer: GzipFileWriter
        var completion: (Result<Void, OutputError>) -> Void
    }

    private let queue: WorkQueue<Job?>
    private let condition = NSCondition()
    private var pending = 0
    private var threads = 0
    private let stopped = DispatchSemaphore(value: 0)

    /// How many closed files may wait for their fsync and rename. Each holds
    /// only its descriptor (its compressor is freed before it is queued); past
    /// this, the compression threads wait, and the reader behind them: a slow
    /// disk slows the run down instead of growing its memory or its open files.
    static let queueCapacity = 64

    init(threads: Int = 4) {
        queue = WorkQueue(capacity: FileFinisher.queueCapacity)
        self.threads = threads
        for index in 0..<threads {
            let thread = Thread { [self] in run() }
            thread.name = "sluice-finish-\(index)"
            thread.start()
        }
    }

    /// Queues a writer whose data is all written (its last member ended).
    func submit(_ writer: GzipFileWriter, completion: @escaping (Result<Void, OutputError>) -> Void) {
        condition.lock()
        pending += 1
        condition.unlock()
        queue.put(Job(writer: writer, completion: completion))
    }

    /// Waits until every submitted file is finished.
    func drain() {
        condition.lock()
        while pending > 0 { condition.wait() }
        condition.unlock()
    }

    /// Drains, then stops the threads.
    func shutdown() {
        drain()
        for _ in 0..<threads { queue.put(nil) }
        for _ in 0..<threads { stopped.wait() }
        threads = 0
    }

    private func run() {
        while let job = queue.take(deadlineNanos: nil) ?? nil {
            do {
                try job.writer.close()
                job.completion(.success(()))
            } catch {
                job.writer.abandon()
                job.completion(.failure(error))
            }
            condition.lock()
            pending -= 1
            if pending == 0 { condition.broadcast() }
            condition.unlock()
        }
        stopped.signal()
    }
}
