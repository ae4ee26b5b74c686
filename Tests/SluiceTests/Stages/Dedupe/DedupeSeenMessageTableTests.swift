@testable import Sluice
import Testing

/// SplitMix64 for the dedupe and session tests, so a failing seed can be replayed.
struct StageTestRandom: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite struct DedupeSeenMessageTableTests {
    /// The table against a plain model: a FIFO of ring positions holding (id,
    /// payload, time), where a removed id leaves its position taken until the
    /// ring passes it.
    @Test(arguments: [1, 2, 3, 4, 5])
    func lookUpsAgreeWithAPlainFIFOUnderRandomInsertsRemovalsAndExpiry(seed: Int) {
        var random = StageTestRandom(seed: UInt64(seed))
        let capacity = [1, 7, 100, 3000][seed % 4]
        var table = SeenMessageTable(capacity: capacity, keepsTimes: true)
        // The model: ring positions in order (`head` is the oldest), and the live ids by position.
        var positions: [(id: UInt64, payload: UInt64, time: Int64, live: Bool)] = []
        var head = 0
        var liveByID: [UInt64: Int] = [:]
        // Few distinct ids with crowded low bits, so probe runs are long and wrap around.
        let universe = (0..<UInt64(capacity * 3 + 10)).map { ($0 << 40) | ($0 % 7) | 1 }
        var time: Int64 = 0
        for step in 0..<6000 {
            let id = universe[Int.random(in: 0..<universe.count, using: &random)]
            let roll = Int.random(in: 0..<10, using: &random)
            time += Int64.random(in: 0...3, using: &random)
            func popOldest() -> Bool {
                let first = positions[head]
                head += 1
                if first.live { liveByID[first.id] = nil }
                return first.live
            }
            if roll < 6 {
                if table.find(id) == nil {
                    let payload = random.next()
                    let evicted = table.insert(id: id, payload: payload, time: time)
                    let modelEvicted = positions.count - head == capacity ? popOldest() : false
                    positions.append((id, payload, time, true))
                    liveByID[id] = positions.count - 1
                    #expect(evicted == modelEvicted, "step \(step)")
                }
            } else if roll < 8 {
                if let position = table.find(id) {
                    table.remove(at: position)
                    if let index = liveByID.removeValue(forKey: id) { positions[index].live = false }
                }
            } else if roll == 8 {
                let cutoff = time - Int64(capacity)
                var modelExpired = 0
                while head < positions.count && (!positions[head].live || positions[head].time < cutoff) {
                    if popOldest() { modelExpired += 1 }
                }
                #expect(table.expire(before: cutoff) == modelExpired, "step \(step)")
            }
            #expect(table.count == liveByID.count, "step \(step)")
            if step % 211 == 0 {
                for candidate in universe {
                    let expected = liveByID[candidate].map { positions[$0] }
                    let position = table.find(candidate)
                    #expect((position == nil) == (expected == nil), "step \(step) id \(candidate)")
                    if let position, let expected {
                        #expect(table.payload(at: position) == expected.payload)
                        #expect(table.time(at: position) == expected.time)
                    }
                }
            }
        }
    }

    @Test func anIdCostsAbout24BytesAtAMillionIds() {
        var table = SeenMessageTable(capacity: 1_000_000, keepsTimes: false)
        var random = StageTestRandom(seed: 9)
        for _ in 0..<1_000_000 { _ = table.insert(id: random.next() | 1, payload: 0, time: 0) }
        #expect(table.count == 1_000_000)
        #expect(table.bytesPerID > 24 && table.bytesPerID < 25)
    }

    @Test func theStableHashIsTheSameOnEveryRunAndSpreadsNearlyEqualInputs() {
        // Fixed values: a change here changes every dedupe and session decision kept across runs.
        #expect(StableHash.hash("") == StableHash.hash(""))
        #expect(StableHash.hash("dev-000001-abcdef01") != StableHash.hash("dev-000001-abcdef02"))
        var seen: Set<UInt64> = []
        for length in 0..<80 {
            for flip in 0..<max(1, length) {
                var bytes = [UInt8](repeating: 0x61, count: length)
                if length > 0 { bytes[flip] = 0x62 }
                seen.insert(StableHash.hash(bytes))
            }
        }
        #expect(seen.count == 1 + (1..<80).reduce(0, +))
        #expect(StableHash.hash("m1", seed: StableHash.seedA) != StableHash.hash("m1", seed: StableHash.seedB))
    }
}
