import CCRC32
import CZlib
import SluiceTestSupport
import Testing
@testable import Sluice

/// A block deflated on its own, with the bytes before it as dictionary: what
/// `BlockGzipStream` puts one after another.
@Suite struct DeflateBlockTests {
    /// Text with repeats far apart (so a dictionary can help) and some noise.
    static func text(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed | 1
        var bytes: [UInt8] = []
        while bytes.count < count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            bytes += Array("{\"event\":\"screen_\(state % 50)\",\"n\":\(state % 1000)}\n".utf8)
        }
        return Array(bytes[..<count])
    }

    /// Inflates raw deflate; nil unless the stream ends exactly at the end of `bytes`.
    static func inflateRaw(_ bytes: [UInt8]) -> [UInt8]? {
        let stream = TestGzip.inflateStream(bytes[...], windowBits: -MAX_WBITS)
        return stream.status == Z_STREAM_END && stream.consumed == bytes.count ? stream.output : nil
    }

    /// Cuts `data` into blocks of `capacity`, each after the one before, and deflates them.
    static func blocks(_ data: [UInt8], capacity: Int, level: Int32 = 6,
                       compressor: BlockCompressor = BlockCompressor()) -> [DeflateBlock] {
        var blocks: [DeflateBlock] = []
        var offset = 0
        repeat {
            let block = DeflateBlock(capacity: capacity)
            block.reset(after: blocks.last)
            let taken = data[offset...].withUnsafeBytes { block.fill($0) }
            offset += taken
            block.isLast = offset == data.count
            blocks.append(block)
        } while offset < data.count
        for block in blocks { block.compress(with: compressor, level: level) }
        return blocks
    }

    static func output(_ block: DeflateBlock) -> [UInt8] {
        Array(UnsafeBufferPointer(start: block.output, count: block.outputCount))
    }

    @Test func blocksDeflatedApartAreOneDeflateStreamOfTheirBytesInOrder() {
        let data = DeflateBlockTests.text(300_000, seed: 3)
        let blocks = DeflateBlockTests.blocks(data, capacity: 64 * 1024)
        #expect(blocks.count == 5)
        #expect(blocks.allSatisfy { $0.failure == nil })
        #expect(DeflateBlockTests.inflateRaw(blocks.flatMap(DeflateBlockTests.output)) == data)
    }

    @Test func theBytesBeforeABlockServeAsItsDictionary() {
        // The second block repeats the first: with the first as dictionary it is a few back-references.
        let half = DeflateBlockTests.text(20_000, seed: 5)
        let primed = DeflateBlockTests.blocks(half + half, capacity: 20_000)
        let alone = DeflateBlockTests.blocks(half, capacity: 20_000)
        #expect(primed[1].dictionaryCount == 20_000)
        #expect(primed[1].outputCount * 5 < alone[0].outputCount)
        #expect(DeflateBlockTests.inflateRaw(primed.flatMap(DeflateBlockTests.output)) == half + half)
    }

    @Test func blocksSmallerThanTheWindowTakeTheirDictionaryFromSeveralBlocksBefore() {
        let data = DeflateBlockTests.text(50_000, seed: 7)
        let blocks = DeflateBlockTests.blocks(data, capacity: 1000)
        #expect(blocks[1].dictionaryCount == 1000)
        #expect(blocks[40].dictionaryCount == DeflateBlock.dictionaryCapacity)
        let before = Array(data[(40_000 - DeflateBlock.dictionaryCapacity)..<40_000])
        #expect(Array(UnsafeBufferPointer(start: blocks[40].dictionary, count: blocks[40].dictionaryCount)) == before)
        #expect(DeflateBlockTests.inflateRaw(blocks.flatMap(DeflateBlockTests.output)) == data)
    }

    @Test func eachBlocksCRCIsThatOfItsOwnBytesAndTheyCombineToTheWholes() {
        let data = DeflateBlockTests.text(100_000, seed: 11)
        let blocks = DeflateBlockTests.blocks(data, capacity: 32 * 1024)
        var combined: uLong = 0
        var offset = 0
        for block in blocks {
            let own = data[offset..<(offset + block.count)].withUnsafeBytes {
                sluice_crc32(0, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), $0.count)
            }
            #expect(block.crc == own)
            combined = crc32_combine(combined, uLong(block.crc), .init(block.count))
            offset += block.count
        }
        let whole = data.withUnsafeBytes { crc32_z(0, $0.baseAddress!.assumingMemoryBound(to: Bytef.self), $0.count) }
        #expect(combined == whole)
    }

    @Test func anEmptyLastBlockEndsTheStream() {
        let data = DeflateBlockTests.text(4096, seed: 13)
        // The member's bytes ended exactly at a block's end: a last block with nothing in it closes the stream.
        let full = DeflateBlock(capacity: 4096)
        full.reset(after: nil)
        _ = data.withUnsafeBytes { full.fill($0) }
        let empty = DeflateBlock(capacity: 4096)
        empty.reset(after: full)
        empty.isLast = true
        let compressor = BlockCompressor()
        full.compress(with: compressor, level: 6)
        empty.compress(with: compressor, level: 6)
        #expect(empty.failure == nil)
        #expect(empty.crc == 0)
        #expect(empty.outputCount > 0 && empty.outputCount <= 8)
        #expect(DeflateBlockTests.inflateRaw(DeflateBlockTests.output(full) + DeflateBlockTests.output(empty)) == data)
        // Alone, it is a complete stream of nothing.
        let nothing = DeflateBlock(capacity: 16)
        nothing.reset(after: nil)
        nothing.isLast = true
        nothing.compress(with: compressor, level: 6)
        #expect(DeflateBlockTests.inflateRaw(DeflateBlockTests.output(nothing)) == [])
    }

    @Test func aBlocksBytesDependOnlyOnItsInputNotOnTheCompressorOrWhatItDidBefore() {
        let data = DeflateBlockTests.text(200_000, seed: 17)
        let fresh = DeflateBlockTests.blocks(data, capacity: 50_000).map(DeflateBlockTests.output)
        // One compressor that deflated other data at other levels first, as a pool thread does.
        let used = BlockCompressor()
        _ = DeflateBlockTests.blocks(DeflateBlockTests.text(70_000, seed: 19), capacity: 30_000, level: 1, compressor: used)
        _ = DeflateBlockTests.blocks(DeflateBlockTests.text(70_000, seed: 23), capacity: 30_000, level: 6, compressor: used)
        let again = DeflateBlockTests.blocks(data, capacity: 50_000, compressor: used).map(DeflateBlockTests.output)
        #expect(fresh == again)
    }

    @Test func incompressibleInputStillFitsItsBlock() {
        let noise = CRC32Tests.bytes(100_000, seed: 29)
        let blocks = DeflateBlockTests.blocks(noise, capacity: 100_000 / 3 + 1, level: 9)
        #expect(blocks.allSatisfy { $0.failure == nil })
        #expect(DeflateBlockTests.inflateRaw(blocks.flatMap(DeflateBlockTests.output)) == noise)
    }
}
