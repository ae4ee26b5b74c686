import Foundation
import SluiceTestSupport
import Testing

/// End-to-end: a gzip log with damage in it, through the real binary. No
/// record of a member that fails its CRC-32 or length check reaches a
/// destination; each of its lines is rejected `corrupt_gzip`, and the run balances.
@Suite struct CorruptGzipInputTests {
    private func json(_ bytes: [UInt8]) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] ?? [:]
    }

    /// 4,000 generated events in gzip members of 500 lines each, and the lines.
    private func log(in directory: TemporaryDirectory) throws -> (gzip: [UInt8], lines: [[UInt8]], memberStarts: [Int]) {
        let generated = try SluiceBinary.shell("$SLUICE generate --events 4000 --seed 11 > in.ndjson", in: directory.path)
        #expect(generated.status == 0)
        let lines = ndjsonLines(Array(FileManager.default.contents(atPath: directory.file("in.ndjson"))!))
        var gzip: [UInt8] = []
        var starts: [Int] = []
        for first in stride(from: 0, to: lines.count, by: 500) {
            starts.append(gzip.count)
            gzip += TestGzip.compress(lines[first..<min(first + 500, lines.count)].flatMap { $0 + [0x0A] })
        }
        return (gzip, lines, starts)
    }

    @Test func aFlippedBitNeverPutsAnAlteredRecordIntoAFinishedFile() throws {
        let directory = TemporaryDirectory()
        let (gzip, lines, starts) = try log(in: directory)
        let original = Set(lines.map { String(decoding: $0, as: UTF8.self) })
        // Flips spread over every member, the headers and trailers included.
        for flip in stride(from: 11, to: gzip.count, by: gzip.count / 24) {
            // A header's time and flags bytes are not checked by gzip itself: not damage.
            guard let member = starts.lastIndex(where: { $0 <= flip }), flip - starts[member] >= 10 else { continue }
            var damaged = gzip
            damaged[flip] ^= 0x04
            directory.write("flip.ndjson.gz", damaged)
            let out = "out-\(flip)"
            let result = try SluiceBinary.run(["run", "--out", out, "--stats", "\(out).json", "flip.ndjson.gz"], in: directory.path)
            #expect(result.status == 65, "flip at \(flip): \(result.stderr)")
            let delivered = gunzipFiles(directory, under: "\(out)/archive/").flatMap(\.lines)
            for record in delivered where !original.contains(String(decoding: record, as: UTF8.self)) {
                Issue.record("flip at \(flip): an altered record was delivered: \(String(decoding: record.prefix(160), as: UTF8.self))")
            }
            // Whole members only: the members before the damaged one, never a part of it.
            #expect(delivered.count == member * 500, "flip at \(flip)")
            let stats = json(Array(FileManager.default.contents(atPath: directory.file("\(out).json"))!))
            #expect(stats["balanced"] as? Bool == true)
            let rejected = (stats["rejected_by_reason"] as? [String: Int])?["corrupt_gzip"] ?? 0
            #expect(stats["lines_in"] as? Int == delivered.count + rejected)
            #expect(result.stderr.contains("corrupt gzip data in flip.ndjson.gz at compressed byte"))
        }
    }

    @Test func aBadCRCOnIntactDataRejectsEveryLineOfTheMemberAndNamesWhereItStarts() throws {
        let directory = TemporaryDirectory()
        let (gzip, _, starts) = try log(in: directory)
        var damaged = gzip
        // The third member's CRC-32, the first byte of its trailer.
        damaged[starts[3] - 8] ^= 0x01
        directory.write("crc.ndjson.gz", damaged)
        let result = try SluiceBinary.run(["run", "--stats", "stats.json", "crc.ndjson.gz"], in: directory.path)
        #expect(result.status == 65)
        #expect(result.stderr.contains("at compressed byte \(starts[2]): the gzip member at compressed bytes \(starts[2])-"))
        #expect(result.stderr.contains("fails its CRC-32 check"))
        let stats = json(Array(FileManager.default.contents(atPath: directory.file("stats.json"))!))
        #expect(stats["lines_in"] as? Int == 1500)
        #expect(stats["emitted"] as? Int == 1000)
        #expect((stats["rejected_by_reason"] as? [String: Int])?["corrupt_gzip"] == 500)
        #expect(stats["balanced"] as? Bool == true)
        let rejects = gunzipFiles(directory, under: "out/rejects/").flatMap(\.lines).map(json)
        #expect(rejects.count == 500)
        #expect(rejects.allSatisfy { $0["reason"] as? String == "corrupt_gzip" })
        #expect(rejects.map { $0["line_number"] as? Int ?? 0 } == Array(1001...1500))
    }

    @Test func aTruncatedGzipRejectsTheLinesOfItsLastMemberAndTheLineTheCutWentThrough() throws {
        let directory = TemporaryDirectory()
        let (gzip, _, starts) = try log(in: directory)
        let cut = starts[2] + (starts[3] - starts[2]) / 2
        directory.write("cut.ndjson.gz", Array(gzip.prefix(cut)))
        let result = try SluiceBinary.run(["run", "--stats", "stats.json", "cut.ndjson.gz"], in: directory.path)
        #expect(result.status == 65)
        #expect(result.stderr.contains("at compressed byte \(cut): unexpected end of gzip data"))
        let stats = json(Array(FileManager.default.contents(atPath: directory.file("stats.json"))!))
        #expect(stats["emitted"] as? Int == 1000)
        let rejected = (stats["rejected_by_reason"] as? [String: Int])?["corrupt_gzip"] ?? 0
        #expect(rejected > 0 && rejected <= 500)
        #expect(stats["lines_in"] as? Int == 1000 + rejected)
        #expect(stats["balanced"] as? Bool == true)
        // The last reject is the line the cut went through: part of a line, kept as read.
        let last = try #require(gunzipFiles(directory, under: "out/rejects/").flatMap(\.lines).last.map(json))
        #expect((last["line"] as? String)?.hasSuffix("}") == false)
    }
}
