import Testing
@testable import Sluice
import SluiceJSON

extension DeviceMemory {
    @discardableResult
    func setID(_ value: [UInt8], for id: [UInt8]) -> Bool { id.withSpan { set(value, isUser: false, $0) } }
    func valueID(_ id: [UInt8]) -> [UInt8]? { id.withSpan { value(isUser: false, $0) } }
}

@Suite struct DeviceMemoryTests {
    /// Device `n`'s id; sets and looks up by it, as a message's `anonymousId`.
    static func key(_ n: UInt64) -> [UInt8] {
        let digits = String(n)
        return Array(("dev-" + String(repeating: "0", count: 6 - digits.count) + digits).utf8)  // 10 bytes
    }

    @Test func aDeviceGetsBackWhatWasRememberedForItAndNoOtherDeviceDoes() {
        let memory = DeviceMemory(maxBytes: 1 << 20)
        #expect(memory.isEmpty)
        memory.setID([1, 2, 3], for: Self.key(1))
        #expect(memory.valueID(Self.key(1)) == [1, 2, 3])
        #expect(memory.valueID(Self.key(2)) == nil)
        memory.setID([4], for: Self.key(1))
        #expect(memory.valueID(Self.key(1)) == [4] && memory.count == 1)
        #expect(memory.bytes == 1 + 10 + DeviceMemory.entryOverhead)
    }

    @Test func pastItsBoundTheLeastRecentlyUsedDevicesAreForgotten() {
        let entry = 10 + 10 + DeviceMemory.entryOverhead
        let memory = DeviceMemory(maxBytes: 3 * entry)
        for n in 1...3 as ClosedRange<UInt64> { memory.setID(Array(repeating: UInt8(n), count: 10), for: Self.key(n)) }
        _ = memory.valueID(Self.key(1))  // 1 is used again: 2 is now the least recently used
        memory.setID(Array(repeating: 4, count: 10), for: Self.key(4))
        #expect(memory.valueID(Self.key(2)) == nil)
        #expect(([1, 3, 4] as [UInt64]).allSatisfy { memory.valueID(Self.key($0)) != nil })
        #expect(memory.forgotten == 1 && memory.count == 3 && memory.bytes <= memory.maxBytes)
    }

    @Test func aValueLargerThanTheWholeBoundIsNotKept() {
        let memory = DeviceMemory(maxBytes: 100)
        #expect(!memory.setID(Array(repeating: 0, count: 100), for: Self.key(1)))
        #expect(memory.isEmpty && memory.bytes == 0)
    }

    @Test func manyDevicesComeAndGoWithinTheBound() {
        let memory = DeviceMemory(maxBytes: 50 * (8 + 10 + DeviceMemory.entryOverhead))
        for n in 0..<10_000 as Range<UInt64> {
            memory.setID(Array(repeating: UInt8(truncatingIfNeeded: n), count: 8), for: Self.key(n))
            #expect(memory.valueID(Self.key(n))?.first == UInt8(truncatingIfNeeded: n))
        }
        #expect(memory.count == 50 && memory.forgotten == 10_000 - 50)
        for n in 9_950..<10_000 as Range<UInt64> { #expect(memory.valueID(Self.key(n)) != nil) }
    }

    @Test func anAnonymousIdAndAUserIdOfTheSameTextAreTwoDevices() {
        let memory = DeviceMemory(maxBytes: 1 << 20)
        let id = Self.key(7)
        id.withSpan { memory.set([1], isUser: false, $0) }
        #expect(id.withSpan { memory.value(isUser: true, $0) } == nil)
        #expect(id.withSpan { memory.value(isUser: false, $0) } == [1])
    }

    @Test func pairsComeBackAsTheyWereWritten() {
        let pairs: [(name: [UInt8], json: [UInt8])] = [(Array("plan".utf8), Array(#"{"value":"pro"}"#.utf8)), ([], []),
                                                       (Array(repeating: 7, count: 300), Array(repeating: 9, count: 7000))]
        let decoded = DeviceMemory.Pairs.decode(DeviceMemory.Pairs.encode(pairs))
        #expect(decoded.map(\.name) == pairs.map(\.name) && decoded.map(\.json) == pairs.map(\.json))
    }
}
