import Testing
@testable import Sluice

@Suite struct PageMemoryTests {
    @Test func pageMemoryGivesBackThePagesPastWhatItKeeps() {
        let pages = PageMemory(capacity: 1 << 20)
        pages.base.initializeMemory(as: UInt8.self, repeating: 7, count: 1 << 20)
        pages.wrote(upTo: 1 << 20)
        pages.release(keeping: 10_000)
        #expect(pages.touched == PageMemory.roundedUp(10_000))
        // What was kept is intact; what was given back reads as zeros.
        #expect(pages.base.load(fromByteOffset: 9_999, as: UInt8.self) == 7)
        #expect(pages.base.load(fromByteOffset: (1 << 20) - 1, as: UInt8.self) == 0)
    }
}
