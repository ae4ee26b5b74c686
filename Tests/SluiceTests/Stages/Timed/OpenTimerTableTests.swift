@testable import Sluice
import Testing

/// The timed stage's state table against a plain model, with hashes forced to
/// collide so probing, backward-shift deletion and heap repair all get exercised.
@Suite struct OpenTimerTableTests {
    private struct Model {
        var key: [UInt8]
        var deadline: Int64
        var seq: UInt64
    }

    private func entry(key: [UInt8], hash: UInt32, seq: UInt64, kind: OpenTimerTable.Kind) -> OpenTimerTable.Entry {
        var entry = OpenTimerTable.Entry.free
        entry.bytes = key + [0xAA, 0xBB]
        entry.keyLength = UInt32(key.count)
        entry.hash = hash
        entry.seq = seq
        entry.kind = kind
        return entry
    }

    @Test(arguments: 0..<20)
    func lookUpsDeadlinesAndRecencyAgreeWithAPlainModelUnderRandomChanges(seed: Int) {
        var random = SeededRandom(seed: UInt64(seed))
        var table = OpenTimerTable(initialBuckets: 16)
        var live: [Int32: Model] = [:]
        var recency: [Int32] = []
        var seq: UInt64 = 0
        for _ in 0..<3000 {
            switch Int.random(in: 0..<10, using: &random) {
            case 0...4:
                seq += 1
                let key = [UInt8(Int.random(in: 0..<40, using: &random))]
                // Few distinct hashes: long clusters, many equal hashes with different keys.
                let hash = UInt32(key[0] % 5) &* 0x9E37_79B9
                let deadline = Int64.random(in: 0..<50, using: &random)
                let slot = table.insert(entry(key: key, hash: hash, seq: seq, kind: .start), deadline: deadline)
                #expect(live[slot] == nil)
                live[slot] = Model(key: key, deadline: deadline, seq: seq)
                recency.append(slot)
            case 5...7:
                guard let slot = live.keys.randomElement(using: &random) else { continue }
                let removed = table.remove(slot)
                #expect(removed.key.elementsEqual(live[slot]!.key))
                #expect(removed.payload.elementsEqual([0xAA, 0xBB]))
                live[slot] = nil
                recency.removeAll { $0 == slot }
            case 8:
                guard let slot = live.keys.randomElement(using: &random) else { continue }
                table.touch(slot)
                recency.removeAll { $0 == slot }
                recency.append(slot)
            default:
                guard let due = table.nextDue else { continue }
                _ = table.remove(due.slot)
                live[due.slot] = nil
                recency.removeAll { $0 == due.slot }
            }
            #expect(table.count == live.count)
            #expect(table.leastRecentlyTouched == recency.first)
            let earliest = live.min { ($0.value.deadline, $0.value.seq) < ($1.value.deadline, $1.value.seq) }
            #expect(table.nextDue?.slot == earliest?.key)
            #expect(table.nextDue?.deadline == earliest?.value.deadline)
        }
        for probe in 0..<40 {
            let key = [UInt8(probe)]
            var found: Set<Int32> = []
            table.forEach(key: key.span, hash: UInt32(key[0] % 5) &* 0x9E37_79B9) { found.insert($0) }
            #expect(found == Set(live.filter { $0.value.key == key }.keys))
        }
        #expect(Set(table.liveSlots) == Set(live.keys))
    }
}
