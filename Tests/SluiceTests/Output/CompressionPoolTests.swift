import Foundation
import SluiceTestSupport
import Testing
@testable import Sluice

/// The deflate threads every file output shares.
@Suite struct CompressionPoolTests {
    /// The blocks the pool compressed.
    ///
    /// Sendable: pool threads append under `lock`; the test reads `blocks` without
    /// it only after `pool.shutdown()` has waited for every pool thread to end.
    final class Done: @unchecked Sendable {
        let lock = NSLock()
        var blocks: [DeflateBlock] = []
        func add(_ block: DeflateBlock) {
            lock.lock()
            blocks.append(block)
            lock.unlock()
        }
    }

    /// What a job's completion holds, as a block's stream holds its pool.
    final class Owner {
        var pool: CompressionPool?
    }

    @Test func aShutDownPoolHoldsNeitherItsJobsNorItsSpareBlocks() {
        // A stream's job holds the stream, and the stream holds the pool: a
        // taken job kept in the pool's queue kept every run's pool, spare
        // blocks and streams alive in a server that runs one epoch after another.
        weak var stream: Owner?
        weak var spare: DeflateBlock?
        let pool = CompressionPool(threads: 2)
        do {
            let owner = Owner()
            owner.pool = pool
            stream = owner
            let done = Done()
            for index in 0..<5 {
                let block = pool.takeBlock(capacity: 4096)
                block.reset()
                DeflateBlockTests.text(4096, seed: UInt64(index)).withUnsafeBytes { block.append($0) }
                pool.submit(CompressionPool.Job(block: block, level: 6) { block in
                    done.add(block)
                    owner.pool?.recycle(block)
                })
            }
            pool.shutdown()
            #expect(done.blocks.count == 5)
            spare = done.blocks.first
        }
        #expect(stream == nil, "the pool still holds a job it handed out, and with it the job's stream")
        #expect(spare == nil, "the pool kept a spare block after it was shut down")
    }

    @Test func shuttingDownFinishesEveryQueuedBlockFirst() {
        let pool = CompressionPool(threads: 3)
        let done = Done()
        let data = DeflateBlockTests.text(40 * 8192, seed: 47)
        for index in 0..<40 {
            let block = pool.takeBlock(capacity: 8192)
            block.reset()
            data[(index * 8192)..<((index + 1) * 8192)].withUnsafeBytes { block.append($0) }
            block.sequence = index
            pool.submit(CompressionPool.Job(block: block, level: 6) { done.add($0) })
        }
        pool.shutdown()
        #expect(done.blocks.count == 40)
        for block in done.blocks {
            let own = Array(data[(block.sequence * 8192)..<((block.sequence + 1) * 8192)])
            #expect(TestGzip.firstMember(DeflateBlockTests.output(block))?.data == own)
        }
    }

    @Test func aRecycledBlockIsHandedOutAgainOnlyForItsOwnCapacity() {
        let pool = CompressionPool(threads: 1)
        defer { pool.shutdown() }
        let block = pool.takeBlock(capacity: 4096)
        pool.recycle(block)
        #expect(pool.takeBlock(capacity: 8192) !== block)
        #expect(pool.takeBlock(capacity: 4096) === block)
        #expect(pool.takeBlock(capacity: 4096) !== block)
    }
}
