import Foundation
import SluiceJSON
import SluiceTestSupport
import Testing
@testable import Sluice

/// The shard function against the test vectors docs/operations.md gives, and
/// how evenly it spreads devices.
@Suite struct ShardFunctionTests {
    static func vectors() throws -> [ShardTestVector] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return try ShardTestVector.read(repositoryRoot: root.path)
    }

    static let columns = ShardTestVector.columns

    @Test func theDocumentedVectorsAreThere() throws {
        let vectors = try Self.vectors()
        #expect(vectors.count == 12)
        #expect(vectors.allSatisfy { $0.shards.count == Self.columns.count })
    }

    @Test func eachDocumentedHashAndShardIsWhatSluiceComputes() throws {
        for vector in try Self.vectors() {
            let bytes = Array(vector.line.utf8)
            let decoded = bytes.withUnsafeBufferPointer { Event.decode($0, origin: Origin(source: 0, line: 1)) }
            guard let id = vector.deviceID, let hash = vector.hash else {
                // No device: a line `run` rejects at input.
                if case .success = decoded { Issue.record("\(vector.line) decodes, but the docs say it is rejected") }
                continue
            }
            #expect(ShardFunction.deviceHash(id) == hash, "\(id)")
            guard case let .success(event) = decoded else {
                Issue.record("\(vector.line) does not decode")
                continue
            }
            for n in Self.columns {
                #expect(hash % UInt64(n) == vector.shards[n], "\(id) mod \(n)")
                #expect(ShardFunction.shard(of: event.document, shards: UInt64(n)) == vector.shards[n], "\(vector.line) of \(n)")
            }
            #expect(event.time.milliseconds == vector.timeMilliseconds)
        }
    }

    @Test(arguments: [16, 3, 1000])
    func devicesSpreadEvenlyOverTheShards(_ n: Int) {
        var counts = [Int](repeating: 0, count: n)
        let devices = 400 * n
        for index in 0..<devices {
            let shard = ShardFunction.deviceHash("dev-\(index)-\((index &* 2_654_435_761) % 1_000_003)") % UInt64(n)
            counts[Int(shard)] += 1
        }
        // 400 expected per shard: a binomial's standard deviation is about 20, so 6 of them either side.
        #expect(counts.min()! > 280 && counts.max()! < 520, "\(counts.min()!)...\(counts.max()!)")
    }

    /// The stages index devices by the low bits of their own key hash: one shard's devices must
    /// not all share them, as they would if the shard were taken from that same hash.
    @Test func oneShardsDevicesSpreadOverTheSessionTablesBuckets() throws {
        var buckets = Set<UInt64>()
        var index = 0
        while buckets.count < 16 && index < 100_000 {
            let line = #"{"type":"track","event":"e","anonymousId":"dev-\#(index)","timestamp":"2026-11-20T08:00:00Z"}"#
            let document = try JSONDocument.parse(Array(line.utf8))
            if ShardFunction.shard(of: document, shards: 16) == 3 { buckets.insert(SessionTracking.deviceKey(document).a & 15) }
            index += 1
        }
        #expect(buckets.count == 16)
    }
}
