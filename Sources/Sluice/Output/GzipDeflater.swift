// Unsafe code: zlib's `z_stream` is C state that keeps its own address and
// raw pointers to the buffers it reads and writes, so the stream and the
// output buffer are allocated here and owned by the deflater (freed in deinit).
// Input is lent for one `compress` call, consumed before it returns; full
// output goes to the sink as a buffer of `outCount` bytes.

import CCRC32
import CZlib

/// A raw zlib deflate stream inside a gzip wrapper written here, writing into
/// its own output buffer and handing each full buffer to a sink.
///
/// The wrapper is byte for byte what zlib's own (`16 + MAX_WBITS`, no
/// `gz_header`) writes: the same 10-byte header, then the same trailer, but
/// the trailer's CRC-32 comes from `sluice_crc32` (PCLMULQDQ folding on x86-64,
/// zlib's table CRC elsewhere) instead of zlib's table CRC.
///
/// A `final class` because zlib keeps the `z_stream`'s address. `endMember()`
/// finishes the current gzip member and resets the stream, so the output is a
/// multi-member gzip file that gunzips up to the last finished member.
public final class GzipDeflater {
    /// Named in errors: the file being written.
    let label: String
    private let stream: UnsafeMutablePointer<z_stream>
    private let out: UnsafeMutablePointer<UInt8>
    private var outCount = 0
    /// The current member's header, written before its first deflated byte.
    private let header: [UInt8]
    /// CRC-32 of the current member's uncompressed bytes.
    private var crc: UInt32 = 0
    /// Bytes deflated since the last member ended.
    public private(set) var pendingInMember = 0

    public static let outCapacity = 256 * 1024

    /// `level` is zlib's 0-9 (or -1, its default, 6); `label` names the output in errors.
    public init(level: Int32, label: String) {
        self.label = label
        header = GzipDeflater.header(level: level)
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        out = .allocate(capacity: GzipDeflater.outCapacity)
        // -MAX_WBITS: raw deflate; the gzip wrapper is written here.
        _ = sluice_deflateInit2(stream, level, -MAX_WBITS)
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
        out.deallocate()
    }

    /// The header zlib's gzip wrapper writes without a `gz_header`: magic,
    /// deflate, no flags, no time, XFL from the level (2 for the slowest,
    /// 4 for the fastest, with Z_DEFAULT_STRATEGY), then zlib's OS code.
    /// Levels above 9 (libdeflate's 10-12) are marked as the slowest, as 9 is.
    static func header(level: Int32) -> [UInt8] {
        [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, extraFlags(level: level), zlibOSCode]
    }

    static func extraFlags(level: Int32) -> UInt8 {
        let level = level == Z_DEFAULT_COMPRESSION ? 6 : level
        return level >= 9 ? 2 : (level < 2 ? 4 : 0)
    }

