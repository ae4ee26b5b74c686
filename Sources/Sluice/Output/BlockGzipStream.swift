// Unsafe code: records come in as `UnsafeRawBufferPointer`s (an output's
// buffer) and are copied into a block's input; a compressed block goes to the
// sink as a buffer over its `output`, which the block owns while it is written.
// Slices advance by what `fill` took, never past `rest.count`.

import CZlib
import Foundation

/// One file's gzip stream, deflated in blocks on the shared `CompressionPool`
/// (as pigz does) and written in order.
///
/// A member's bytes are cut every `blockSize` bytes, wherever the records
/// fall; each block is deflated with the 32 KiB before it as dictionary and
/// ends on a byte boundary, the member's last one ends the deflate stream,
/// and the blocks are written one after another between the gzip header and
/// a trailer whose CRC-32 combines the blocks' (`crc32_combine`). A reader
/// sees one ordinary gzip member. The bytes written depend on the bytes
/// handed in, where members end and the block size, never on the pool's
/// threads or their timing.
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
/// `condition`; `memberCRC` and `sink` are used by one writer at a time (`writing`,
/// or the owner once `waitIdle` saw nothing in flight); the rest are `let`s.
final class BlockGzipStream: @unchecked Sendable {
    typealias Sink = (UnsafeRawBufferPointer) throws(OutputError) -> Void

    /// 256 KiB: each block hashes its 32 KiB dictionary again, which costs
    /// 2.5% more CPU than one deflate stream at this size and 5% at pigz's
    /// 128 KiB (zlib 6 over 100 MB of the workload's records), and the files
    /// are 0.1% larger (0.5% at 128 KiB); a second of the default pipeline's
    /// output is still hundreds of blocks.
    static let defaultBlockSize = 256 * 1024

    let blockSize: Int
    /// Named in errors: the file being written.
    private let label: String
    private let level: Int32
    private let header: [UInt8]
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
    // The writer's (the thread writing in order, or the owner once idle).
    private var memberCRC: UInt32 = 0

    /// - Parameter maxInFlight: blocks in the pool or waiting at once (default: the pool's threads + 2).
    init(level: Int32, label: String, pool: CompressionPool, blockSize: Int = BlockGzipStream.defaultBlockSize,
         maxInFlight: Int? = nil, sink: @escaping Sink) {
        self.label = label
        self.level = level
        self.header = GzipDeflater.header(level: level)
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

    /// Adds `data` to the current member; full blocks go to the pool.
    func write(_ data: UnsafeRawBufferPointer) throws(OutputError) {
        if let failure { throw failure }
        guard data.count > 0 else { return }
        var rest = data
        while !rest.isEmpty {
            let block: DeflateBlock
            if let filling = current, !filling.isFull {
                block = filling
            } else {
                // A full block goes only once more bytes follow it: the member's last one ends the stream instead.
                block = pool.takeBlock(capacity: blockSize)
                block.reset(after: current)
                if let full = current { submit(full, last: false) }
                current = block
            }
            let taken = block.fill(rest)
            rest = UnsafeRawBufferPointer(rebasing: rest[taken...])
        }
        pendingInMember += data.count
    }

    /// Ends the current member: its last block, then, once every block is
    /// written, the trailer. False when the member is empty (nothing written).
    @discardableResult
    func endMember() throws(OutputError) -> Bool {
        guard let last = current, pendingInMember > 0 else { return false }
        current = nil
        submit(last, last: true)
        waitIdle()
        if let failure { throw failure }
        let trailer = GzipDeflater.trailer(crc: memberCRC, length: pendingInMember)
        memberCRC = 0
        pendingInMember = 0
        try write(trailer)
        record(nil, written: trailer.count)
        return true
    }

    /// Waits until every block handed to the pool is written (or dropped after a failure).
    func waitIdle() {
        condition.lock()
        while inFlight > 0 { condition.wait() }
        condition.unlock()
    }

    private func submit(_ block: DeflateBlock, last: Bool) {
        block.isLast = last
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

    /// Writes one compressed block (after the header, if it starts a member); returns the bytes written.
    private func emit(_ block: DeflateBlock) throws(OutputError) -> Int {
        if let status = block.failure { throw .compressionFailed(path: label, status: status) }
        var count = 0
        if block.isFirstInMember {
            try write(header)
            count += header.count
        }
        try sink(UnsafeRawBufferPointer(start: block.output, count: block.outputCount))
        count += block.outputCount
        memberCRC = UInt32(truncatingIfNeeded: crc32_combine(uLong(memberCRC), uLong(block.crc), .init(block.count)))
        return count
    }

    /// Hands `bytes` to the sink; a failure is kept, so nothing more is written.
    private func write(_ bytes: [UInt8]) throws(OutputError) {
        var failed: OutputError?
        bytes.withUnsafeBytes { buffer in
            do throws(OutputError) { try sink(buffer) } catch { failed = error }
        }
        if let failed {
            record(failed, written: 0)
            throw failed
        }
    }

    private func record(_ error: OutputError?, written count: Int) {
        condition.lock()
        if let error, failureValue == nil { failureValue = error }
        written += count
        condition.unlock()
    }
}
