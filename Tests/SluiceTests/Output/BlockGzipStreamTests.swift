import CZlib
import Foundation
import Testing
@testable import Sluice
import SluiceTestSupport

/// One gzip stream deflated in blocks on a pool of threads and written in order.
@Suite struct BlockGzipStreamTests {
    /// What a stream wrote, and how many times it was called (by one thread at a time).
    ///
    /// Sendable: `sink` changes `bytes` and `calls` under `lock`; `failFromCall` is
    /// set before the stream is made, and the test reads the rest only after
    /// `endMember` or `waitIdle` returned, once no block is left in flight.
    final class Collected: @unchecked Sendable {
        let lock = NSLock()
        var bytes: [UInt8] = []
        var calls = 0
        /// Fail with ENOSPC from this call on (counting from 1).
        var failFromCall: Int?

        func sink(_ chunk: UnsafeRawBufferPointer) throws(OutputError) {
            lock.lock()
            defer { lock.unlock() }
            calls += 1
            if let failFromCall, calls >= failFromCall { throw .writeFailed(path: "test", errno: ENOSPC) }
            bytes += chunk
        }
    }

    /// Writes `data` in pieces of `pieceSize` and ends one member; returns what the stream wrote.
    static func gzip(_ data: [UInt8], threads: Int, blockSize: Int, pieceSize: Int, members: Int = 1) throws -> [UInt8] {
        let pool = CompressionPool(threads: threads)
        defer { pool.shutdown() }
        let collected = Collected()
        let stream = BlockGzipStream(level: 6, label: "test", pool: pool, blockSize: blockSize) { (chunk) throws(OutputError) in
            try collected.sink(chunk)
        }
        let memberSize = (data.count + members - 1) / members
        for start in stride(from: 0, to: data.count, by: memberSize) {
            let member = data[start..<min(start + memberSize, data.count)]
            for piece in stride(from: member.startIndex, to: member.endIndex, by: pieceSize) {
                try data[piece..<min(piece + pieceSize, member.endIndex)].withUnsafeBytes { try stream.write($0) }
            }
            try stream.endMember()
        }
        #expect(stream.compressedBytes == collected.bytes.count)
        return collected.bytes
    }

    @Test func aStreamOfManyBlocksIsOneGzipMemberWithTheCRCAndLengthOfItsBytes() throws {
        let data = DeflateBlockTests.text(1_000_000, seed: 31)
        let gzip = try BlockGzipStreamTests.gzip(data, threads: 3, blockSize: 64 * 1024, pieceSize: 100_000)
        let decoded = TestGzip.decompressCompleteMembers(gzip)
        #expect(decoded.members == 1)
        #expect(decoded.data == data)
        // The trailer: the CRC-32 of all the bytes (the blocks' combined) and their count.
        let crc = data.withUnsafeBytes { UInt32(crc32_z(0, $0.baseAddress!.assumingMemoryBound(to: Bytef.self), $0.count)) }
        let trailer = gzip.suffix(8).map(UInt32.init)
        #expect(trailer[0] | trailer[1] << 8 | trailer[2] << 16 | trailer[3] << 24 == crc)
        #expect(trailer[4] | trailer[5] << 8 | trailer[6] << 16 | trailer[7] << 24 == UInt32(data.count))
        // Within a few percent of one deflate stream over the same bytes.
        let single = TestGzip.compress(data, level: 6)
        #expect(Double(gzip.count) < Double(single.count) * 1.03)
    }

    @Test func theBytesWrittenAreTheSameWithOneThreadOrFourAndWhateverPiecesTheDataCameIn() throws {
        let data = DeflateBlockTests.text(700_000, seed: 37)
        let one = try BlockGzipStreamTests.gzip(data, threads: 1, blockSize: 32 * 1024, pieceSize: 7919, members: 3)
        let four = try BlockGzipStreamTests.gzip(data, threads: 4, blockSize: 32 * 1024, pieceSize: 128 * 1024, members: 3)
        let two = try BlockGzipStreamTests.gzip(data, threads: 2, blockSize: 32 * 1024, pieceSize: 1, members: 3)
        #expect(one == four)
        #expect(one == two)
        #expect(TestGzip.decompressCompleteMembers(one).members == 3)
        #expect(TestGzip.decompress(one) == data)
        // Another block size is another file, of the same bytes.
        let larger = try BlockGzipStreamTests.gzip(data, threads: 2, blockSize: 128 * 1024, pieceSize: 7919, members: 3)
        #expect(larger != one)
        #expect(TestGzip.decompress(larger) == data)
    }

