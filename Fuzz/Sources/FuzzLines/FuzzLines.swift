@testable import Sluice
#if canImport(Glibc)
import Glibc
#endif

/// Any bytes as an input file, read by the real `LineReader`, plain or through
/// the real `GzipByteSource`, and compared with a plain model of what the
/// lines are.
///
/// The first three bytes choose how: the mode (plain; valid gzip made of
/// stored-block members; the bytes themselves as gzip data), `max_line_bytes`
/// (1...256, or 1 MiB) and the pattern of read sizes (so line ends fall on
/// every kind of read boundary). In the first two modes the lines must be
/// exactly the model's; in the third only a clean end or an `InputError` is allowed.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLines(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard size >= 3, let data else { return 0 }
    let mode = data[0] % 3
    let maxLineBytes = data[1] == 255 ? 1 << 20 : Int(data[1]) + 1
    let pattern = data[2]
    let payload = Array(UnsafeBufferPointer(start: data + 3, count: size - 3))
    let expected = model(payload, maxLineBytes: maxLineBytes)
    switch mode {
    case 0:
        let reader = LineReader(path: "fuzz", source: ChunkedSource(payload, pattern: pattern), maxLineBytes: maxLineBytes)
        let got = try! readAll(reader)
        precondition(got == expected, "plain: \(describe(got, expected))")
    case 1:
        let gzip = StoredGzip.members(payload, pattern: pattern)
        let reader = LineReader(path: "fuzz", source: GzipByteSource(upstream: file(gzip)), maxLineBytes: maxLineBytes)
        let got = try! readAll(reader)
        precondition(got == expected, "gzip: \(describe(got, expected))")
    default:
        let reader = LineReader(path: "fuzz", source: GzipByteSource(upstream: file(payload)), maxLineBytes: maxLineBytes)
        do {
            _ = try readAll(reader)
        } catch is InputError {
            // Corrupt or truncated gzip: a clean, named error is the right answer.
        } catch {
            preconditionFailure("an error that is not an InputError: \(error)")
        }
    }
    return 0
}

/// One line as the reader reports it: its bytes, or that it was too long with its length and preview.
enum ReadLine: Equatable {
    case line([UInt8])
    case tooLong(length: Int, preview: [UInt8])
    /// A line of a gzip member that failed its check (only from damaged gzip).
    case damaged([UInt8])
}

/// The lines of `bytes`: split at `\n`, one `\r` before it dropped, a last line
/// without `\n` kept when it is not empty; a line is too long when what is left
/// is longer than `maxLineBytes`, with a preview of its first 1 KiB.
func model(_ bytes: [UInt8], maxLineBytes: Int) -> [ReadLine] {
    var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
    if lines.last?.isEmpty == true { lines.removeLast() }
    return lines.map { raw in
        let line = raw.last == 0x0D ? raw.dropLast() : raw[...]
        if line.count > maxLineBytes { return .tooLong(length: line.count, preview: Array(line.prefix(LineReader.previewBytes))) }
        return .line(Array(line))
    }
}

func readAll(_ reader: LineReader) throws -> [ReadLine] {
    var result: [ReadLine] = []
    var expectedNumber: Int64 = 1
    while let line = try reader.next() {
        switch line {
        case let .line(buffer, number):
            precondition(number == expectedNumber, "line number \(number), expected \(expectedNumber)")
            result.append(.line(Array(buffer)))
        case let .tooLong(preview, length, number):
            precondition(number == expectedNumber, "line number \(number), expected \(expectedNumber)")
            result.append(.tooLong(length: length, preview: preview))
        case .cutShort:
            preconditionFailure("a line cut short, but nothing stopped the reader")
        case let .damaged(buffer, number):
            precondition(number == expectedNumber, "line number \(number), expected \(expectedNumber)")
            result.append(.damaged(Array(buffer)))
        }
        expectedNumber += 1
    }
    return result
}

private func describe(_ got: [ReadLine], _ expected: [ReadLine]) -> String {
    let index = zip(got, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(got.count, expected.count)
    let show = { (lines: [ReadLine]) in index < lines.count ? "\(lines[index])" : "nothing" }
    return "\(got.count) lines, expected \(expected.count); line \(index + 1) is \(show(got)), expected \(show(expected))"
}

/// Bytes handed out in reads of varying sizes (1 to 64 bytes, from the pattern).
final class ChunkedSource: ByteSource {
    private let bytes: [UInt8]
    private var offset = 0
    private var pattern: UInt32

    init(_ bytes: [UInt8], pattern: UInt8) {
        self.bytes = bytes
        self.pattern = UInt32(pattern) | 1
    }

    var bytesConsumed: Int { offset }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        pattern = pattern &* 1_103_515_245 &+ 12345
        let count = min(buffer.count, bytes.count - offset, Int(pattern >> 16) % 64 + 1)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: count) }
        offset += count
        return count
    }

    func close() {}
}

/// One scratch file, rewritten for each input: `GzipByteSource` reads a file descriptor.
private let scratch: Int32 = {
    var template = Array("/tmp/sluice-fuzz-XXXXXX".utf8CString)
    let fd = mkstemp(&template)
    precondition(fd >= 0, "cannot create a scratch file")
    unlink(template)
    return fd
}()

private func file(_ bytes: [UInt8]) -> FileByteSource {
    precondition(ftruncate(scratch, 0) == 0)
    let written = bytes.withUnsafeBytes { pwrite(scratch, $0.baseAddress, $0.count, 0) }
    precondition(written == bytes.count)
    precondition(lseek(scratch, 0, SEEK_SET) == 0)
    return FileByteSource(path: "fuzz.gz", fd: scratch, ownsDescriptor: false)
}

/// Valid gzip written by hand (stored blocks, no compression): the bytes cut
/// into one or more members where the pattern says, so member ends fall anywhere.
enum StoredGzip {
    static func members(_ bytes: [UInt8], pattern: UInt8) -> [UInt8] {
        var out: [UInt8] = []
        var start = 0
        var state = UInt32(pattern) &+ 7
        repeat {
            state = state &* 1_103_515_245 &+ 12345
            let length = pattern & 0x80 == 0 ? bytes.count : min(bytes.count - start, Int(state >> 16) % 300)
            member(bytes[start..<(start + length)], into: &out)
            start += length
        } while start < bytes.count
        return out
    }

    private static func member(_ bytes: ArraySlice<UInt8>, into out: inout [UInt8]) {
        out += [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3]
        var offset = bytes.startIndex
        repeat {
            let length = min(65535, bytes.endIndex - offset)
            let last: UInt8 = offset + length == bytes.endIndex ? 1 : 0
            out += [last, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            out += bytes[offset..<(offset + length)]
            offset += length
        } while offset < bytes.endIndex
        let crc = crc32(bytes)
        for value in [crc, UInt32(truncatingIfNeeded: bytes.count)] {
            out += [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF), UInt8((value >> 16) & 0xFF), UInt8(value >> 24)]
        }
    }

    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    private static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return ~crc
    }
}
