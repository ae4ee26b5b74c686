// Unsafe code: HMAC-SHA-256 runs on the C compression function
// (`sluice_sha256_blocks`), which reads whole 64-byte blocks through a
// pointer: the message's blocks where they are, its padded tail and the outer
// block on the stack. Every pointer is made inside the closure that lends the
// bytes, for exactly the blocks the buffer holds.

import CSHA256
import Crypto

/// HMAC-SHA-256 (RFC 2104) with the key's two padded blocks hashed once, at
/// startup: each value then costs its own SHA-256 blocks and the outer one,
/// run on SHA-256's compression function (`sluice_sha256_blocks`: the CPU's
/// SHA extensions where it has them) with the padding written on the stack.
/// Nothing is allocated per value: swift-crypto's `HMAC(key:)` redoes the key
/// set-up for every value, and its `SHA256` copies a heap-allocated context
/// before each update and finalization, several thousand instructions a value.
/// The result is HMAC's, byte for byte (`KeyedSHA256Tests` checks it against
/// swift-crypto's `HMAC<SHA256>` for short, block-sized and long keys and
/// messages of every length up to three blocks, and RFC 4231's vectors).
struct KeyedSHA256 {
    /// SHA-256's working words having absorbed the key XOR ipad, and the key XOR opad.
    private let inner: SIMD8<UInt32>
    private let outer: SIMD8<UInt32>
    private static let blockSize = 64
    /// FIPS 180-4, 5.3.3.
    private static let initial = SIMD8<UInt32>(0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a,
                                               0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19)

    init(key: SymmetricKey) {
        var block = [UInt8](repeating: 0, count: KeyedSHA256.blockSize)
        key.withUnsafeBytes { bytes in
            if bytes.count > KeyedSHA256.blockSize {
                // A key longer than a block is replaced by its hash.
                SHA256.hash(data: bytes).withUnsafeBytes { digest in
                    for index in digest.indices { block[index] = digest[index] }
                }
            } else {
                for index in bytes.indices { block[index] = bytes[index] }
            }
        }
        inner = KeyedSHA256.compressing(KeyedSHA256.initial, block.map { $0 ^ 0x36 })
        outer = KeyedSHA256.compressing(KeyedSHA256.initial, block.map { $0 ^ 0x5C })
    }

    private static func compressing(_ state: SIMD8<UInt32>, _ block: [UInt8]) -> SIMD8<UInt32> {
        var state = state
        block.withUnsafeBufferPointer { compress(&state, $0.baseAddress!, blocks: 1) }
        return state
    }

    @inline(__always)
    private static func compress(_ state: inout SIMD8<UInt32>, _ bytes: UnsafePointer<UInt8>, blocks: Int) {
        withUnsafeMutablePointer(to: &state) {
            $0.withMemoryRebound(to: UInt32.self, capacity: 8) { sluice_sha256_blocks($0, bytes, blocks) }
        }
    }

    /// The 32-byte code of `message`, handed to `body`.
    func withCode<R>(of message: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        // Inner hash: the message's whole blocks where they are, then its tail, padded, on the stack.
        var state = inner
        let whole = message.count / KeyedSHA256.blockSize
        if whole > 0 {
            KeyedSHA256.compress(&state, message.baseAddress!.assumingMemoryBound(to: UInt8.self), blocks: whole)
        }
        let rest = message.count - whole * KeyedSHA256.blockSize
        var tail = SIMD16<UInt64>()  // two blocks, zeroed
        withUnsafeMutableBytes(of: &tail) { buffer in
            if rest > 0 {
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: message[(whole * KeyedSHA256.blockSize)...]))
            }
            buffer[rest] = 0x80
            // The length in bits, counting the key's block, closes the last block.
            let blocks = rest + 9 <= KeyedSHA256.blockSize ? 1 : 2
            let bits = UInt64(KeyedSHA256.blockSize + message.count) &* 8
            buffer.storeBytes(of: bits.bigEndian, toByteOffset: blocks * KeyedSHA256.blockSize - 8, as: UInt64.self)
            KeyedSHA256.compress(&state, buffer.bindMemory(to: UInt8.self).baseAddress!, blocks: blocks)
        }
        // Outer hash: the inner digest and its padding fill one block.
        var block = SIMD8<UInt64>()
        withUnsafeMutableBytes(of: &block) { buffer in
            for index in 0..<8 { buffer.storeBytes(of: state[index].bigEndian, toByteOffset: index * 4, as: UInt32.self) }
            buffer[32] = 0x80
            buffer.storeBytes(of: UInt64((KeyedSHA256.blockSize + 32) * 8).bigEndian, toByteOffset: 56, as: UInt64.self)
            state = outer
            KeyedSHA256.compress(&state, buffer.bindMemory(to: UInt8.self).baseAddress!, blocks: 1)
        }
        var digest = SIMD8<UInt32>()
        for index in 0..<8 { digest[index] = state[index].bigEndian }
        return withUnsafeBytes(of: &digest, body)
    }

    /// Appends the code of `message` as 64 lowercase hex digits.
    func appendHex(of message: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        withCode(of: message) { HexText.append(bytes: $0, to: &out) }
    }

    /// The same for a message lent as a span.
    func appendHex(of message: Span<UInt8>, to out: inout [UInt8]) {
        message.withUnsafeBytes { appendHex(of: $0, to: &out) }
    }
}
