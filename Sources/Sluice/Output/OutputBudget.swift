/// How much each file output may hold in buffers, from how many there are:
/// the run's output buffering is one budget, shared, so a pipeline of 1,000
/// destinations does not reserve 1,000 times what one of 10 does.
///
/// A file output holds, at most: its worker's queue of 128 KiB chunks and as
/// many spare chunks, the block it fills and the blocks it has in the deflate
/// pool (each its input and its output). Nothing of it is
/// allocated before records come: an idle output costs its thread and a few
/// KiB. With few outputs each gets what was measured best for throughput
/// (32 chunks, 1 MiB blocks, threads + 2 in flight); with many, the budget
/// is shared: fewer chunks, smaller blocks, one block in flight (the pool is
/// kept busy by the other outputs' blocks).
public struct OutputBudget: Sendable, Equatable, CustomStringConvertible {
    /// The most the file outputs' buffers take together, past the few-outputs case.
    public static let totalBytes = 256 * 1024 * 1024

    /// Chunks that may wait for an output's thread (and spares kept to refill).
    public let queueDepth: Int
    /// Bytes deflated as one block.
    public let blockSize: Int
    /// Blocks of one file in the pool or waiting to be written.
    public let blocksInFlight: Int
    /// File outputs the budget is shared by.
    public let outputs: Int

    /// - Parameter compressionThreads: the deflate pool's threads (nil: one per core).
    /// - Parameter totalBytes: what the outputs' buffers may take together.
    public init(fileOutputs: Int, compressionThreads: Int? = nil, totalBytes: Int = OutputBudget.totalBytes) {
        let compressionThreads = compressionThreads ?? CompressionPool.defaultThreadCount
        outputs = max(fileOutputs, 1)
        let share = totalBytes / outputs
        let fullBlocksInFlight = max(compressionThreads, 1) + 2
        let full = Self.bytes(queueDepth: 32, blockSize: BlockGzipStream.defaultBlockSize, blocksInFlight: fullBlocksInFlight)
        if full <= share {
            (queueDepth, blockSize, blocksInFlight) = (32, BlockGzipStream.defaultBlockSize, fullBlocksInFlight)
            return
        }
        // Smaller blocks first (they cost a little ratio), then fewer chunks, down to 2 and 64 KiB.
        let blockSize = Self.bytes(queueDepth: 2, blockSize: 256 * 1024, blocksInFlight: 1) <= share / 2 ? 256 * 1024
            : Self.bytes(queueDepth: 2, blockSize: 128 * 1024, blocksInFlight: 1) <= share / 2 ? 128 * 1024 : 64 * 1024
        let blockBytes = Self.bytes(queueDepth: 0, blockSize: blockSize, blocksInFlight: 1)
        let depth = (share - blockBytes - RecordBatch.chunkBytes) / (2 * RecordBatch.chunkBytes)
        (queueDepth, self.blockSize, blocksInFlight) = (min(max(depth, 2), 32), blockSize, 1)
    }

    /// What one output holds at most: the chunk being filled, the queue and its spares, the block
    /// being filled and those in flight.
    static func bytes(queueDepth: Int, blockSize: Int, blocksInFlight: Int) -> Int {
        let block = blockSize + DeflateBlock.outputBound(blockSize)
        return (2 * queueDepth + 1) * RecordBatch.chunkBytes + (1 + blocksInFlight) * block
    }

    /// What one output holds at most, in bytes.
    public var perOutputBytes: Int { Self.bytes(queueDepth: queueDepth, blockSize: blockSize, blocksInFlight: blocksInFlight) }

    public var description: String {
        // Tenths of a MiB below 100 MiB (`>>` binds tighter than `*` in Swift: hence the parentheses).
        let mib = { (bytes: Int) in
            bytes >= 100 << 20 ? "\(bytes >> 20) MiB" : "\(((bytes * 10) >> 20) / 10).\(((bytes * 10) >> 20) % 10) MiB"
        }
        return "output buffers: at most \(mib(perOutputBytes)) for each of \(outputs) file output\(outputs == 1 ? "" : "s") "
            + "(\(mib(perOutputBytes * outputs)) in all, taken only as records come): a queue of \(queueDepth) chunks of "
            + "\(RecordBatch.chunkBytes >> 10) KiB, blocks of \(blockSize >> 10) KiB, \(blocksInFlight) in the deflate pool"
    }
}
