#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One line from an input, without its `\n` (and without a `\r` before it).
enum InputLine {
    /// A line; the buffer is valid until the next call to `next()`.
    case line(UnsafeBufferPointer<UInt8>, number: Int64)
    /// A line longer than the limit: only its first bytes were kept, never the whole line.
    case tooLong(preview: [UInt8], length: Int, number: Int64)
    /// The start of a line whose end never came because reading was stopped (shutdown).
    case cutShort(UnsafeBufferPointer<UInt8>, number: Int64)
}

/// Splits an input into lines with big reads and `memchr`, never holding more
/// than `maxLineBytes` of one line in memory.
final class LineReader {
    /// How much of a too-long line is kept for the rejects file.
    static let previewBytes = 1024
    static let readSize = 256 * 1024

    let path: String
    private let source: ByteSource
    private let maxLineBytes: Int
    private let capacity: Int
    private let buffer: UnsafeMutablePointer<UInt8>
    private var start = 0
    private var end = 0
    private var scanFrom = 0
    private var ended = false
    /// Reading was stopped (not the end of the input): a partial last line is cut short.
    private var stopped = false
    private var lineNumber: Int64 = 0
    /// While skipping a too-long line: its preview and the bytes seen so far.
    private var skipping: (preview: [UInt8], length: Int)?

    /// Called before every read that may block, so buffered output can be handed on first.
    var beforeRead: (() throws -> Void)?

    /// Bytes consumed from the underlying file so far (compressed bytes for gzip).
    var bytesConsumed: Int { source.bytesConsumed }

    init(path: String, source: ByteSource, maxLineBytes: Int) {
        self.path = path
        self.source = source
        self.maxLineBytes = maxLineBytes
        self.capacity = maxLineBytes + LineReader.readSize + 1
        self.buffer = .allocate(capacity: capacity)
    }

    deinit {
        buffer.deallocate()
        source.close()
    }

    /// Opens a path (or `-` for stdin), gunzipping when the data starts with the gzip magic.
    /// `gate` is asked before every read (signals, timers, waiting on pipes).
    static func open(_ path: String, maxLineBytes: Int, gate: InputGate? = nil) throws -> LineReader {
        let file = try FileByteSource.open(path, gate: gate)
        let head = try file.peek(2)
        let source: ByteSource = head == [0x1F, 0x8B] ? GzipByteSource(upstream: file) : file
        return LineReader(path: path, source: source, maxLineBytes: maxLineBytes)
    }

    /// The next line, or nil at the end of the input.
    func next() throws -> InputLine? {
        while true {
            if skipping != nil {
                if let newline = findNewline(from: start) {
                    let result = finishSkipping(adding: newline - start)
                    start = newline + 1
                    scanFrom = start
                    return result
                }
                skipping!.length += end - start
                start = 0
                end = 0
                scanFrom = 0
                if try !refill() { return finishSkipping(adding: 0) }
                continue
            }
            if let newline = findNewline(from: scanFrom) {
                lineNumber += 1
                var lineEnd = newline
                if lineEnd > start && buffer[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
                let lineStart = start
                start = newline + 1
                scanFrom = start
                if lineEnd - lineStart > maxLineBytes {
                    return .tooLong(preview: preview(lineStart, lineEnd - lineStart), length: lineEnd - lineStart, number: lineNumber)
                }
                return .line(UnsafeBufferPointer(start: buffer + lineStart, count: lineEnd - lineStart), number: lineNumber)
            }
            scanFrom = end
            if end - start > maxLineBytes {
                // Keep a preview and drop the rest as it streams past.
                skipping = (preview(start, end - start), end - start)
                start = 0
                end = 0
                scanFrom = 0
                continue
            }
            if try !refill() {
                guard start < end else { return nil }
                // A last line without a newline.
                lineNumber += 1
                let lineStart = start
                start = end
                scanFrom = end
                if stopped {
                    return .cutShort(UnsafeBufferPointer(start: buffer + lineStart, count: end - lineStart), number: lineNumber)
                }
                var lineEnd = end
                if buffer[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
                return .line(UnsafeBufferPointer(start: buffer + lineStart, count: lineEnd - lineStart), number: lineNumber)
            }
        }
    }

    private func finishSkipping(adding count: Int) -> InputLine {
        lineNumber += 1
        let length = skipping!.length + count
        let result = InputLine.tooLong(preview: skipping!.preview, length: length, number: lineNumber)
        skipping = nil
        return result
    }

    private func preview(_ from: Int, _ count: Int) -> [UInt8] {
        Array(UnsafeBufferPointer(start: buffer + from, count: min(count, LineReader.previewBytes)))
    }

    @inline(__always)
    private func findNewline(from position: Int) -> Int? {
        guard position < end else { return nil }
        guard let found = memchr(buffer + position, 0x0A, end - position) else { return nil }
        return buffer.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    /// Moves the unread bytes to the front and reads more; false at the end of input.
    private func refill() throws -> Bool {
        if ended { return false }
        if start > 0 {
            let pending = end - start
            if pending > 0 { memmove(buffer, buffer + start, pending) }
            scanFrom -= start
            end = pending
            start = 0
        }
        try beforeRead?()
        let room = min(capacity - end, LineReader.readSize)
        let n: Int
        do {
            n = try source.read(into: UnsafeMutableRawBufferPointer(start: buffer + end, count: room))
        } catch is InputStopped {
            // Shutdown: what was read is processed, as at the end of the input.
            ended = true
            stopped = true
            return false
        }
        if n == 0 {
            ended = true
            return false
        }
        end += n
        return true
    }
}
