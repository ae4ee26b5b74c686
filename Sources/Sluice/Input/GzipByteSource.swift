import CZlib

/// Inflates gzip data from another source on the fly, multi-member files included
/// (each member is a complete gzip stream; `cat a.gz b.gz` is valid gzip).
///
/// Owns its `z_stream` by pointer because zlib keeps the stream's address.
final class GzipByteSource: ByteSource {
    private let upstream: FileByteSource
    private let stream: UnsafeMutablePointer<z_stream>
    private let input: UnsafeMutableRawBufferPointer
    private var upstreamEnded = false
    /// True between the end of one member and the first byte of the next.
    private var betweenMembers = false
    private var compressedOffset = 0

    var bytesConsumed: Int { upstream.bytesConsumed }

    static let chunkSize = 256 * 1024

    init(upstream: FileByteSource) {
        self.upstream = upstream
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        input = .allocate(byteCount: GzipByteSource.chunkSize, alignment: 16)
        // 16 + MAX_WBITS: gzip wrapper only.
        _ = sluice_inflateInit2(stream, 16 + MAX_WBITS)
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
        input.deallocate()
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        stream.pointee.next_out = buffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = uInt(buffer.count)
        while stream.pointee.avail_out == uInt(buffer.count) {
            if stream.pointee.avail_in == 0 {
                if upstreamEnded { break }
                let n = try upstream.read(into: input)
                if n == 0 {
                    upstreamEnded = true
                    if betweenMembers { break }
                    throw InputError.corruptGzip(path: upstream.path, offset: compressedOffset, message: "unexpected end of gzip data (truncated file)")
                }
                stream.pointee.next_in = input.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.pointee.avail_in = uInt(n)
            }
            if betweenMembers {
                betweenMembers = false
                inflateReset(stream)
            }
            let before = stream.pointee.avail_in
            let status = inflate(stream, Z_NO_FLUSH)
            compressedOffset += Int(before - stream.pointee.avail_in)
            switch status {
            case Z_OK, Z_BUF_ERROR:
                continue
            case Z_STREAM_END:
                betweenMembers = true
                if stream.pointee.avail_out != uInt(buffer.count) {
                    return buffer.count - Int(stream.pointee.avail_out)
                }
            default:
                let message = stream.pointee.msg.map { String(cString: $0) } ?? "inflate error \(status)"
                throw InputError.corruptGzip(path: upstream.path, offset: compressedOffset, message: message)
            }
        }
        return buffer.count - Int(stream.pointee.avail_out)
    }

    func close() { upstream.close() }
}
