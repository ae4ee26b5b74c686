/// A binary min-heap: the least element first, ties in no particular order
/// (give the elements a total order when it matters, as the merge's keys do).
struct MinHeap<Element: Comparable> {
    private var items: [Element] = []

    var count: Int { items.count }
    var isEmpty: Bool { items.isEmpty }
    /// The least element, or nil when empty.
    var min: Element? { items.first }

    mutating func insert(_ element: Element) {
        items.append(element)
        siftUp(items.count - 1)
    }

    /// Removes and returns the least element; the heap must not be empty.
    @discardableResult
    mutating func removeMin() -> Element {
        let last = items.removeLast()
        guard !items.isEmpty else { return last }
        let first = items[0]
        items[0] = last
        siftDown(0)
        return first
    }

    /// Puts `element` in the least one's place (one sift instead of a removal and an insertion).
    mutating func replaceMin(_ element: Element) {
        items[0] = element
        siftDown(0)
    }

    private mutating func siftUp(_ start: Int) {
        var index = start
        let item = items[index]
        while index > 0 {
            let parent = (index - 1) / 2
            guard item < items[parent] else { break }
            items[index] = items[parent]
            index = parent
        }
        items[index] = item
    }

    private mutating func siftDown(_ start: Int) {
        var index = start
        let item = items[index]
        let count = items.count
        while true {
            let left = 2 * index + 1
            guard left < count else { break }
            var child = left
            if left + 1 < count && items[left + 1] < items[left] { child = left + 1 }
            guard items[child] < item else { break }
            items[index] = items[child]
            index = child
        }
        items[index] = item
    }
}
