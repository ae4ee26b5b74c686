// Unsafe code: the hash reads its input eight and four bytes at a time with
// `loadUnaligned` from an `UnsafeRawBufferPointer`, the speed a hash of every
// message id and device id needs on the reading thread. Every load's offset is
// bounded by `count` by the branches on length; the bytes belong to the caller.

/// A fixed 64-bit hash of bytes, the same on every run and every machine.
///
/// Swift's `Hasher` is seeded per process, so a hash kept in state (a seen
/// message id, a device key) would differ between runs: replaying a day's
/// files could then decide differently, and state carried to the next run
/// could not be read back. This is a wyhash-style construction (64×64→128
/// multiply, high and low halves folded); it is not keyed, and not meant to
/// resist someone who chooses colliding inputs on purpose.
///
/// The `dedupe` and `session` stages use it for message ids, payloads and
/// device keys; only equality of hashes ever decides anything.
enum StableHash {
    private static let p0: UInt64 = 0xa076_1d64_78bd_642f
    private static let p1: UInt64 = 0xe703_7ed1_a0b4_28db
    private static let p2: UInt64 = 0x8ebc_6af0_9c88_c6e3
    private static let p3: UInt64 = 0x5899_65cc_7537_4cc3

    /// Seeds that give independent hashes of the same bytes.
    static let seedA: UInt64 = 0x5157_3a1c_2f9d_0e41
    static let seedB: UInt64 = 0x9e37_79b9_7f4a_7c15

    @inline(__always)
    static func mix(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let product = a.multipliedFullWidth(by: b)
        return product.high ^ product.low
    }

    @inline(__always)
    private static func read8(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    @inline(__always)
    private static func read4(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        UInt64(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
    }

    /// The hash of bytes lent as a span.
    @inline(__always)
    static func hash(_ bytes: Span<UInt8>, seed: UInt64 = seedA) -> UInt64 {
        bytes.withUnsafeBytes { hash($0, seed: seed) }
    }

    /// The hash of `bytes` under `seed`.
    static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = seedA) -> UInt64 {
        let count = bytes.count
        var seed = seed ^ mix(seed ^ p0, p1)
        var a: UInt64 = 0
        var b: UInt64 = 0
        if count <= 16 {
            if count >= 4 {
                let quarter = (count >> 3) << 2
                a = read4(bytes, 0) << 32 | read4(bytes, quarter)
                b = read4(bytes, count - 4) << 32 | read4(bytes, count - 4 - quarter)
            } else if count > 0 {
                a = UInt64(bytes[0]) << 16 | UInt64(bytes[count >> 1]) << 8 | UInt64(bytes[count - 1])
            }
        } else {
            var offset = 0
            var remaining = count
            if remaining > 48 {
                var second = seed
                var third = seed
                repeat {
                    seed = mix(read8(bytes, offset) ^ p1, read8(bytes, offset + 8) ^ seed)
                    second = mix(read8(bytes, offset + 16) ^ p2, read8(bytes, offset + 24) ^ second)
                    third = mix(read8(bytes, offset + 32) ^ p3, read8(bytes, offset + 40) ^ third)
                    offset += 48
                    remaining -= 48
                } while remaining > 48
                seed ^= second ^ third
            }
            while remaining > 16 {
                seed = mix(read8(bytes, offset) ^ p1, read8(bytes, offset + 8) ^ seed)
                offset += 16
                remaining -= 16
            }
            a = read8(bytes, count - 16)
            b = read8(bytes, count - 8)
        }
        a ^= p1
        b ^= seed
        let product = a.multipliedFullWidth(by: b)
        return mix(product.low ^ p0 ^ UInt64(count), product.high ^ p1)
    }

    static func hash(_ bytes: [UInt8], seed: UInt64 = seedA) -> UInt64 {
        bytes.withUnsafeBytes { hash($0, seed: seed) }
    }

    static func hash(_ text: String, seed: UInt64 = seedA) -> UInt64 {
        hash(Array(text.utf8), seed: seed)
    }

    /// Folds two hashes into one, order-dependent (`combine(a, b) != combine(b, a)`).
    @inline(__always)
    static func combine(_ a: UInt64, _ b: UInt64) -> UInt64 {
        mix(a ^ p2, b ^ p3) ^ a
    }
}
