import CZlib
import SluiceTestSupport
import Testing
@testable import Sluice

/// A block of records compressed on its own, by libdeflate, into one whole
/// gzip member: what `BlockGzipStream` writes one after another.
@Suite struct DeflateBlockTests {
    /// Text with repeats far apart and some noise, in records of one line each
    /// (the last one cut to make `count` bytes, still ending in a newline).
    static func text(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed | 1
        var bytes: [UInt8] = []
        while bytes.count < count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            bytes += Array("{\"event\":\"screen_\(state % 50)\",\"n\":\(state % 1000)}\n".utf8)
        }
        var text = Array(bytes[..<count])
        if count > 0 { text[count - 1] = 10 }
        return text
    }

    /// `data` compressed as one block at `level`.
    static func member(_ data: [UInt8], level: Int32 = 6, compressor: BlockCompressor = BlockCompressor()) -> DeflateBlock {
        let block = DeflateBlock(capacity: max(data.count, 1))
        data.withUnsafeBytes { block.append($0) }
        block.compress(with: compressor, level: level)
        return block
    }

    static func output(_ block: DeflateBlock) -> [UInt8] {
        Array(UnsafeBufferPointer(start: block.output, count: block.outputCount))
    }

    @Test func aBlockIsOneWholeGzipMemberWithTheCRCAndLengthOfItsBytes() {
        let data = DeflateBlockTests.text(300_000, seed: 3)
        let block = DeflateBlockTests.member(data)
        #expect(block.failure == nil)
        let gzip = DeflateBlockTests.output(block)
        let first = TestGzip.firstMember(gzip)
        #expect(first?.isWhole == true)
        #expect(sameBytes(first?.data, data))
        #expect(block.crc == TestGzip.crc32(data))
        let trailer = gzip.suffix(8).map(UInt32.init)
        #expect(trailer[0] | trailer[1] << 8 | trailer[2] << 16 | trailer[3] << 24 == TestGzip.crc32(data))
        #expect(trailer[4] | trailer[5] << 8 | trailer[6] << 16 | trailer[7] << 24 == UInt32(data.count))
        // The header zlib writes, with the level's flags.
        #expect(Array(gzip.prefix(10)) == GzipDeflater.header(level: 6))
    }

    @Test func levelsMapOntoLibdeflatesOneToTwelve() {
        let data = DeflateBlockTests.text(400_000, seed: 5)
        let sizes = [0, 1, 6, 9, 12].map { Int32($0) }.map { level in
            let block = DeflateBlockTests.member(data, level: level)
            #expect(block.failure == nil)
            #expect(sameBytes(TestGzip.decompress(DeflateBlockTests.output(block)), data))
            return (level, block.outputCount, DeflateBlockTests.output(block)[8])
        }
        // 0 stores, then each level at least as small as the one before.
        #expect(sizes[0].1 > data.count)
        for (before, after) in zip(sizes.dropFirst(), sizes.dropFirst(2)) { #expect(after.1 <= before.1) }
        // The header's XFL: fastest at 0 and 1, slowest from 9 on (libdeflate's 10-12 too).
        #expect(sizes.map(\.2) == [4, 4, 0, 2, 2])
        // zlib's "default" (-1) is 6.
        #expect(DeflateBlockTests.member(data, level: -1).outputCount == sizes[2].1)
    }

    @Test func aBlocksBytesDependOnlyOnItsInputNotOnTheCompressorOrWhatItDidBefore() {
        let data = DeflateBlockTests.text(200_000, seed: 17)
        let fresh = DeflateBlockTests.output(DeflateBlockTests.member(data))
        // One compressor that compressed other data at other levels first, as a pool thread does.
        let used = BlockCompressor()
        _ = DeflateBlockTests.member(DeflateBlockTests.text(70_000, seed: 19), level: 1, compressor: used)
        _ = DeflateBlockTests.member(DeflateBlockTests.text(70_000, seed: 23), level: 6, compressor: used)
        #expect(sameBytes(DeflateBlockTests.output(DeflateBlockTests.member(data, compressor: used)), fresh))
    }

    @Test func incompressibleInputStillFitsItsOutput() {
        let noise = CRC32Tests.bytes(100_000, seed: 29)
        let block = DeflateBlockTests.member(noise, level: 9)
        #expect(block.failure == nil)
        #expect(sameBytes(TestGzip.decompress(DeflateBlockTests.output(block)), noise))
    }

    @Test func aBlockOfNoFixedSizeGrowsAndItsTailMovesToTheNextBlock() {
        let data = DeflateBlockTests.text(1_000_000, seed: 31)
        let block = DeflateBlock(capacity: Int.max)
        for start in stride(from: 0, to: data.count, by: 100_000) {
            data[start..<(start + 100_000)].withUnsafeBytes { block.append($0) }
        }
        #expect(block.count == data.count && !block.isFull)
        let whole = block.wholeRecordBytes
        #expect(whole == data.lastIndex(of: 10)! + 1)
        let next = DeflateBlock(capacity: 16)
        block.moveTail(from: whole, to: next)
        #expect(block.count == whole)
        #expect(sameBytes(Array(UnsafeBufferPointer(start: next.input, count: next.count)), Array(data[whole...])))
        block.compress(with: BlockCompressor(), level: 6)
        #expect(sameBytes(TestGzip.decompress(DeflateBlockTests.output(block)), Array(data[..<whole])))
        // No newline: no whole record.
        #expect(DeflateBlockTests.member(Array("{\"a\":1}".utf8)).wholeRecordBytes == 0)
    }
}

/// Whether two byte strings are equal, as a plain Bool: a failed `#expect(a == b)`
/// over megabytes would have the test library diff them element by element.
private func sameBytes(_ a: [UInt8]?, _ b: [UInt8]?) -> Bool { a == b }
