import CZlib
import Sluice

/// Whole buffers in and out of gzip: a finished file read back (every member,
/// as `sluice run` writes several), and a batch compressed for its request body.
enum Gzip {
    /// The uncompressed bytes of every member of `data`; nil when it is not
    /// gzip or is damaged (a finished file never is: `sluice run` renames a file only once complete).
    static func decompress(_ data: [UInt8]) -> [UInt8]? {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { inflateEnd(stream); stream.deallocate() }
        guard sluice_inflateInit2(stream, 16 + MAX_WBITS) == Z_OK else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(data.count * 6)
        let chunk = 256 * 1024
        var buffer = [UInt8](repeating: 0, count: chunk)
        return data.withUnsafeBufferPointer { input -> [UInt8]? in
            var offset = 0
            while offset < input.count {
                stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress! + offset)
                stream.pointee.avail_in = uInt(input.count - offset)
                var status = Z_OK
                repeat {
                    status = buffer.withUnsafeMutableBufferPointer { out -> Int32 in
                        stream.pointee.next_out = out.baseAddress
                        stream.pointee.avail_out = uInt(chunk)
                        return inflate(stream, Z_NO_FLUSH)
                    }
                    out.append(contentsOf: buffer[0..<(chunk - Int(stream.pointee.avail_out))])
                } while status == Z_OK
                // Z_BUF_ERROR: the input ended inside a member; anything else: damage.
                guard status == Z_STREAM_END else { return nil }
                offset = input.count - Int(stream.pointee.avail_in)
                inflateReset(stream)
            }
            return out
        }
    }

    /// `data` as one gzip member at `level` (1: a request body is sent once, speed counts more than size).
    static func compress(_ data: UnsafeRawBufferPointer, level: Int32 = 1) -> [UInt8] {
        let deflater = GzipDeflater(level: level, label: "request body")
        var out: [UInt8] = []
        out.reserveCapacity(data.count / 4 + 64)
        let sink: (UnsafeRawBufferPointer) throws(OutputError) -> Void = { out.append(contentsOf: $0) }
        try? deflater.compress(data, sink: sink)
        try? deflater.endMember(sink: sink)
        return out
    }
}
