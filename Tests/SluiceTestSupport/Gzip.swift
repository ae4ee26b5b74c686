import CZlib
import Foundation

/// gzip helpers for tests, written straight on zlib (independent of the code under test).
public enum TestGzip {
    /// zlib's CRC-32 of `bytes` (gzip's, and a `--state` file's trailer).
    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBufferPointer { UInt32(CZlib.crc32(0, $0.baseAddress, uInt($0.count))) }
    }

    /// Compresses `bytes` as one gzip member.
    public static func compress(_ bytes: [UInt8], level: Int32 = 6) -> [UInt8] {
        var stream = z_stream()
        _ = sluice_deflateInit2(&stream, level, 16 + MAX_WBITS)
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))) + 64)
        var input = bytes
        let produced: Int = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = uInt(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = uInt(outBuffer.count)
                _ = deflate(&stream, Z_FINISH)
                return outBuffer.count - Int(stream.avail_out)
            }
        }
        return Array(output[..<produced])
    }

    /// Inflates one stream from the start of `bytes` with zlib's `windowBits`
    /// (`-MAX_WBITS` raw deflate, `16 + MAX_WBITS` one gzip member) until it
    /// ends or fails: what came out, the last status (`Z_STREAM_END` when it
    /// ended), and how many bytes of input it took.
    public static func inflateStream(_ bytes: ArraySlice<UInt8>, windowBits: Int32) -> (output: [UInt8], status: Int32, consumed: Int) {
        var stream = z_stream()
        _ = sluice_inflateInit2(&stream, windowBits)
        defer { inflateEnd(&stream) }
        var input = Array(bytes)
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var status: Int32 = Z_OK
        let consumed: Int = input.withUnsafeMutableBufferPointer { inBuffer in
            stream.next_in = inBuffer.baseAddress
            stream.avail_in = uInt(inBuffer.count)
            repeat {
                let produced: Int = chunk.withUnsafeMutableBufferPointer { outBuffer in
                    stream.next_out = outBuffer.baseAddress
                    stream.avail_out = uInt(outBuffer.count)
                    status = inflate(&stream, Z_NO_FLUSH)
                    return outBuffer.count - Int(stream.avail_out)
                }
                output.append(contentsOf: chunk[..<produced])
            } while status == Z_OK
            return inBuffer.count - Int(stream.avail_in)
        }
        return (output, status, consumed)
    }

    /// Decompresses every member of a gzip file; nil if it is not valid, complete gzip.
    public static func decompress(_ bytes: [UInt8]) -> [UInt8]? {
        var result: [UInt8] = []
        var offset = 0
        while offset < bytes.count {
            let member = inflateStream(bytes[offset...], windowBits: 16 + MAX_WBITS)
            guard member.status == Z_STREAM_END else { return nil }
            result += member.output
            offset += member.consumed
        }
        return result
    }

    /// Decompresses the complete members at the start of `bytes` and stops
    /// at the first incomplete or damaged one: what a `.part` left by a crash
    /// holds up to its last flush.
    public static func decompressCompleteMembers(_ bytes: [UInt8]) -> (data: [UInt8], members: Int) {
        var result: [UInt8] = []
        var members = 0
        var offset = 0
        while offset < bytes.count {
            let member = inflateStream(bytes[offset...], windowBits: 16 + MAX_WBITS)
            guard member.status == Z_STREAM_END else { break }
            result += member.output
            members += 1
            offset += member.consumed
        }
        return (result, members)
    }

    /// Each member's data, in order; nil if `bytes` is not valid, complete gzip.
    public static func members(_ bytes: [UInt8]) -> [[UInt8]]? {
        var result: [[UInt8]] = []
        var offset = 0
        while offset < bytes.count {
            let member = inflateStream(bytes[offset...], windowBits: 16 + MAX_WBITS)
            guard member.status == Z_STREAM_END else { return nil }
            result.append(member.output)
            offset += member.consumed
        }
        return result
    }

    /// What a one-member reader (Python's `zlib.decompress(data, 31)`, many
    /// servers' decoders) gets: the first member's data, and whether that
    /// member is the whole of `bytes`.
    public static func firstMember(_ bytes: [UInt8]) -> (data: [UInt8], isWhole: Bool)? {
        let member = inflateStream(bytes[...], windowBits: 16 + MAX_WBITS)
        guard member.status == Z_STREAM_END else { return nil }
        return (member.output, member.consumed == bytes.count)
    }

    public static func decompressFile(_ path: String) -> [UInt8]? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return decompress(Array(data))
    }
}
