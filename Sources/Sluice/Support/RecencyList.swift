/// A slot of an array that a `RecencyList` threads through: its neighbours
/// in recency order, -1 at the ends.
protocol RecencyLinked {
    var newer: Int32 { get set }
    var older: Int32 { get set }
}

/// Least to most recently touched, as a doubly linked list threaded through
/// the slots of an array the owner keeps (the `session` stage's devices, the
/// `timed` stage's open timers, a destination's device memory): touching,
/// adding and taking out a slot are O(1), and eviction takes `oldest`.
///
/// The list holds only its two ends; the owner passes its array to each call,
/// so the links live in the slots beside their data and nothing is allocated.
struct RecencyList {
    /// Least and most recently touched slots, -1 when empty.
    private(set) var oldest: Int32 = -1
    private(set) var newest: Int32 = -1

    /// Links `slot` as the most recently touched.
    @inline(__always)
    mutating func linkNewest<Slot: RecencyLinked>(_ slot: Int32, in slots: inout [Slot]) {
        slots[Int(slot)].newer = -1
        slots[Int(slot)].older = newest
        if newest >= 0 { slots[Int(newest)].newer = slot } else { oldest = slot }
        newest = slot
    }

    /// Takes `slot` out of the list (its own links are left as they were).
    @inline(__always)
    mutating func unlink<Slot: RecencyLinked>(_ slot: Int32, in slots: inout [Slot]) {
        let older = slots[Int(slot)].older, newer = slots[Int(slot)].newer
        if older >= 0 { slots[Int(older)].newer = newer } else { oldest = newer }
        if newer >= 0 { slots[Int(newer)].older = older } else { newest = older }
    }

    /// Makes `slot` the most recently touched.
    @inline(__always)
    mutating func touch<Slot: RecencyLinked>(_ slot: Int32, in slots: inout [Slot]) {
        guard slot != newest else { return }
        unlink(slot, in: &slots)
        linkNewest(slot, in: &slots)
    }

    /// Every slot from the least to the most recently touched: linking them in
    /// this order into an empty list rebuilds the same order.
    func slotsByRecency<Slot: RecencyLinked>(_ slots: [Slot], count: Int) -> [Int32] {
        var order: [Int32] = []
        order.reserveCapacity(count)
        var slot = oldest
        while slot >= 0 {
            order.append(slot)
            slot = slots[Int(slot)].newer
        }
        return order
    }
}
