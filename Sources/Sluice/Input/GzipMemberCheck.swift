import CZlib

/// Checks a gzip member ahead of its reader: the rest of the member is
/// inflated from a copy of the reader's stream, reading the file with
/// pread(2), into scratch space, so its CRC-32 and length are known good
/// before any of its bytes go on; the reader's own stream is left where it was.
enum GzipMemberCheck {
    static let scratchBytes = 256 * 1024

    /// Nil when the rest of the member is intact; else why not, at the damage.
    /// `compressedOffset` is where the reader's stream stands in the file; the
    /// bytes after its unconsumed input are read from the file itself.
    static func checkRest(of stream: UnsafeMutablePointer<z_stream>, compressedOffset: Int, memberStart: Int,
                          upstream: FileByteSource) throws -> InputError? {
        let copy = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        copy.initialize(to: z_stream())
        guard inflateCopy(copy, stream) == Z_OK else {
            copy.deallocate()
            return InputError.corruptGzip(path: upstream.path, offset: compressedOffset, message: "out of memory checking a gzip member")
        }
        let input = UnsafeMutableRawBufferPointer.allocate(byteCount: scratchBytes, alignment: 16)
        let output = UnsafeMutableRawBufferPointer.allocate(byteCount: scratchBytes, alignment: 16)
        defer {
            inflateEnd(copy)
            copy.deallocate()
            input.deallocate()
            output.deallocate()
        }
        var offset = compressedOffset
        var fileOffset = compressedOffset + Int(stream.pointee.avail_in)
        while true {
            if copy.pointee.avail_in == 0 {
                let n = try upstream.readAhead(into: input, at: fileOffset)
                if n == 0 {
                    return InputError.corruptGzip(path: upstream.path, offset: fileOffset,
                                                  message: "unexpected end of gzip data (truncated file)")
                }
                fileOffset += n
                copy.pointee.next_in = input.baseAddress!.assumingMemoryBound(to: Bytef.self)
                copy.pointee.avail_in = uInt(n)
            }
            copy.pointee.next_out = output.baseAddress!.assumingMemoryBound(to: Bytef.self)
            copy.pointee.avail_out = uInt(output.count)
            let before = copy.pointee.avail_in
            let status = inflate(copy, Z_NO_FLUSH)
            offset += Int(before - copy.pointee.avail_in)
            switch status {
            case Z_STREAM_END: return nil
            case Z_OK, Z_BUF_ERROR: continue
            default: return error(status: status, stream: copy, path: upstream.path, memberStart: memberStart, offset: offset)
            }
        }
    }

    /// The error for a failed inflate: a trailer that does not match names the
    /// member (the damage is somewhere in it), anything else the byte where inflate stopped.
    static func error(status: Int32, stream: UnsafeMutablePointer<z_stream>, path: String,
                      memberStart: Int, offset: Int) -> InputError {
        let message = stream.pointee.msg.map { String(cString: $0) } ?? "inflate error \(status)"
        switch message {
        case "incorrect data check":
            return .corruptGzip(path: path, offset: memberStart,
                                message: "the gzip member at compressed bytes \(memberStart)-\(offset) fails its CRC-32 check (its data was altered)")
        case "incorrect length check":
            return .corruptGzip(path: path, offset: memberStart,
                                message: "the gzip member at compressed bytes \(memberStart)-\(offset) fails its length check (its data was altered)")
        // zlib reads a header's fields before it judges them (its offset is past them): name the byte that is wrong,
        // so garbage after the last member is reported where it starts.
        case "incorrect header check":
            return .corruptGzip(path: path, offset: memberStart, message: message)
        case "unknown compression method":
            return .corruptGzip(path: path, offset: memberStart + 2, message: message)
        case "unknown header flags set":
            return .corruptGzip(path: path, offset: memberStart + 3, message: message)
        default:
            return .corruptGzip(path: path, offset: offset, message: message)
        }
    }
}
