import Foundation
import Testing
@testable import Sluice
import SluiceTestSupport

@Suite struct GzipMemberScanTests {
    private func scan(_ bytes: [UInt8]) throws -> GzipMemberScan {
        let directory = TemporaryDirectory()
        let path = directory.write("f.gz", bytes)
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        return try GzipMemberScan.scan(fd: fd)
    }

    @Test func completeMembersAreCountedWithTheirLines() throws {
        let members = [TestGzip.compress(Array("a\nb\n".utf8)), TestGzip.compress(Array("c\n".utf8))]
        let result = try scan(members.flatMap { $0 })
        #expect(result.members == 2)
        #expect(result.lines == 3)
        #expect(result.dataBytes == 6)
        #expect(result.validBytes == members[0].count + members[1].count)
        #expect(result.isComplete)
    }

    @Test func aMemberLargerThanTheReadBufferIsScannedWhole() throws {
        var text: [UInt8] = []
        for index in 0..<100_000 { text += Array("{\"i\":\(index),\"pad\":\"\(index * 7919)\"}\n".utf8) }
        let result = try scan(TestGzip.compress(text, level: 0))
        #expect(result.members == 1)
        #expect(result.lines == 100_000)
        #expect(result.isComplete)
    }

    @Test func aCorruptedByteIsFoundByTheChecksumAndOnlyEarlierMembersCount() throws {
        let first = TestGzip.compress(Array("one\n".utf8))
        var second = TestGzip.compress(Array(String(repeating: "two\n", count: 50).utf8), level: 0)
        second[second.count - 12] ^= 0xFF   // stored data: only the CRC can tell
        let result = try scan(first + second)
        #expect(result.members == 1)
        #expect(result.validBytes == first.count)
        #expect(result.lines == 1)
        #expect(result.damage?.contains("at byte \(first.count)") == true)
    }

    @Test func anEmptyFileHasNoMemberAndNoDamage() throws {
        let result = try scan([])
        #expect(result.members == 0)
        #expect(result.damage == nil)
        #expect(!result.isComplete)
    }
}
