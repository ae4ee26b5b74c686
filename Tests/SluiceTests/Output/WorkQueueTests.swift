import Foundation
import Testing
@testable import Sluice

/// The bounded queue between the reader and each compressor (and the file
/// finishers): everything put comes out once, in order, whatever the speeds.
@Suite struct WorkQueueTests {
    /// A lock-guarded list the consumer threads fill.
    ///
    /// Sendable: `lists` is set in `init`, then read and written only under `lock`.
    final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var lists: [[Int]]
        init(consumers: Int) { lists = Array(repeating: [], count: consumers) }
        func add(_ value: Int, by consumer: Int) { lock.lock(); lists[consumer].append(value); lock.unlock() }
        var all: [[Int]] { lock.lock(); defer { lock.unlock() }; return lists }
    }

    @Test(arguments: [1, 2, 3, 8, 32])
    func aFastProducerAndOneConsumerPassEveryItemInOrder(capacity: Int) {
        let queue = WorkQueue<Int?>(capacity: capacity)
        let collected = Collected(consumers: 1)
        let done = DispatchSemaphore(value: 0)
        Thread {
            while let item = queue.take(deadlineNanos: nil) ?? nil { collected.add(item, by: 0) }
            done.signal()
        }.start()
        for item in 0..<20_000 { queue.put(item) }
        queue.put(nil)
        done.wait()
        #expect(collected.all[0] == Array(0..<20_000))
    }

    /// An object whose release the test can see.
    final class Token {}

    @Test func aTakenItemIsNoLongerHeldByTheQueue() {
        // A compression worker's chunk buffers go through its queue: one held
        // after it was taken stays allocated beyond the worker's spares.
        let queue = WorkQueue<Token>(capacity: 8)
        weak var first: Token?
        weak var second: Token?
        do {
            let a = Token(), b = Token()
            first = a
            second = b
            queue.put(a)
            queue.put(b)
        }
        #expect(first != nil)
        _ = queue.take(deadlineNanos: nil)
        #expect(first == nil, "the queue still holds the item it handed out first")
        #expect(second != nil, "the queued item is held until it is taken")
        _ = queue.take(deadlineNanos: nil)
        #expect(second == nil)
    }

    @Test func severalConsumersTakeEachItemOnceAndInOrder() {
        let queue = WorkQueue<Int?>(capacity: 4)
        let consumers = 3
        let collected = Collected(consumers: consumers)
        let done = DispatchSemaphore(value: 0)
        for consumer in 0..<consumers {
            Thread {
                while let item = queue.take(deadlineNanos: nil) ?? nil { collected.add(item, by: consumer) }
                done.signal()
            }.start()
        }
        for item in 0..<20_000 { queue.put(item) }
        for _ in 0..<consumers { queue.put(nil) }
        for _ in 0..<consumers { done.wait() }
        let lists = collected.all
        #expect(lists.flatMap { $0 }.sorted() == Array(0..<20_000))
        for list in lists { #expect(list == list.sorted()) }
    }

    @Test func aTakeWithAPassedDeadlineReturnsNothingAndAnItemPutLaterStillArrives() {
        let queue = WorkQueue<Int>(capacity: 2)
        #expect(queue.take(deadlineNanos: Monotonic.nanoseconds()) == nil)
        queue.put(7)
        #expect(queue.take(deadlineNanos: Monotonic.nanoseconds()) == 7)
    }
}
