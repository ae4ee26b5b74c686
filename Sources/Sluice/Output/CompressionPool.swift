import Foundation

/// The threads that deflate every file output's blocks, shared by all the
/// destinations of a run: the blocks of three destinations, or of one, are
/// spread over the cores, in the order they were handed in.
///
/// Each thread keeps its own zlib streams (`BlockCompressor`). A block's
/// bytes do not depend on the thread that compresses it, so the number of
/// threads changes how fast files are written, never what they hold.
///
/// Sendable: the queued jobs, `stopping` and `running` are guarded by
/// `condition`, `spares` by `sparesLock`; `threadCount` and `maxSpares` are
/// `let`s; each thread's compressor is a local, and a taken job its thread's alone.
final class CompressionPool: @unchecked Sendable {
    /// A block to compress for a stream; the stream is told when it is done.
    struct Job {
        let block: DeflateBlock
        let level: Int32
        let done: (DeflateBlock) -> Void
    }

    let threadCount: Int
    private let condition = NSCondition()
    /// Queued jobs from `head` on; a taken job's slot is emptied at once, because its `done`
    /// holds its stream, which holds this pool: a slot kept after the run would keep the
    /// pool, its spare blocks and the streams' buffers alive (a server's epochs piled them up).
    private var jobs: [Job?] = []
    private var head = 0
    private var stopping = false
    private var running = 0
    /// Blocks written out, for the next ones of any stream.
    private var spares: [DeflateBlock] = []
    private let sparesLock = NSLock()
    private let maxSpares: Int

    /// The pool runs where no pool was given (a writer made on its own): one thread per core.
    static let shared = CompressionPool(threads: defaultThreadCount)

    /// One per core the process may use: the reading thread gets its share
    /// anyway, because the pool's threads run below its priority.
    static var defaultThreadCount: Int { max(ProcessInfo.processInfo.activeProcessorCount, 1) }

    /// How much lower than the reading thread a compression thread runs (nice
    /// steps). The reader is the one serial step: when the threads outnumber the
    /// cores, an even share would starve it and leave the compressors idle
    /// waiting for data; a lower share for them keeps the reader going.
    static let niceIncrement: Int32 = 5

    init(threads: Int) {
        threadCount = max(threads, 1)
        running = threadCount
        // As many as the blocks of a couple of streams in flight: a block is
        // about 300 KiB of touched buffers, and freed on another thread than
        // the one that made it, it would leave glibc's heap larger than it was.
        maxSpares = 2 * threadCount + 4
        for index in 0..<threadCount {
            let thread = Thread { [self] in run() }
            thread.name = "sluice-deflate-\(index)"
            thread.start()
        }
    }

    /// Queues a block; `done` is called on a pool thread once it is compressed.
    func submit(_ job: Job) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// A block to fill: a spare one of that capacity, or a new one.
    func takeBlock(capacity: Int) -> DeflateBlock {
        sparesLock.lock()
        if let index = spares.lastIndex(where: { $0.capacity == capacity }) {
            let block = spares.remove(at: index)
            sparesLock.unlock()
            return block
        }
        sparesLock.unlock()
        return DeflateBlock(capacity: capacity)
    }

    /// Takes back a block its stream is done with.
    func recycle(_ block: DeflateBlock) {
        sparesLock.lock()
        if spares.count < maxSpares { spares.append(block) }
        sparesLock.unlock()
    }

    /// Lets the threads finish the queued blocks, then stop. For a pool of a
    /// run's own; the shared one lives as long as the process.
    func shutdown() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while running > 0 { condition.wait() }
        condition.unlock()
        sparesLock.lock()
        spares.removeAll()
        sparesLock.unlock()
    }

    private func run() {
        CompressionPool.lowerThreadPriority()
        let compressor = BlockCompressor()
        while let job = next() {
            job.block.compress(with: compressor, level: job.level)
            job.done(job.block)
        }
    }

    private func next() -> Job? {
        condition.lock()
        defer { condition.unlock() }
        while head == jobs.count {
            if stopping {
                running -= 1
                condition.broadcast()
                return nil
            }
            condition.wait()
        }
        let job = jobs[head].take()!
        head += 1
        if head == jobs.count {
            jobs.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 64 && head * 2 > jobs.count {
            jobs.removeFirst(head)
            head = 0
        }
        return job
    }

    /// Lowers this thread's scheduling priority. On Linux the nice value is a
    /// thread's own, and `who` 0 names the calling thread (setpriority(2), BUGS).
    private static func lowerThreadPriority() {
        #if os(Linux)
        errno = 0
        let current = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        guard errno == 0 else { return }
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, min(current + niceIncrement, 19))
        #endif
    }
}
