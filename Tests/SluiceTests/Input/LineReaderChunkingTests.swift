import Foundation
@testable import Sluice
import SluiceTestSupport
import Testing

/// The line reader against a plain model of what the lines of some bytes are,
/// with reads of every size: what it returns must not depend on how the
/// bytes arrive (a file read 256 KiB at a time, a pipe a few bytes at a time).
/// The inputs `scripts/fuzz` found are replayed here (`Fuzz/regressions/lines/`).
@Suite struct LineReaderChunkingTests {
    enum ReadLine: Equatable {
        case line([UInt8])
        case tooLong(length: Int, preview: [UInt8])
    }

    /// Split at `\n`, one `\r` before it dropped, a non-empty last line kept;
    /// too long when longer than the limit, with the first 1 KiB as preview.
    static func model(_ bytes: [UInt8], maxLineBytes: Int) -> [ReadLine] {
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        return lines.map { raw in
            let line = raw.last == 0x0D ? raw.dropLast() : raw[...]
            if line.count > maxLineBytes { return .tooLong(length: line.count, preview: Array(line.prefix(LineReader.previewBytes))) }
            return .line(Array(line))
        }
    }

    /// Reads of 1 to 64 bytes, sizes from a pattern (the same generator as the fuzz target's).
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

    static func read(_ reader: LineReader) throws -> [ReadLine] {
        var result: [ReadLine] = []
        while let line = try reader.next() {
            switch line {
            case let .line(buffer, number):
                #expect(number == Int64(result.count + 1))
                result.append(.line(Array(buffer)))
            case let .tooLong(preview, length, number):
                #expect(number == Int64(result.count + 1))
                result.append(.tooLong(length: length, preview: preview))
            case .cutShort:
                Issue.record("a line cut short, but nothing stopped the reader")
            case .damaged:
                Issue.record("a damaged line from plain input")
            case .paused:
                Issue.record("a pause from a reader without pacing")
            }
        }
        return result
    }

    private func chunked(_ text: String, maxLineBytes: Int, pattern: UInt8) throws -> [ReadLine] {
        try Self.read(LineReader(path: "t", source: ChunkedSource(Array(text.utf8), pattern: pattern), maxLineBytes: maxLineBytes))
    }

    @Test(arguments: 0..<16)
    func aTooLongLineEndingInCRLFHasItsOwnLengthAndFullPreviewHoweverTheReadsFall(pattern: Int) throws {
        let long = String(repeating: "x", count: 300)
        let got = try chunked("a\r\n" + long + "\r\nb\r\n", maxLineBytes: 100, pattern: UInt8(pattern))
        #expect(got == [.line(Array("a".utf8)), .tooLong(length: 300, preview: Array(long.utf8)), .line(Array("b".utf8))])
    }

    @Test(arguments: 0..<16)
    func aLineAtTheLimitFollowedByCRLFIsAnOrdinaryLine(pattern: Int) throws {
        let exact = String(repeating: "y", count: 100)
        let got = try chunked(exact + "\r\n" + exact + "z\r\n", maxLineBytes: 100, pattern: UInt8(pattern))
        #expect(got == [.line(Array(exact.utf8)), .tooLong(length: 101, preview: Array((exact + "z").utf8))])
    }

    @Test(arguments: [100, 101, 102])
    func aLastLineWithoutNewlineIsMeasuredLikeAnyOther(length: Int) throws {
        let text = String(repeating: "w", count: length)
        let got = try chunked(text, maxLineBytes: 100, pattern: 3)
        #expect(got == Self.model(Array(text.utf8), maxLineBytes: 100))
    }

    /// Each input `scripts/fuzz` found, read as the fuzz target read it (its
    /// first bytes: mode, max_line_bytes, read pattern; see `Fuzz/Sources/FuzzLines`).
    @Test func everyInputTheFuzzerFoundIsReadAsTheModelSays() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz/regressions/lines").path
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(!names.isEmpty)
        for name in names {
            let input = Array(FileManager.default.contents(atPath: directory + "/" + name)!)
            let maxLineBytes = input[1] == 255 ? 1 << 20 : Int(input[1]) + 1
            let payload = Array(input[3...])
            let expected = Self.model(payload, maxLineBytes: maxLineBytes)
            switch input[0] % 3 {
            case 0:
                let reader = LineReader(path: name, source: ChunkedSource(payload, pattern: input[2]), maxLineBytes: maxLineBytes)
                #expect(try Self.read(reader) == expected, "\(name)")
            case 1:
                let files = TemporaryDirectory()
                let path = files.write("in.gz", TestGzip.compress(payload))
                #expect(try Self.read(LineReader.open(path, maxLineBytes: maxLineBytes)) == expected, "\(name)")
            default:
                let files = TemporaryDirectory()
                let path = files.write("in.gz", payload)
                do {
                    _ = try Self.read(LineReader.open(path, maxLineBytes: maxLineBytes))
                } catch is InputError {
                    // A clean, named error is right for broken gzip.
                }
            }
        }
    }
}
