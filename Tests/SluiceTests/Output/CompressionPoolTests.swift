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
