@testable import Sluice
@testable import SluiceJSON
import Testing

/// Properties of the dedupe stage over random streams of re-sent and colliding messages.
@Suite struct DedupePropertyTests {
    /// Random messages: ids from a small pool, a few payloads each, every one possibly re-sent later.
    private func stream(seed: UInt64, count: Int) -> [(line: String, id: Int, payload: Int)] {
        var random = StageTestRandom(seed: seed)
        var sent: [(line: String, id: Int, payload: Int)] = []
        for index in 0..<count {
            if !sent.isEmpty && Double.random(in: 0..<1, using: &random) < 0.3 {
                // A re-send, possibly restamped.
                var copy = sent[Int.random(in: 0..<sent.count, using: &random)]
                if Bool.random(using: &random) {
                    // Restamped: a new `sentAt` in place of the one an earlier restamp added (a key twice does not parse).
                    if let stamp = copy.line.range(of: #","sentAt":"#) { copy.line = String(copy.line[..<stamp.lowerBound]) + "}" }
                    copy.line = String(copy.line.dropLast()) + #","sentAt":"2026-11-20T09:00:0\#(index % 10)Z"}"#
                }
                sent.append(copy)
                continue
            }
            let id = Int.random(in: 0..<(count / 3), using: &random)
            let payload = Int.random(in: 0..<3, using: &random)
            let line = StageCase.message("track", at: payload * 1000, who: "d\(id % 5)", event: "e\(payload)", id: "id-\(id)")
            sent.append((line, id, payload))
        }
        return sent
    }

    @Test(arguments: 1...10)
    func eachDistinctMessageComesOutOnceAndEveryRepeatIsDroppedAsDuplicate(seed: Int) {
        let messages = stream(seed: UInt64(seed), count: 3000)
        var stage = StageCase.dedupeStage()
        let outcome = StageCase.run(messages.map(\.line), through: &stage)
        var firstOfID: [Int: Int] = [:]
        var seen: Set<[Int]> = []
        var expectedPass: [Int64] = []
        var collisions = 0
        for (index, message) in messages.enumerated() {
            if seen.insert([message.id, message.payload]).inserted {
                expectedPass.append(Int64(index + 1))
                if firstOfID[message.id] != nil { collisions += 1 } else { firstOfID[message.id] = message.payload }
            }
        }
        #expect(outcome.events.map(\.origin.line) == expectedPass)
        #expect(outcome.dropped.count == messages.count - expectedPass.count)
        #expect(outcome.dropped.allSatisfy { $0.reason == .duplicate })
        #expect(outcome.counters["id_collisions"] == collisions)
        #expect(outcome.counters["duplicates"] == outcome.dropped.count)
        // Renamed collisions have distinct ids, and nothing else was renamed.
        let ids = outcome.documents.compactMap { $0.string(at: JSONPath("messageId")) }
        #expect(Set(ids).count == ids.count)
        #expect(outcome.documents.filter { $0.find(JSONPath("context.duplicate_of")) != nil }.count == collisions)
    }

    @Test(arguments: 1...6)
    func memoryStaysWithinMaxIDsAndEveryLineIsAccountedFor(seed: Int) {
        let messages = stream(seed: UInt64(seed), count: 2000)
        let limit = [1, 10, 100][seed % 3]
        var stage = StageCase.dedupeStage("{max_ids: \(limit)}")
        let outcome = StageCase.run(messages.map(\.line), through: &stage)
        #expect(outcome.events.count + outcome.dropped.count == messages.count)
        #expect(stage.remembered <= limit)
        #expect(outcome.counters["high_water", default: 0] <= limit)
        #expect(outcome.counters["evicted", default: 0] > 0)
    }

    @Test func theSameInputGivesTheSameOutput() {
        let lines = stream(seed: 42, count: 1000).map(\.line)
        var first = StageCase.dedupeStage()
        var second = StageCase.dedupeStage()
        #expect(StageCase.run(lines, through: &first).lines == StageCase.run(lines, through: &second).lines)
    }
}
