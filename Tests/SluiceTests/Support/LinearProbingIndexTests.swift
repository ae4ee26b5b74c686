@testable import Sluice
import Testing

/// The index under the dedupe, session and timed tables: where values land,
/// what a removal moves, growth, runs that wrap past the end, and random
/// changes against a Swift `Dictionary`.
@Suite struct LinearProbingIndexTests {
    /// An owner as the stage tables are: keys in slots, the index holding `slot + 1`.
    private struct Owner {
        var index: LinearProbingIndex<UInt32>
        var keys: [UInt64] = []

        init(buckets: Int) { index = LinearProbingIndex(bucketCount: buckets) }

        /// Adds `key` in a new slot; returns the slot's bucket value.
        @discardableResult
        mutating func add(_ key: UInt64) -> UInt32 {
            keys.append(key)
            index.growIfNeeded(count: keys.count) { keys[Int($0) - 1] }
            let value = UInt32(keys.count)
            index.insert(value, hash: key)
            return value
        }

        mutating func remove(_ value: UInt32) {
            index.remove(value, hash: keys[Int(value) - 1]) { keys[Int($0) - 1] }
        }

        func find(_ key: UInt64) -> UInt32? {
            index.first(hash: key) { keys[Int($0) - 1] == key }
        }

        /// The probe run of `key`'s home, values of every hash.
        func run(from key: UInt64) -> [UInt32] {
            var values: [UInt32] = []
            index.forEach(hash: key) { values.append($0) }
            return values
        }
    }

    /// A key whose home bucket is `home` in any table of at least `home + 1`
    /// buckets, told apart from others of that home by `tag`.
    private func key(home: UInt64, tag: UInt64) -> UInt64 { tag << 40 | home }

