// Unsafe code: a block's input, dictionary and output are allocated buffers and
// its zlib streams `UnsafeMutablePointer<z_stream>`s, because zlib's C API
// takes raw pointers and keeps the stream's address. The block owns its buffers
// (freed in deinit), `fill` copies below `capacity`, and zlib is given only the
// output room left (`grow` doubles it when full). `BlockCompressor` owns its
// streams for its thread's life.

import CCRC32
import CZlib

/// One block of a gzip member's uncompressed bytes, compressed on its own
/// (pigz's way): raw deflate primed with the last 32 KiB before the block as
/// its dictionary, ended on a byte boundary (`Z_SYNC_FLUSH`), or the
/// member's last block ended with `Z_FINISH`. Blocks compressed apart and
/// written one after another are one valid deflate stream, and the bytes of
/// each depend only on its input, its dictionary, the level and whether it
/// is last: never on which thread compressed it or when.
///
/// Its buffers are allocated once and reused block after block
/// (`CompressionPool` keeps the spares), so a block costs no allocation.
///
/// Sendable: used by one thread at a time, handed on under a lock each time:
/// filled by its stream's owner, compressed by the pool thread that took it off
/// the pool's queue, written by the stream's writer (through `compressed`, under
/// `condition`), and back to an owner through the pool's spares (`sparesLock`).
final class DeflateBlock: @unchecked Sendable {
    /// The window deflate can look back over: the most of the bytes before a block that can serve it as dictionary.
    static let dictionaryCapacity = 32 * 1024

    let capacity: Int
    let input: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    /// The bytes right before this block in its member (empty for a member's first block).
    let dictionary: UnsafeMutablePointer<UInt8>
    private(set) var dictionaryCount = 0
    /// The deflate stream's last block: ends it (`Z_FINISH`) rather than on a byte boundary.
    var isLast = false
    /// The first block of its gzip member: the gzip header goes before it.
    var isFirstInMember = false
    /// Where the block is in its stream, for writing in order.
    var sequence = 0

    // Set by `compress(with:)`.
    private(set) var output: UnsafeMutablePointer<UInt8>
    private(set) var outputCapacity: Int
    private(set) var outputCount = 0
    /// CRC-32 of `input[0..<count]` alone, to be combined with the member's.
    private(set) var crc: UInt32 = 0
    /// zlib's status when compressing failed, nil when it did not.
    private(set) var failure: Int32?

    init(capacity: Int) {
        self.capacity = capacity
        input = .allocate(capacity: capacity)
        dictionary = .allocate(capacity: DeflateBlock.dictionaryCapacity)
        // Enough for incompressible input with its stored blocks' headers and the flush marker; grown if ever short.
        outputCapacity = capacity + capacity / 16 + 64
        output = .allocate(capacity: outputCapacity)
    }

    deinit {
        input.deallocate()
        dictionary.deallocate()
        output.deallocate()
    }

    var isFull: Bool { count == capacity }

    /// Empties the block for the next bytes; `after` is the block before it in
    /// the same member (its tail becomes the dictionary), nil for a member's first.
    func reset(after previous: DeflateBlock?) {
        count = 0
        isLast = false
        isFirstInMember = previous == nil
        outputCount = 0
        failure = nil
        guard let previous else {
            dictionaryCount = 0
            return
        }
        // The bytes right before this block: the previous block's tail, and
        // when that block is shorter than the window, its dictionary's tail before it.
        let fromPrevious = min(previous.count, DeflateBlock.dictionaryCapacity)
        let fromEarlier = min(previous.dictionaryCount, DeflateBlock.dictionaryCapacity - fromPrevious)
        dictionary.update(from: previous.dictionary + (previous.dictionaryCount - fromEarlier), count: fromEarlier)
        (dictionary + fromEarlier).update(from: previous.input + (previous.count - fromPrevious), count: fromPrevious)
        dictionaryCount = fromEarlier + fromPrevious
    }

    /// Copies as much of `bytes` as fits; returns how many bytes it took.
    func fill(_ bytes: UnsafeRawBufferPointer) -> Int {
        let taken = min(bytes.count, capacity - count)
        guard taken > 0 else { return 0 }
        (input + count).update(from: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), count: taken)
        count += taken
        return taken
    }

    /// Compresses the block with `compressor`'s stream for `level` into `output`, and takes its CRC-32.
    func compress(with compressor: BlockCompressor, level: Int32) {
        crc = count > 0 ? sluice_crc32(0, input, count) : 0
        outputCount = 0
        guard let stream = compressor.stream(level: level) else {
            failure = Z_MEM_ERROR
            return
        }
        deflateReset(stream)
        if dictionaryCount > 0 {
            let status = deflateSetDictionary(stream, dictionary, uInt(dictionaryCount))
            guard status == Z_OK else {
                failure = status
                return
            }
        }
        stream.pointee.next_in = input
        stream.pointee.avail_in = uInt(count)
        let flush = isLast ? Z_FINISH : Z_SYNC_FLUSH
        while true {
            if outputCount == outputCapacity { grow() }
            stream.pointee.next_out = output + outputCount
            stream.pointee.avail_out = uInt(outputCapacity - outputCount)
            let status = deflate(stream, flush)
            outputCount = outputCapacity - Int(stream.pointee.avail_out)
            // Z_BUF_ERROR only says no progress was possible, which is an error only with room left.
            guard status == Z_OK || status == Z_STREAM_END || (status == Z_BUF_ERROR && outputCount == outputCapacity) else {
                failure = status
                return
            }
            // Done when the stream ended, or a flush left output room to spare (all of it is out).
            if status == Z_STREAM_END || (!isLast && stream.pointee.avail_in == 0 && stream.pointee.avail_out > 0) { return }
        }
    }

    private func grow() {
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: outputCapacity * 2)
        larger.update(from: output, count: outputCount)
        output.deallocate()
        output = larger
        outputCapacity *= 2
    }
}

/// A compression thread's zlib streams, one per level it was asked for,
/// reset for each block instead of made anew (a deflate stream is about
/// 256 KiB of state). Used by one thread at a time.
final class BlockCompressor {
    private var streams: [Int32: UnsafeMutablePointer<z_stream>] = [:]

    init() {}

    deinit {
        for stream in streams.values {
            deflateEnd(stream)
            stream.deallocate()
        }
    }

    /// The raw deflate stream for `level` (-1 is zlib's default, 6); nil if zlib could not make one.
    func stream(level: Int32) -> UnsafeMutablePointer<z_stream>? {
        if let stream = streams[level] { return stream }
        // zlib keeps the stream's address: one allocation, kept for the thread's life.
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        guard sluice_deflateInit2(stream, level, -MAX_WBITS) == Z_OK else {
            stream.deallocate()
            return nil
        }
        streams[level] = stream
        return stream
    }
}