    /// `header(level:)`'s 10 bytes, written at `to`.
    static func writeHeader(level: Int32, to out: UnsafeMutablePointer<UInt8>) {
        let bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0x1f, 0x8b, 8, 0, 0, 0, 0, 0, extraFlags(level: level), zlibOSCode)
        withUnsafeBytes(of: bytes) { out.update(from: $0.baseAddress!.assumingMemoryBound(to: UInt8.self), count: 10) }
    }

    /// A member's trailer: the CRC-32 of its uncompressed bytes, then their count mod 2^32, both little-endian.
    static func trailer(crc: UInt32, length: Int) -> [UInt8] {
        let size = UInt32(truncatingIfNeeded: length)
        return [crc, size].flatMap { value in stride(from: 0, to: 32, by: 8).map { UInt8(truncatingIfNeeded: value >> $0) } }
    }

    /// The OS byte the linked zlib writes (its OS_CODE: 3, Unix, on Linux;
    /// 19 on Apple since zlib 1.2.12), read once from a gzip member of nothing.
    static let zlibOSCode: UInt8 = {
        // zlib keeps the stream's address and checks it on every call: one
        // allocation, not `&local` (whose address Swift need not keep stable).
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        var member = [UInt8](repeating: 0, count: 64)
        guard sluice_deflateInit2(stream, 6, 16 + MAX_WBITS) == Z_OK else { return 3 }
        defer { deflateEnd(stream) }
        let status: Int32 = member.withUnsafeMutableBufferPointer { buffer in
            stream.pointee.next_out = buffer.baseAddress
            stream.pointee.avail_out = uInt(buffer.count)
            return deflate(stream, Z_FINISH)
        }
        return status == Z_STREAM_END ? member[9] : 3
    }()

    /// `bytes` as one whole gzip member at `level` (libdeflate's 0-12; nothing
    /// for no bytes), compressed by libdeflate in one piece: a request body, a
    /// send-rejects file, a file `sluice send` makes one member again.
    public static func member(of bytes: ArraySlice<UInt8>, level: Int32) -> [UInt8] {
        guard !bytes.isEmpty else { return [] }
        let block = DeflateBlock(capacity: bytes.count)
        bytes.withUnsafeBytes { block.append($0) }
        block.compress(with: BlockCompressor(), level: level)
        precondition(block.failure == nil, "libdeflate could not allocate a compressor")
        return Array(UnsafeBufferPointer(start: block.output, count: block.outputCount))
    }

    /// Compresses `data` into the current member; full output buffers go to `sink`.
    public func compress(_ data: UnsafeRawBufferPointer,
                         sink: (UnsafeRawBufferPointer) throws(OutputError) -> Void) throws(OutputError) {
        guard data.count > 0 else { return }
        if pendingInMember == 0 {
            for byte in header { try put(byte, sink) }
        }
        pendingInMember += data.count
        let input = data.baseAddress!.assumingMemoryBound(to: UInt8.self)
        crc = sluice_crc32(crc, input, data.count)
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input)
        stream.pointee.avail_in = uInt(data.count)
        while stream.pointee.avail_in > 0 {
            try step(Z_NO_FLUSH, sink)
        }
    }

    /// Ends the current gzip member and hands all output to `sink`; nothing happens when the member is empty.
    public func endMember(sink: (UnsafeRawBufferPointer) throws(OutputError) -> Void) throws(OutputError) {
        guard pendingInMember > 0 else { return }
        stream.pointee.next_in = nil
        stream.pointee.avail_in = 0
        while try step(Z_FINISH, sink) != Z_STREAM_END {}
        for byte in GzipDeflater.trailer(crc: crc, length: pendingInMember) { try put(byte, sink) }
        try flushOutput(sink)
        deflateReset(stream)
        crc = 0
        pendingInMember = 0
    }

    /// Appends one wrapper byte to the output buffer, handing the buffer on when it fills.
    private func put(_ byte: UInt8, _ sink: (UnsafeRawBufferPointer) throws(OutputError) -> Void) throws(OutputError) {
        out[outCount] = byte
        outCount += 1
        if outCount == GzipDeflater.outCapacity { try flushOutput(sink) }
    }

    @discardableResult
    private func step(_ flush: Int32, _ sink: (UnsafeRawBufferPointer) throws(OutputError) -> Void) throws(OutputError) -> Int32 {
        stream.pointee.next_out = out + outCount
        stream.pointee.avail_out = uInt(GzipDeflater.outCapacity - outCount)
        let status = deflate(stream, flush)
        outCount = GzipDeflater.outCapacity - Int(stream.pointee.avail_out)
        if outCount == GzipDeflater.outCapacity { try flushOutput(sink) }
        if status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR {
            throw .compressionFailed(path: label, status: status)
        }
        return status
    }

    private func flushOutput(_ sink: (UnsafeRawBufferPointer) throws(OutputError) -> Void) throws(OutputError) {
        guard outCount > 0 else { return }
        let count = outCount
        outCount = 0
        try sink(UnsafeRawBufferPointer(start: out, count: count))
    }
}