    @Test func collidingValuesFormOneRunAndAllStayFindable() {
        var owner = Owner(buckets: 16)
        let keys = (1...5).map { key(home: 3, tag: $0) }
        let values = keys.map { owner.add($0) }
        #expect(Array(owner.index.buckets[3...7]) == values)
        #expect(owner.run(from: keys[0]) == values)
        for (key, value) in zip(keys, values) { #expect(owner.find(key) == value) }
        // A key of the same home that is not there: the probe stops at the first empty bucket.
        #expect(owner.find(key(home: 3, tag: 99)) == nil)

        owner.remove(values[2])
        #expect(Array(owner.index.buckets[3...8]) == [values[0], values[1], values[3], values[4], 0, 0])
        #expect(owner.find(keys[2]) == nil)
        for index in [0, 1, 3, 4] { #expect(owner.find(keys[index]) == values[index]) }
    }

    @Test func backwardShiftMovesBackOnlyWhatMayMove() {
        var owner = Owner(buckets: 16)
        let a = owner.add(key(home: 2, tag: 1)) // 2
        let b = owner.add(key(home: 2, tag: 2)) // 3
        let c = owner.add(key(home: 4, tag: 3)) // 4: at home
        let d = owner.add(key(home: 2, tag: 4)) // 5
        let e = owner.add(key(home: 5, tag: 5)) // 6
        #expect(Array(owner.index.buckets[2...7]) == [a, b, c, d, e, 0])

        // B and D go back toward their home 2, C stays at its home, E then fills D's old bucket.
        owner.remove(a)
        #expect(Array(owner.index.buckets[2...7]) == [b, d, c, e, 0, 0])

        // E's home (5) lies between the hole (4) and E: it stays, and the hole stays empty.
        owner.remove(c)
        #expect(Array(owner.index.buckets[2...7]) == [b, d, 0, e, 0, 0])
        for value in [b, d, e] { #expect(owner.find(owner.keys[Int(value) - 1]) == value) }

        // No tombstones: removing everything leaves every bucket empty.
        for value in [b, d, e] { owner.remove(value) }
        #expect(owner.index.buckets.allSatisfy { $0 == 0 })
    }

    @Test func runsWrapAroundTheEndOfTheTable() {
        var owner = Owner(buckets: 16)
        let a = owner.add(key(home: 14, tag: 1)) // 14
        let b = owner.add(key(home: 15, tag: 2)) // 15
        let c = owner.add(key(home: 14, tag: 3)) // 0
        let d = owner.add(key(home: 15, tag: 4)) // 1
        let e = owner.add(key(home: 0, tag: 5)) // 2
        #expect(owner.index.buckets[14] == a && owner.index.buckets[15] == b)
        #expect(Array(owner.index.buckets[0...3]) == [c, d, e, 0])
        #expect(owner.run(from: key(home: 14, tag: 0)) == [a, b, c, d, e])
        for value in [a, b, c, d, e] { #expect(owner.find(owner.keys[Int(value) - 1]) == value) }

        // B is at home and stays; C, D and E move back, C across the end.
        owner.remove(a)
        #expect(owner.index.buckets[14] == c && owner.index.buckets[15] == b)
        #expect(Array(owner.index.buckets[0...2]) == [d, e, 0])

        owner.remove(b)
        #expect(owner.index.buckets[14] == c && owner.index.buckets[15] == d)
        #expect(Array(owner.index.buckets[0...1]) == [e, 0])
        for value in [c, d, e] { #expect(owner.find(owner.keys[Int(value) - 1]) == value) }
    }

    @Test func anEntryAtItsHomeJustPastTheEndStays() {
        var owner = Owner(buckets: 16)
        let a = owner.add(key(home: 15, tag: 1)) // 15
        let b = owner.add(key(home: 0, tag: 2)) // 0, at home
        let c = owner.add(key(home: 15, tag: 3)) // 1
        owner.remove(a)
        // The hole (15) wraps to C: B's home 0 lies in (15, 0], so B stays and C moves back.
        #expect(owner.index.buckets[15] == c)
        #expect(Array(owner.index.buckets[0...1]) == [b, 0])
        #expect(owner.find(owner.keys[Int(b) - 1]) == b && owner.find(owner.keys[Int(c) - 1]) == c)
    }

    @Test func growthDoublesPastHalfLoadAndKeepsEveryValue() {
        var owner = Owner(buckets: 16)
        for count in 1...100 {
            // Every fourth key shares one home, so runs cross the old table's end as it grows.
            let home: UInt64 = count % 4 == 0 ? 15 : UInt64(count * 7)
            owner.add(key(home: home, tag: UInt64(count)))
            let expected = count <= 8 ? 16 : count <= 16 ? 32 : count <= 32 ? 64 : count <= 64 ? 128 : 256
            #expect(owner.index.bucketCount == expected, "after \(count)")
        }
        #expect(owner.index.byteCount == 256 * 4)
        #expect(owner.index.buckets.filter { $0 != 0 }.count == 100)
        for (slot, key) in owner.keys.enumerated() { #expect(owner.find(key) == UInt32(slot + 1)) }
        #expect(Set(owner.run(from: 15)).isSuperset(of: (1...25).map { UInt32($0 * 4) }))
    }

    @Test func bucketsOfEightBytesCarryTheirHashAndNeedNoOwner() {
        // As `OpenTimerTable` packs them: the hash above, `slot + 1` below.
        var index = LinearProbingIndex<UInt64>(bucketCount: 16)
        func value(_ hash: UInt32, _ slot: Int) -> UInt64 { UInt64(hash) << 32 | UInt64(slot + 1) }
        let hashes: [UInt32] = [15, 31, 15, 0, 47]
        for (slot, hash) in hashes.enumerated() {
            index.growIfNeeded(count: slot + 1) { $0 >> 32 }
            index.insert(value(hash, slot), hash: UInt64(hash))
        }
        var run: [UInt64] = []
        index.forEach(hash: 15) { run.append($0) }
        #expect(run == [value(15, 0), value(31, 1), value(15, 2), value(0, 3), value(47, 4)])
        index.remove(value(31, 1), hash: 31) { $0 >> 32 }
        run = []
        index.forEach(hash: 15) { if $0 >> 32 == 15 { run.append($0) } }
        #expect(run == [value(15, 0), value(15, 2)])
        #expect(index.byteCount == 16 * 8)
    }

    /// Random adds, removals and look-ups against a `Dictionary`, with keys
    /// crowded at the end of the table (long runs that wrap) and growth from 16
    /// buckets; after each check every value is reachable from its home
    /// without crossing an empty bucket.
    @Test(arguments: 0..<10)
    func agreesWithADictionaryUnderRandomChanges(seed: Int) {
        var random = SeededRandom(seed: UInt64(seed) &+ 0x51)
        var owner = Owner(buckets: 16)
        var model: [UInt64: UInt32] = [:]
        // Low bits all ones but a few: homes in the last buckets at every size.
        let universe: [UInt64] = (0..<400).map { (n: UInt64) -> UInt64 in
            let low: UInt64 = n % 3 == 0 ? (1 << 40 - 1) - n % 11 : n &* 0x9E37
            return n << 40 | low
        }
        for step in 0..<4000 {
            let key = universe[Int.random(in: 0..<universe.count, using: &random)]
            if Int.random(in: 0..<10, using: &random) < 6 {
                if model[key] == nil { model[key] = owner.add(key) }
            } else if let value = model.removeValue(forKey: key) {
                owner.remove(value)
                owner.keys[Int(value) - 1] = .max  // the slot is not reused; a stale key must not be found
            }
            #expect(owner.find(key) == model[key], "step \(step)")
            guard step % 97 == 0 else { continue }
            let index = owner.index
            #expect(index.buckets.filter { $0 != 0 }.count == model.count, "step \(step)")
            #expect(model.count * 2 <= index.bucketCount || model.count * 2 <= 16)
            for candidate in universe { #expect(owner.find(candidate) == model[candidate], "step \(step)") }
            for (bucket, value) in index.buckets.enumerated() where value != 0 {
                var probe = index.home(owner.keys[Int(value) - 1])
                while probe != bucket {
                    #expect(index.buckets[probe] != 0, "a hole in the run of bucket \(bucket), step \(step)")
                    probe = (probe + 1) & index.mask
                }
            }
        }
    }
}
