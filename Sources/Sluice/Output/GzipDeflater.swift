import CZlib

/// A zlib deflate stream with a gzip wrapper, writing into its own output
/// buffer and handing each full buffer to a sink.
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
    /// Bytes deflated since the last member ended.
    public private(set) var pendingInMember = 0

    public static let outCapacity = 256 * 1024

    /// `level` is zlib's 0-9; `label` names the output in errors.
    public init(level: Int32, label: String) {
        self.label = label
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        out = .allocate(capacity: GzipDeflater.outCapacity)
        // 16 + MAX_WBITS: a gzip wrapper.
        _ = sluice_deflateInit2(stream, level, 16 + MAX_WBITS)
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
        out.deallocate()
    }

    /// Compresses `data` into the current member; full output buffers go to `sink`.
    public func compress(_ data: UnsafeRawBufferPointer,
                         sink: (UnsafeRawBufferPointer) throws(OutputError) -> Void) throws(OutputError) {
        guard data.count > 0 else { return }
        pendingInMember += data.count
        stream.pointee.next_in = UnsafeMutablePointer(mutating: data.baseAddress!.assumingMemoryBound(to: Bytef.self))
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
        try flushOutput(sink)
        deflateReset(stream)
        pendingInMember = 0
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
