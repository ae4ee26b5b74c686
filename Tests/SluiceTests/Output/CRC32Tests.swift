import CCRC32
import CZlib
import Testing

/// `sluice_crc32` (PCLMULQDQ folding on x86-64) against zlib's table CRC.
@Suite struct CRC32Tests {
    /// Deterministic bytes (xorshift), not compressible, not periodic.
    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed | 1
        return (0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }

    static func zlib(_ crc: UInt32, _ buffer: UnsafeRawBufferPointer) -> UInt32 {
        UInt32(crc32_z(uLong(crc), buffer.baseAddress?.assumingMemoryBound(to: Bytef.self), buffer.count))
    }

    static func fast(_ crc: UInt32, _ buffer: UnsafeRawBufferPointer) -> UInt32 {
        sluice_crc32(crc, buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), buffer.count)
    }

    @Test func equalsZlibForEveryLengthUpTo300AtEveryAlignment() {
        let data = CRC32Tests.bytes(300 + 16, seed: 1)
        data.withUnsafeBytes { all in
            for start in 0..<16 {
                for length in 0...300 {
                    let slice = UnsafeRawBufferPointer(rebasing: all[start..<start + length])
                    #expect(CRC32Tests.fast(0, slice) == CRC32Tests.zlib(0, slice), "start \(start), length \(length)")
                    #expect(CRC32Tests.fast(0xdead_beef, slice) == CRC32Tests.zlib(0xdead_beef, slice),
                            "start \(start), length \(length), continued")
                }
            }
        }
    }

    @Test func equalsZlibForLargeBuffersAtUnalignedStarts() {
        for (seed, count) in [(2, 65_536), (3, 1_000_003), (4, 4 * 1024 * 1024 + 77)] as [(UInt64, Int)] {
            let data = CRC32Tests.bytes(count, seed: seed)
            data.withUnsafeBytes { all in
                for start in [0, 1, 7, 13] {
                    let slice = UnsafeRawBufferPointer(rebasing: all[start...])
                    #expect(CRC32Tests.fast(0, slice) == CRC32Tests.zlib(0, slice), "count \(count), start \(start)")
                }
            }
        }
    }

    @Test func chainedOverSplitBuffersEqualsOneCallOverTheWhole() {
        let data = CRC32Tests.bytes(200_000, seed: 5)
        data.withUnsafeBytes { all in
            let whole = CRC32Tests.zlib(0, all)
            // Cuts that leave pieces under 64 bytes, not multiples of 16, and large ones.
            for cuts in [[1, 2, 3, 63, 64, 65, 100_000], [15, 16, 17, 79, 80, 81], [131_072], [199_999]] {
                var crc: UInt32 = 0
                var from = 0
                for cut in cuts + [all.count] {
                    crc = CRC32Tests.fast(crc, UnsafeRawBufferPointer(rebasing: all[from..<cut]))
                    from = cut
                }
                #expect(crc == whole, "cuts \(cuts)")
            }
        }
    }

    @Test func knownValues() {
        // The CRC-32 check value, and the empty input.
        #expect(Array("123456789".utf8).withUnsafeBytes { CRC32Tests.fast(0, $0) } == 0xcbf4_3926)
        #expect(CRC32Tests.fast(0, UnsafeRawBufferPointer(start: nil, count: 0)) == 0)
        #expect(CRC32Tests.fast(0x1234_5678, UnsafeRawBufferPointer(start: nil, count: 0)) == 0x1234_5678)
    }

    #if arch(x86_64)
    /// Every x86-64 CPU since 2010 has PCLMULQDQ and SSE4.1: the tests above
    /// must be checking the folding, not zlib against itself.
    @Test func onX86_64TheFoldingPathIsTheOneChecked() {
        #expect(sluice_crc32_uses_pclmul() == 1)
    }
    #endif
}
