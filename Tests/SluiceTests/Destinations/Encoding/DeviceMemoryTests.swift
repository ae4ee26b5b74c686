import Testing
@testable import Sluice

@Suite struct DeviceMemoryTests {
    static func key(_ n: UInt64) -> DeviceKey { DeviceKey(a: n &* 0x9e37_79b9_7f4a_7c15, b: n) }

    @Test func aDeviceGetsBackWhatWasRememberedForItAndNoOtherDeviceDoes() {
        let memory = DeviceMemory(maxBytes: 1 << 20)
        #expect(memory.isEmpty)
        memory.set([1, 2, 3], for: Self.key(1))
        #expect(memory.value(for: Self.key(1)) == [1, 2, 3])
        #expect(memory.value(for: Self.key(2)) == nil)
        memory.set([4], for: Self.key(1))
        #expect(memory.value(for: Self.key(1)) == [4] && memory.count == 1)
        #expect(memory.bytes == 1 + DeviceMemory.entryOverhead)
    }

    @Test func pastItsBoundTheLeastRecentlyUsedDevicesAreForgotten() {
        let entry = 10 + DeviceMemory.entryOverhead
        let memory = DeviceMemory(maxBytes: 3 * entry)
        for n in 1...3 as ClosedRange<UInt64> { memory.set(Array(repeating: UInt8(n), count: 10), for: Self.key(n)) }
        _ = memory.value(for: Self.key(1))  // 1 is used again: 2 is now the least recently used
        memory.set(Array(repeating: 4, count: 10), for: Self.key(4))
        #expect(memory.value(for: Self.key(2)) == nil)
        #expect(([1, 3, 4] as [UInt64]).allSatisfy { memory.value(for: Self.key($0)) != nil })
        #expect(memory.forgotten == 1 && memory.count == 3 && memory.bytes <= memory.maxBytes)
    }

    @Test func aValueLargerThanTheWholeBoundIsNotKept() {
        let memory = DeviceMemory(maxBytes: 100)
        #expect(!memory.set(Array(repeating: 0, count: 100), for: Self.key(1)))
        #expect(memory.isEmpty && memory.bytes == 0)
    }

    @Test func manyDevicesComeAndGoWithinTheBound() {
        let memory = DeviceMemory(maxBytes: 50 * (8 + DeviceMemory.entryOverhead))
        for n in 0..<10_000 as Range<UInt64> {
            memory.set(Array(repeating: UInt8(truncatingIfNeeded: n), count: 8), for: Self.key(n))
            #expect(memory.value(for: Self.key(n))?.first == UInt8(truncatingIfNeeded: n))
        }
        #expect(memory.count == 50 && memory.forgotten == 10_000 - 50)
        for n in 9_950..<10_000 as Range<UInt64> { #expect(memory.value(for: Self.key(n)) != nil) }
    }

    @Test func pairsComeBackAsTheyWereWritten() {
        let pairs: [(name: [UInt8], json: [UInt8])] = [(Array("plan".utf8), Array(#"{"value":"pro"}"#.utf8)), ([], []),
                                                       (Array(repeating: 7, count: 300), Array(repeating: 9, count: 7000))]
        let decoded = DeviceMemory.Pairs.decode(DeviceMemory.Pairs.encode(pairs))
        #expect(decoded.map(\.name) == pairs.map(\.name) && decoded.map(\.json) == pairs.map(\.json))
    }
}
