// Unsafe code: a block's input and output are allocated buffers, because
// libdeflate's C API takes raw pointers. The block owns them (freed in deinit),
// `append` grows the input before it copies, and libdeflate is given only the
// output room left after the gzip header (grown to its bound first).

import CCRC32
import CLibDeflate
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One block of a file's records, compressed on its own into one whole gzip
/// member (header, raw deflate by libdeflate, CRC-32 and length): every block
/// of a file is independently readable, as in BGZF, and a file of them
/// is an ordinary multi-member gzip file. The bytes of a member depend only on
/// the block's bytes and the level, never on which thread compressed it or when.
///
/// Its buffers are allocated once and reused block after block
/// (`CompressionPool` keeps the spares), so a block costs no allocation.
///
/// Sendable: used by one thread at a time, handed on under a lock each time:
/// filled by its stream's owner, compressed by the pool thread that took it off
/// the pool's queue, written by the stream's writer (through `compressed`, under
/// `condition`), and back to an owner through the pool's spares (`sparesLock`).
final class DeflateBlock: @unchecked Sendable {
    static let headerBytes = 10
    static let trailerBytes = 8

    /// Where its stream cuts it (after the last record that fits); `Int.max`: never (a member per file).
    let capacity: Int
    private(set) var input: UnsafeMutablePointer<UInt8>
    private var inputCapacity: Int
    private(set) var count = 0
    /// Where the block is in its stream, for writing in order.
    var sequence = 0

    // Set by `compress(with:level:)`.
    private(set) var output: UnsafeMutablePointer<UInt8>
    private var outputCapacity: Int
    /// The whole member's bytes in `output`: header, deflate, trailer.
    private(set) var outputCount = 0
    /// CRC-32 of `input[0..<count]`.
    private(set) var crc: UInt32 = 0
    /// Why compressing failed (an out-of-memory compressor), nil when it did not.
    private(set) var failure: Int32?

    /// The input buffer a block starts with when it has no fixed size.
    static let initialFileCapacity = 256 * 1024

    init(capacity: Int) {
        self.capacity = capacity
        inputCapacity = capacity == Int.max ? DeflateBlock.initialFileCapacity : capacity
        input = .allocate(capacity: inputCapacity)
        outputCapacity = DeflateBlock.outputBound(inputCapacity)
        output = .allocate(capacity: outputCapacity)
    }

    deinit {
        input.deallocate()
        output.deallocate()
    }

    /// libdeflate's worst case for `count` bytes at any level, and the gzip wrapper.
    static func outputBound(_ count: Int) -> Int {
        libdeflate_deflate_compress_bound(nil, count) + headerBytes + trailerBytes
    }

    var isFull: Bool { count >= capacity }

    /// Empties the block for the next bytes.
    func reset() {
        count = 0
        outputCount = 0
        failure = nil
    }

    /// Appends `bytes`, growing the input when they do not fit.
    func append(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        reserve(count + bytes.count)
        (input + count).update(from: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        count += bytes.count
    }

    /// The length of the block's whole records: up to and with its last newline; 0 when it has none.
    var wholeRecordBytes: Int {
        // Backwards from the end: a record is a few hundred bytes, so this reads about one.
        var end = count
        while end > 0 && input[end - 1] != 0x0A { end -= 1 }
        return end
    }

    /// Moves the bytes from `length` on to `next` (emptied first); this block keeps the first `length`.
    func moveTail(from length: Int, to next: DeflateBlock) {
        next.reset()
        next.append(UnsafeRawBufferPointer(start: input + length, count: count - length))
        count = length
    }

    private func reserve(_ needed: Int) {
        guard needed > inputCapacity else { return }
        var larger = inputCapacity
        while larger < needed { larger *= 2 }
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        grown.update(from: input, count: count)
        input.deallocate()
        input = grown
        inputCapacity = larger
    }

    /// Compresses the block into one gzip member at `level` (libdeflate's 0-12) with `compressor`'s state.
    func compress(with compressor: BlockCompressor, level: Int32) {
        outputCount = 0
        crc = count > 0 ? sluice_crc32(0, input, count) : 0
        guard let state = compressor.compressor(level: level) else {
            failure = -4  // Z_MEM_ERROR's number: libdeflate could not allocate its state.
            return
        }
        let bound = DeflateBlock.outputBound(count)
        if outputCapacity < bound {
            output.deallocate()
            output = .allocate(capacity: bound)
            outputCapacity = bound
        }
        GzipDeflater.writeHeader(level: level, to: output)
        let deflated = libdeflate_deflate_compress(state, input, count, output + DeflateBlock.headerBytes,
                                                   outputCapacity - DeflateBlock.headerBytes - DeflateBlock.trailerBytes)
        // Within the bound libdeflate never runs out of room; 0 would mean it did.
        guard deflated > 0 else {
            failure = -5  // Z_BUF_ERROR's number.
            return
        }
        var end = DeflateBlock.headerBytes + deflated
        for value in [crc, UInt32(truncatingIfNeeded: count)] {
            for shift in stride(from: 0, to: 32, by: 8) {
                output[end] = UInt8(truncatingIfNeeded: value >> UInt32(shift))
                end += 1
            }
        }
        outputCount = end
    }
}

/// A compression thread's libdeflate compressors, one per level it was asked
/// for, kept for the thread's life (a compressor is hundreds of KiB of state
/// at the middle levels). Used by one thread at a time.
final class BlockCompressor {
    private var compressors: [Int32: OpaquePointer] = [:]

    init() {}

    deinit {
        for compressor in compressors.values { libdeflate_free_compressor(compressor) }
    }

    /// The compressor for `level` (libdeflate's 0-12; -1, zlib's "default", is 6); nil if libdeflate could not make one.
    func compressor(level: Int32) -> OpaquePointer? {
        if let compressor = compressors[level] { return compressor }
        guard let compressor = libdeflate_alloc_compressor(level < 0 ? 6 : level) else { return nil }
        compressors[level] = compressor
        return compressor
    }
}