    @Test func blocksMayEndInsideARecordOrExactlyBetweenRecords() throws {
        // 64-byte records: every 4 KiB block ends between two. 100-byte records: most blocks end inside one;
        // 64 KiB of them: the last block is full.
        let even = (0..<1000).flatMap { index in Array(("{\"n\":\(100_000 + index),\"pad\":\"" + String(repeating: "x", count: 42) + "\"}\n").utf8) }
        #expect(even.count == 64_000)
        let uneven = (0..<1000).flatMap { index in Array(("{\"n\":\(100_000 + index),\"pad\":\"" + String(repeating: "y", count: 78) + "\"}\n").utf8) }
        for data in [even, uneven, Array(uneven[..<(16 * 4096)])] {
            let gzip = try BlockGzipStreamTests.gzip(data, threads: 2, blockSize: 4096, pieceSize: 1000)
            #expect(TestGzip.decompressCompleteMembers(gzip).members == 1)
            #expect(TestGzip.decompress(gzip) == data)
        }
    }

    @Test func aMemberOfExactlyWholeBlocksEndsWithItsLastFullBlockNotAnEmptyOne() throws {
        let data = DeflateBlockTests.text(8 * 4096, seed: 41)
        let exact = try BlockGzipStreamTests.gzip(data, threads: 2, blockSize: 4096, pieceSize: 4096)
        let oneMore = try BlockGzipStreamTests.gzip(data + [10], threads: 2, blockSize: 4096, pieceSize: 4096)
        #expect(TestGzip.decompress(exact) == data)
        // The last full block ends the deflate stream itself: no sync marker and empty block after it.
        let blocks = DeflateBlockTests.blocks(data, capacity: 4096)
        #expect(exact.count == 10 + blocks.reduce(0) { $0 + $1.outputCount } + 8)
        #expect(TestGzip.decompress(oneMore) == data + [10])
    }

    @Test func anEmptyMemberWritesNothing() throws {
        let pool = CompressionPool(threads: 2)
        defer { pool.shutdown() }
        let collected = Collected()
        let stream = BlockGzipStream(level: 6, label: "test", pool: pool) { (chunk) throws(OutputError) in try collected.sink(chunk) }
        try [UInt8]().withUnsafeBytes { try stream.write($0) }
        #expect(try stream.endMember() == false)
        try Array("a\n".utf8).withUnsafeBytes { try stream.write($0) }
        #expect(try stream.endMember() == true)
        #expect(try stream.endMember() == false)
        #expect(TestGzip.decompressCompleteMembers(collected.bytes).members == 1)
        #expect(TestGzip.decompress(collected.bytes) == Array("a\n".utf8))
    }

    @Test func aFailedWriteStopsTheStreamAndSurfacesToItsOwner() throws {
        let pool = CompressionPool(threads: 2)
        defer { pool.shutdown() }
        let collected = Collected()
        collected.failFromCall = 3
        let stream = BlockGzipStream(level: 6, label: "test", pool: pool, blockSize: 4096) { (chunk) throws(OutputError) in
            try collected.sink(chunk)
        }
        let data = DeflateBlockTests.text(100_000, seed: 43)
        #expect(throws: OutputError.writeFailed(path: "test", errno: ENOSPC)) {
            for piece in stride(from: 0, to: data.count, by: 1000) {
                try data[piece..<(piece + 1000)].withUnsafeBytes { try stream.write($0) }
            }
            try stream.endMember()
        }
        stream.waitIdle()
        // The header and the first block, then nothing more was attempted after the failure.
        #expect(collected.calls == 3)
        #expect(stream.failure == .writeFailed(path: "test", errno: ENOSPC))
    }
}
