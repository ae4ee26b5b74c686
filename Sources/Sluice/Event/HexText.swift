// Unsafe code: the eight ASCII digits made in one word are appended through
// `withUnsafeBytes(of:)` (no array per id), and input bytes are read four at a
// time with `loadUnaligned`. Loads stop at `offset + 4 <= count`, and the
// word's bytes live on the stack for the length of the append.

import SluiceJSON

/// Lowercase hexadecimal text, eight digits at a time: insert ids, session
/// ids and pseudonyms all write it, one record or event at a time.
enum HexText {
    /// The eight lowercase hex digits of `value`, most significant first, as
    /// the bytes of a word in memory order (SWAR: the nibbles are spread one
    /// per byte, then made ASCII digits or letters without a branch).
    @inline(__always)
    static func eightDigits(_ value: UInt32) -> UInt64 {
        var spread = UInt64(value)
        spread = (spread | spread << 16) & 0x0000_FFFF_0000_FFFF
        spread = (spread | spread << 8) & 0x00FF_00FF_00FF_00FF
        spread = (spread | spread << 4) & 0x0F0F_0F0F_0F0F_0F0F
        // Byte i holds nibble i (least significant first); 1 where it is 10 or more.
        let letters = ((spread &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
        let ascii = spread &+ 0x3030_3030_3030_3030 &+ letters &* 0x27
        return UInt64(bigEndian: ascii)
    }

    /// Appends the 16 digits of `word`, most significant first.
    @inline(__always)
    static func append<Out: ByteSink>(_ word: UInt64, to out: inout Out) {
        let digits = (eightDigits(UInt32(truncatingIfNeeded: word >> 32)), eightDigits(UInt32(truncatingIfNeeded: word)))
        withUnsafeBytes(of: digits) { out.append(raw: $0) }
    }

    /// Appends two digits per byte of `bytes`, in order.
    static func append<Out: ByteSink>(bytes: UnsafeRawBufferPointer, to out: inout Out) {
        var offset = 0
        while offset + 4 <= bytes.count {
            let word = UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            withUnsafeBytes(of: eightDigits(word)) { out.append(raw: $0) }
            offset += 4
        }
        while offset < bytes.count {
            withUnsafeBytes(of: eightDigits(UInt32(bytes[offset]))) { out.append(raw: UnsafeRawBufferPointer(rebasing: $0[6..<8])) }
            offset += 1
        }
    }
}
