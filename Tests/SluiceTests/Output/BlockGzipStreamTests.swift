import CZlib
import Foundation
import Testing
@testable import Sluice
import SluiceTestSupport

/// One file's gzip members, compressed in blocks on a pool of threads and written in order.
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

    /// Writes `data` in pieces of `pieceSize`, ending a member (a flush) `flushes`
    /// times at record boundaries; returns what the stream wrote.
    static func gzip(_ data: [UInt8], threads: Int, blockSize: Int, pieceSize: Int, flushes: Int = 1) throws -> [UInt8] {
        let pool = CompressionPool(threads: threads)
        defer { pool.shutdown() }
        let collected = Collected()
        let stream = BlockGzipStream(level: 6, label: "test", pool: pool, blockSize: blockSize) { (chunk) throws(OutputError) in
            try collected.sink(chunk)
        }
        // Flushes fall after the newline nearest each equal share, as the worker ends members between records.
        var ends: [Int] = []
        for part in 1...flushes {
            let target = data.count * part / flushes
            let end = part == flushes ? data.count : (data[target...].firstIndex(of: 10).map { $0 + 1 } ?? data.count)
            if end > (ends.last ?? 0) { ends.append(end) }
        }
        var start = 0
        for end in ends {
            for piece in stride(from: start, to: end, by: pieceSize) {
                try data[piece..<min(piece + pieceSize, end)].withUnsafeBytes { try stream.write($0) }
            }
            try stream.endMember()
            start = end
        }
        #expect(stream.compressedBytes == collected.bytes.count)
        return collected.bytes
    }

    @Test func everyBlockIsAMemberOfItsOwnEndingAfterARecord() throws {
        let data = DeflateBlockTests.text(1_000_000, seed: 31)
        #expect(data.last == 10)
        let gzip = try BlockGzipStreamTests.gzip(data, threads: 3, blockSize: 64 * 1024, pieceSize: 100_000)
        let members = try #require(TestGzip.members(gzip))
        #expect(members.count == 16)
        #expect(sameBytes(Array(members.joined()), data))
        #expect(members.allSatisfy { $0.last == 10 && $0.count <= 64 * 1024 })
        #expect(members.dropLast().allSatisfy { $0.count > 64 * 1024 - 100 })
    }

    @Test func theBytesWrittenAreTheSameWithOneThreadOrFourAndWhateverPiecesTheDataCameIn() throws {
        let data = DeflateBlockTests.text(700_000, seed: 37)
        let one = try BlockGzipStreamTests.gzip(data, threads: 1, blockSize: 32 * 1024, pieceSize: 7919, flushes: 3)
        let four = try BlockGzipStreamTests.gzip(data, threads: 4, blockSize: 32 * 1024, pieceSize: 128 * 1024, flushes: 3)
        let two = try BlockGzipStreamTests.gzip(data, threads: 2, blockSize: 32 * 1024, pieceSize: 1, flushes: 3)
        #expect(sameBytes(one, four))
        #expect(sameBytes(one, two))
        #expect(sameBytes(TestGzip.decompress(one), data))
        // Another block size is another file, of the same bytes.
        let larger = try BlockGzipStreamTests.gzip(data, threads: 2, blockSize: 128 * 1024, pieceSize: 7919, flushes: 3)
        #expect(larger != one)
        #expect(sameBytes(TestGzip.decompress(larger), data))
    }

    @Test func withNoBlockSizeAFileIsOneMemberPerFlush() throws {
        let data = DeflateBlockTests.text(3_000_000, seed: 39)
        let whole = try BlockGzipStreamTests.gzip(data, threads: 2, blockSize: Int.max, pieceSize: 128 * 1024)
        // What a one-member reader sees is all of it.
        let first = try #require(TestGzip.firstMember(whole))
        #expect(first.isWhole)
        #expect(sameBytes(first.data, data))
        let flushed = try BlockGzipStreamTests.gzip(data, threads: 2, blockSize: Int.max, pieceSize: 128 * 1024, flushes: 3)
        #expect(TestGzip.members(flushed)?.count == 3)
        #expect(sameBytes(TestGzip.decompress(flushed), data))
    }

    @Test func aRecordLongerThanABlockMakesABlockOfItsOwn() throws {
        let long = Array(("{\"pad\":\"" + String(repeating: "z", count: 10_000) + "\"}\n").utf8)
        let short = Array("{\"n\":1}\n".utf8)
        let data = short + long + short + short + long + long + short
        for pieceSize in [1000, 3, data.count] {
            let gzip = try BlockGzipStreamTests.gzip(data, threads: 2, blockSize: 4096, pieceSize: pieceSize)
            let members = try #require(TestGzip.members(gzip))
            #expect(sameBytes(Array(members.joined()), data))
            #expect(members.allSatisfy { $0.last == 10 })
            // The long record's block starts where it starts: the short one before it is a member of its own.
            #expect(members.first == short)
            #expect(members.contains(long))
        }
    }

    @Test func blocksOfExactlyWholeRecordsAreCutWhereTheyFill() throws {
        // 64-byte records: every 4 KiB block holds 64 of them exactly.
        let even = (0..<1000).flatMap { index in Array(("{\"n\":\(100_000 + index),\"pad\":\"" + String(repeating: "x", count: 42) + "\"}\n").utf8) }
        #expect(even.count == 64_000)
        let gzip = try BlockGzipStreamTests.gzip(even, threads: 2, blockSize: 4096, pieceSize: 1000)
        let members = try #require(TestGzip.members(gzip))
        #expect(members.count == 16)
        #expect(members.dropLast().allSatisfy { $0.count == 4096 })
        #expect(sameBytes(Array(members.joined()), even))
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
        #expect(sameBytes(TestGzip.decompress(collected.bytes), Array("a\n".utf8)))
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
        // Two members, then nothing more was attempted after the failure.
        #expect(collected.calls == 3)
        #expect(stream.failure == .writeFailed(path: "test", errno: ENOSPC))
        #expect(TestGzip.members(collected.bytes)?.count == 2)
    }
}

/// Whether two byte strings are equal, as a plain Bool: a failed `#expect(a == b)`
/// over megabytes would have the test library diff them element by element.
private func sameBytes(_ a: [UInt8]?, _ b: [UInt8]?) -> Bool { a == b }
