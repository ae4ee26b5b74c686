// Unsafe code: records come in as `UnsafeRawBufferPointer`s (an output's
// buffer) and are copied into a block's input; a compressed block goes to the
// sink as a buffer over its `output`, which the block owns while it is written.
// Slices advance by what `append` took, never past `rest.count`; `memchr` reads only `rest`.

import Foundation

/// One file's gzip members, compressed in blocks on the shared
/// `CompressionPool` and written in order.
///
/// Every block is one whole gzip member (`DeflateBlock`), cut after the last
/// record that fits in `blockSize` bytes (a record longer than that makes a
/// block of its own): a file is a series of independently readable members,
/// each holding whole records, as in BGZF. With `blockSize` `Int.max` nothing is
/// cut: the file is one member (or one per `endMember`, which ends the current
/// block wherever its records stop). The bytes written depend on the bytes
/// handed in, where members were ended and the block size, never on the
/// pool's threads or their timing.
///
/// The owner (one thread: the destination's `CompressionWorker`, or a test)
/// calls `write`, `endMember` and `waitIdle`; whichever pool thread finishes
/// the next block in order writes it, and the blocks after it that are ready,
/// to `sink`, so `sink` is called by one thread at a time. At most
/// `maxInFlight` blocks of a stream are in the pool or waiting for their turn:
/// `write` waits beyond that, which pushes back on the reader through the
/// worker's queue.
///
/// Sendable: `current`, `nextSequence` and `pendingInMember` are the owner's
/// alone; the blocks in flight, the write order and the counts are guarded by
/// `condition`; `sink` is used by one writer at a time (`writing`); the rest are `let`s.
final class BlockGzipStream: @unchecked Sendable {
    typealias Sink = (UnsafeRawBufferPointer) throws(OutputError) -> Void

    /// 1 MiB: libdeflate 6 over the workload's records in members of 1 MiB
    /// gives files 2% smaller than zlib 6 as one stream, and the same CPU;
    /// members of 256 KiB are 1.4% larger than zlib's (the start of each
    /// member has no window to refer back to), 64 KiB 15% (docs/performance.md).
    static let defaultBlockSize = 1024 * 1024

    let blockSize: Int
    /// Named in errors: the file being written.
    private let label: String
    private let level: Int32
    private let pool: CompressionPool
    private let sink: Sink
    private let maxInFlight: Int

    // The owner's.
    /// The block being filled, nil between members.
    private var current: DeflateBlock?
    private var nextSequence = 0
    /// Bytes handed in since the last member ended.
    private(set) var pendingInMember = 0

    // Guarded by `condition`.
    private let condition = NSCondition()
    private var inFlight = 0
    private var compressed: [Int: DeflateBlock] = [:]
    private var nextToWrite = 0
    private var writing = false
    private var failureValue: OutputError?
    private var written = 0

    /// - Parameter maxInFlight: blocks in the pool or waiting at once (default: the pool's threads + 2).
    init(level: Int32, label: String, pool: CompressionPool, blockSize: Int = BlockGzipStream.defaultBlockSize,
         maxInFlight: Int? = nil, sink: @escaping Sink) {
        self.label = label
        self.level = level
        self.pool = pool
        self.blockSize = max(blockSize, 1)
        self.sink = sink
        self.maxInFlight = max(maxInFlight ?? pool.threadCount + 2, 1)
    }

    deinit {
        waitIdle()
        if let current { pool.recycle(current) }
    }

    /// Compressed bytes written to the sink so far.
    var compressedBytes: Int {
        condition.lock()
        defer { condition.unlock() }
        return written
    }

    /// The first error writing or compressing met; once set, nothing more is written.
    var failure: OutputError? {
        condition.lock()
        defer { condition.unlock() }
        return failureValue
    }

    /// Adds `data` (whole records) to the current block; blocks cut after their last whole record go to the pool.
    func write(_ data: UnsafeRawBufferPointer) throws(OutputError) {
        if let failure { throw failure }
        guard data.count > 0 else { return }
        var rest = data
        while !rest.isEmpty {
            let block = current ?? newBlock()
            current = block
            if !block.isFull {
                let taken = min(block.capacity - block.count, rest.count)
                block.append(UnsafeRawBufferPointer(rebasing: rest[..<taken]))
                rest = UnsafeRawBufferPointer(rebasing: rest[taken...])
                guard block.isFull else { continue }
            }
            let whole = block.wholeRecordBytes
            if whole == 0 {
                // One record longer than a block: the block takes it up to its end.
                guard !rest.isEmpty, let newline = memchr(rest.baseAddress!, 0x0A, rest.count) else {
                    block.append(rest)
                    break
                }
                let end: Int = rest.baseAddress!.distance(to: UnsafeRawPointer(newline)) + 1
                block.append(UnsafeRawBufferPointer(rebasing: rest[..<end]))
                rest = UnsafeRawBufferPointer(rebasing: rest[end...])
                current = nil
            } else if whole < block.count {
                // The record cut by the block's end goes on in the next block.
                let next = newBlock()
                block.moveTail(from: whole, to: next)
                current = next
            } else {
                current = nil
            }
            submit(block)
        }
        pendingInMember += data.count
    }

    private func newBlock() -> DeflateBlock {
        let block = pool.takeBlock(capacity: blockSize)
        block.reset()
        return block
    }

    /// Ends the current block wherever its records stop and writes everything
    /// handed in so far as whole members. False when nothing was handed in
    /// since the last call (nothing to sync).
    @discardableResult
    func endMember() throws(OutputError) -> Bool {
        guard pendingInMember > 0 else { return false }
        if let last = current, last.count > 0 {
            current = nil
            submit(last)
        }
        waitIdle()
        if let failure { throw failure }
        pendingInMember = 0
        return true
    }

    /// Waits until every block handed to the pool is written (or dropped after a failure).
    func waitIdle() {
        condition.lock()
        while inFlight > 0 { condition.wait() }
        condition.unlock()
    }

    private func submit(_ block: DeflateBlock) {
        block.sequence = nextSequence
        nextSequence += 1
        condition.lock()
        while inFlight >= maxInFlight { condition.wait() }
        inFlight += 1
        condition.unlock()
        pool.submit(CompressionPool.Job(block: block, level: level) { [self] in compressedInPool($0) })
    }

    /// On a pool thread: the block is compressed; write it and every block
    /// after it that is ready, unless another thread is writing this stream's blocks.
    private func compressedInPool(_ block: DeflateBlock) {
        condition.lock()
        compressed[block.sequence] = block
        guard !writing else {
            condition.unlock()
            return
        }
        writing = true
        while let ready = compressed.removeValue(forKey: nextToWrite) {
            nextToWrite += 1
            let failed = failureValue != nil
            condition.unlock()
            var error: OutputError?
            var count = 0
            if !failed {
                do { count = try emit(ready) } catch let failure { error = failure }
            }
            pool.recycle(ready)
            condition.lock()
            if let error, failureValue == nil { failureValue = error }
            written += count
            inFlight -= 1
            condition.broadcast()
        }
        writing = false
        condition.unlock()
    }

    /// Writes one compressed block (a whole member); returns the bytes written.
    private func emit(_ block: DeflateBlock) throws(OutputError) -> Int {
        if let status = block.failure { throw .compressionFailed(path: label, status: status) }
        try sink(UnsafeRawBufferPointer(start: block.output, count: block.outputCount))
        return block.outputCount
    }
}
