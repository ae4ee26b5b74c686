import Foundation

/// A bounded blocking FIFO between the runner and a worker thread.
///
/// Sendable: `items`, `head` and the waiter counts are read and written only
/// under `condition`; `capacity` and `resumeAt` are `let`s. Elements need not be
/// Sendable: each goes from the thread that puts it to the one that takes it.
final class WorkQueue<Element>: @unchecked Sendable {
    private let condition = NSCondition()
    /// Queued items from `head` on. A taken item's slot is emptied at once: a
    /// chunk's buffer kept there after its write would stay allocated until the
    /// array was next compacted, past the worker's spares (and with them, the
    /// worker's last chunks until the queue itself went).
    private var items: [Element?] = []
    private var head = 0
    private let capacity: Int
    /// A putter that found the queue full goes on once it has drained to this:
    /// one sleep and one wake-up per half queue, not one per item (when the
    /// compressor is the slower side, the reader otherwise slept and woke for
    /// every chunk, a context switch each time, on both threads).
    private let resumeAt: Int
    private var waitingPutters = 0
    private var waitingTakers = 0

    init(capacity: Int) {
        self.capacity = capacity
        resumeAt = capacity / 2
    }

    func put(_ item: Element) {
        condition.lock()
        if items.count - head >= capacity {
            waitingPutters += 1
            while items.count - head > resumeAt { condition.wait() }
            waitingPutters -= 1
        }
        items.append(item)
        if waitingTakers > 0 { condition.broadcast() }
        condition.unlock()
    }

    /// The next item, or nil when the monotonic deadline passes first.
    func take(deadlineNanos: UInt64?) -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while head == items.count {
            waitingTakers += 1
            if let deadline = deadlineNanos {
                let now = Monotonic.nanoseconds()
                if now >= deadline {
                    waitingTakers -= 1
                    return nil
                }
                _ = condition.wait(until: Date(timeIntervalSinceNow: Double(deadline - now) / 1e9))
            } else {
                condition.wait()
            }
            waitingTakers -= 1
        }
        let item = items[head].take()!
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 64 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        if waitingPutters > 0 && items.count - head <= resumeAt { condition.broadcast() }
        return item
    }
}
