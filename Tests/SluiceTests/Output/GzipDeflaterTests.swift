import CZlib
import Foundation
import Testing
@testable import Sluice
import SluiceTestSupport

/// GzipDeflater writes raw deflate inside a gzip wrapper of its own; its
/// files must be byte for byte what zlib's gzip wrapper writes.
@Suite struct GzipDeflaterTests {
    /// zlib's own gzip wrapper (`16 + MAX_WBITS`), driven exactly as
    /// GzipDeflater drives deflate: same output buffer size, same calls.
    final class ZlibGzipWrapper {
        var stream = z_stream()
        var out = [UInt8](repeating: 0, count: GzipDeflater.outCapacity)
        var outCount = 0
        var written: [UInt8] = []

        init(level: Int32) { _ = sluice_deflateInit2(&stream, level, 16 + MAX_WBITS) }
        deinit { deflateEnd(&stream) }

        private func step(_ flush: Int32) -> Int32 {
            let status: Int32 = out.withUnsafeMutableBufferPointer { buffer in
                stream.next_out = buffer.baseAddress! + outCount
                stream.avail_out = uInt(buffer.count - outCount)
                let status = deflate(&stream, flush)
                outCount = buffer.count - Int(stream.avail_out)
                return status
            }
            if outCount == out.count { flushOutput() }
            return status
        }

        private func flushOutput() {
            written += out[..<outCount]
            outCount = 0
        }

        func compress(_ data: [UInt8]) {
            var data = data
            data.withUnsafeMutableBufferPointer { input in
                stream.next_in = input.baseAddress
                stream.avail_in = uInt(input.count)
                while stream.avail_in > 0 { _ = step(Z_NO_FLUSH) }
            }
        }

        func endMember() {
            stream.next_in = nil
            stream.avail_in = 0
            while step(Z_FINISH) != Z_STREAM_END {}
            flushOutput()
            deflateReset(&stream)
        }
    }

    /// NDJSON-like lines from a fixed seed: compressible, like real output.
    static func lines(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed | 1
        var bytes: [UInt8] = []
        for index in 0..<count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            bytes += Array("{\"event\":\"e\(state % 97)\",\"n\":\(index),\"id\":\"\(String(state, radix: 16))\"}\n".utf8)
        }
        return bytes
    }

    /// Where two outputs first differ (nil when equal), so a failure names an offset, not megabytes.
    static func firstDifference(_ a: [UInt8], _ b: [UInt8]) -> Int? {
        let common = min(a.count, b.count)
        let same = a.withUnsafeBytes { x in b.withUnsafeBytes { y in memcmp(x.baseAddress!, y.baseAddress!, common) == 0 } }
        if same { return a.count == b.count ? nil : common }
        return (0..<common).first { a[$0] != b[$0] }
    }

    /// Members, each a list of compress() calls; both writers get the same calls.
    static func both(level: Int32, members: [[[UInt8]]]) throws -> (ours: [UInt8], zlib: [UInt8]) {
        let deflater = GzipDeflater(level: level, label: "test")
        let reference = ZlibGzipWrapper(level: level)
        var ours: [UInt8] = []
        let sink: (UnsafeRawBufferPointer) throws(OutputError) -> Void = { ours += $0 }
        for member in members {
            for piece in member {
                try piece.withUnsafeBytes { try deflater.compress($0, sink: sink) }
                reference.compress(piece)
            }
            try deflater.endMember(sink: sink)
            if !member.joined().isEmpty { reference.endMember() }
        }
        return (ours, reference.written)
    }

    @Test(arguments: [0, 1, 6, 9] as [Int32])
    func aSingleMemberIsByteForByteZlibsGzip(level: Int32) throws {
        for input in [Array("x".utf8), GzipDeflaterTests.lines(2_000, seed: 1), GzipDeflaterTests.lines(60_000, seed: 2)] {
            // Whole, and in uneven pieces (the last ones under 64 bytes).
            let pieces = stride(from: 0, to: input.count, by: 40_009).map { Array(input[$0..<min($0 + 40_009, input.count)]) }
            for calls in [[input], pieces] {
                let (ours, zlib) = try GzipDeflaterTests.both(level: level, members: [calls])
                #expect(GzipDeflaterTests.firstDifference(ours, zlib) == nil,
                        "level \(level), \(input.count) bytes in \(calls.count) calls")
                #expect(TestGzip.decompress(ours).map { $0 == input } == true, "gunzips to the input")
            }
        }
    }

    @Test(arguments: [0, 1, 6, 9] as [Int32])
    func multipleMembersAreByteForByteZlibsGzip(level: Int32) throws {
        let big = GzipDeflaterTests.lines(40_000, seed: 3)
        let members: [[[UInt8]]] = [
            [Array("first\n".utf8)],
            [],  // an empty member writes nothing
            [Array(big[..<1_000_000]), Array(big[1_000_000...])],
            [Array("{\"last\":true}\n".utf8), Array("tail".utf8)],
        ]
        let (ours, zlib) = try GzipDeflaterTests.both(level: level, members: members)
        #expect(GzipDeflaterTests.firstDifference(ours, zlib) == nil, "level \(level)")
        #expect(TestGzip.decompressCompleteMembers(ours).members == 3)
        #expect(TestGzip.decompress(ours).map { $0 == Array(members.joined().joined()) } == true, "gunzips to the input")
    }

    @Test func theHeaderIsZlibsForEachLevel() {
        // XFL: 2 for level 9, 4 for levels 0 and 1, else 0; then zlib's OS code.
        for (level, extraFlags) in [(-1, 0), (0, 4), (1, 4), (2, 0), (6, 0), (8, 0), (9, 2)] as [(Int32, UInt8)] {
            let header = GzipDeflater.header(level: level)
            #expect(header == [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, extraFlags, GzipDeflater.zlibOSCode], "level \(level)")
            #expect(Array(TestGzip.compress(Array("x".utf8), level: level).prefix(10)) == header, "level \(level)")
        }
        #if os(Linux)
        #expect(GzipDeflater.zlibOSCode == 3)  // Unix
        #endif
    }

    @Test func anEmptyMemberWritesNothing() throws {
        let deflater = GzipDeflater(level: 6, label: "test")
        var written = 0
        try deflater.endMember { written += $0.count }
        try [UInt8]().withUnsafeBytes { bytes in
            try deflater.compress(bytes) { written += $0.count }
        }
        try deflater.endMember { written += $0.count }
        #expect(written == 0)
    }
}
