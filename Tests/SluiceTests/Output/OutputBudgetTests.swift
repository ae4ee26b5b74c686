@testable import Sluice
import Testing

/// The file outputs' buffers share one budget: a pipeline of 1,000 outputs
/// does not reserve 1,000 times what one of 10 does.
@Suite struct OutputBudgetTests {
    @Test func fewOutputsKeepTheBuffersMeasuredBestForThroughput() {
        let budget = OutputBudget(fileOutputs: 11, compressionThreads: 2)
        #expect(budget.queueDepth == 32)
        #expect(budget.blockSize == BlockGzipStream.defaultBlockSize)
        #expect(budget.blocksInFlight == 4)
    }

    @Test(arguments: [101, 1001, 5000])
    func manyOutputsShareTheBudgetDownToAMegabyteEach(outputs: Int) {
        let budget = OutputBudget(fileOutputs: outputs, compressionThreads: 2)
        #expect(budget.blocksInFlight == 1)
        #expect(budget.queueDepth >= 2 && budget.queueDepth < 32)
        #expect(budget.perOutputBytes <= 1 << 20 || budget.perOutputBytes * outputs <= OutputBudget.totalBytes,
                "\(budget)")
        #expect(budget.perOutputBytes <= 3 << 20, "\(budget)")
    }

    @Test func theBudgetShrinksAsOutputsAreAdded() {
        let sizes = [1, 11, 31, 101, 301, 1001].map { OutputBudget(fileOutputs: $0, compressionThreads: 2).perOutputBytes }
        #expect(sizes == sizes.sorted(by: >), "\(sizes)")
        // 1,000 destinations and the rejects: under a gigabyte of output buffers in all, where each took 7 MB.
        #expect(OutputBudget(fileOutputs: 1001, compressionThreads: 2).perOutputBytes * 1001 < 1 << 30)
    }

    /// `sluice serve`'s epochs give a smaller total: four outputs share 32 MiB.
    @Test func aSmallerTotalIsSharedTheSameWay() {
        let budget = OutputBudget(fileOutputs: 4, compressionThreads: 2, totalBytes: 32 << 20)
        #expect(budget.perOutputBytes * 4 <= 32 << 20, "\(budget)")
        #expect(budget.perOutputBytes < OutputBudget(fileOutputs: 4, compressionThreads: 2).perOutputBytes)
    }
}
