@testable import Sluice
import Testing

@Suite struct RecencyListTests {
    private struct Slot: RecencyLinked {
        var newer: Int32 = -1
        var older: Int32 = -1
    }

    @Test func slotsComeOutFromLeastToMostRecentlyTouched() {
        var slots = [Slot](repeating: Slot(), count: 4)
        var list = RecencyList()
        #expect(list.oldest == -1 && list.newest == -1 && list.slotsByRecency(slots, count: 0).isEmpty)
        for slot: Int32 in 0..<4 { list.linkNewest(slot, in: &slots) }
        #expect(list.slotsByRecency(slots, count: 4) == [0, 1, 2, 3])
        list.touch(1, in: &slots)
        list.touch(0, in: &slots)
        list.touch(0, in: &slots)  // already the newest: nothing moves
        #expect(list.slotsByRecency(slots, count: 4) == [2, 3, 1, 0])
        #expect(list.oldest == 2 && list.newest == 0)
    }

    @Test func unlinkingTheEndsOrTheMiddleKeepsTheRestInOrder() {
        var slots = [Slot](repeating: Slot(), count: 5)
        var list = RecencyList()
        for slot: Int32 in 0..<5 { list.linkNewest(slot, in: &slots) }
        list.unlink(0, in: &slots)
        list.unlink(4, in: &slots)
        list.unlink(2, in: &slots)
        #expect(list.slotsByRecency(slots, count: 2) == [1, 3])
        #expect(list.oldest == 1 && list.newest == 3)
        list.linkNewest(2, in: &slots)  // a freed slot reused
        #expect(list.slotsByRecency(slots, count: 3) == [1, 3, 2])
        list.unlink(1, in: &slots)
        list.unlink(3, in: &slots)
        list.unlink(2, in: &slots)
        #expect(list.oldest == -1 && list.newest == -1)
    }
}
