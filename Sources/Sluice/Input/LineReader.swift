// Unsafe code: lines are `UnsafeBufferPointer`s into the reader's own buffer
// (mapped pages, `PageMemory`, kept for the reader's life), so a line reaches
// the parser with no copy: the reading thread's hot path. A line is valid until
// the next `next()`, which callers are told; every slice is within
// `start..<end`, and reads are given only the room left below `capacity`.

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
    /// A line with bytes of a gzip member that failed its check, or cut by
    /// the damage: rejected, never delivered.
    case damaged(UnsafeBufferPointer<UInt8>, number: Int64)
    /// No line yet: the run's housekeeping is due (`ReadPacing.due`). Asked
    /// again, the reader goes on where it stood.
    case paused
}

/// Splits an input into lines with big reads and `memchr`, never holding more
/// than `maxLineBytes` + 1 bytes of one line in memory (the one more may be a
/// `\r` before the `\n`). What it returns does not depend on how the reads
/// fall: a too-long line has the same length and preview from a file as from
/// a pipe that delivers a byte at a time (`Fuzz/`, `fuzz-lines`, checks this).
///
/// Its buffer is pages reserved for the longest line and one read, taken as
/// they are written: lines of ordinary length take one read and a little
/// more, and once a long line is done the pages it took past two reads are
/// given back.
///
/// With a `ReadPacing`, it pauses (`.paused`) before each refill of its
/// buffer and before each read(2) of its file, so the run can do its
/// housekeeping between reads; the lines it returns are the same.
final class LineReader {
    /// How much of a too-long line is kept for the rejects file.
    static let previewBytes = 1024
    /// One read, for an input read on its own.
    static let readSize = InputBuffers.single.readBytes

    let path: String
    @exclusivity(unchecked) private var source: ByteSource
    /// A file whose first bytes are not read yet: they say whether it is gzip (the source then becomes a `GzipByteSource`).
    @exclusivity(unchecked) private var unsniffed: FileByteSource?
    /// How a gzip source inflates (`unsniffed`'s).
    private let buffers: InputBuffers
    private let maxLineBytes: Int
    /// Bytes asked of the source at a time.
    let readSize: Int
    private let capacity: Int
    private let pages: PageMemory
    private let buffer: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var start = 0
    @exclusivity(unchecked) private var end = 0
    @exclusivity(unchecked) private var scanFrom = 0
    @exclusivity(unchecked) private var ended = false
    /// Reading was stopped (not the end of the input): a partial last line is cut short.
    @exclusivity(unchecked) private var stopped = false
    @exclusivity(unchecked) private var lineNumber: Int64 = 0
    /// Where bytes of a damaged gzip member begin in the buffer (`Int.max`: none yet).
    @exclusivity(unchecked) private var damagedFrom = Int.max
    /// A corrupt gzip input's error, thrown once the line it cut is returned.
    @exclusivity(unchecked) private var deferredError: InputError?
    /// After a stop on a regular file: reading goes on to the end of the line being read.
    @exclusivity(unchecked) private var finishingLine = false
    /// While skipping a too-long line: its first bytes, how many there were, and
    /// whether the last one seen was a `\r` (not part of the line if `\n` follows).
    private struct Skipped {
        var preview: [UInt8] = []
        var length = 0
        var endsWithCR = false
    }

    @exclusivity(unchecked) private var skipping: Skipped?

    /// Whether its first line is the file's first (a byte order mark before it is dropped).
    private let atFileStart: Bool

    /// Paused at before every refill, so buffered output can be handed on first (nil: never).
    private let pacing: ReadPacing?
    /// The run did its housekeeping for the refill that paused: the next call refills.
    @exclusivity(unchecked) private var refillHousekept = false

    /// Bytes consumed from the underlying file so far (compressed bytes for gzip).
    var bytesConsumed: Int { source.bytesConsumed }

    /// - Parameter atFileStart: false for a reader that begins inside a file (exact order's first read
    ///   of its second half): its first line is not the file's, so a byte order mark stays in it.
    init(path: String, source: ByteSource, maxLineBytes: Int, readSize: Int = LineReader.readSize, pacing: ReadPacing? = nil,
         atFileStart: Bool = true) {
        self.path = path
        self.source = source
        self.atFileStart = atFileStart
        self.maxLineBytes = maxLineBytes
        self.readSize = readSize
        self.pacing = pacing
        buffers = .single
        self.capacity = maxLineBytes + readSize + 1
        pages = PageMemory(capacity: capacity)
        buffer = pages.base.bindMemory(to: UInt8.self, capacity: capacity)
    }

    deinit {
        source.close()
    }

    private init(path: String, file: FileByteSource, maxLineBytes: Int, buffers: InputBuffers, pacing: ReadPacing?) {
        self.path = path
        atFileStart = true
        source = file
        unsniffed = file
        self.maxLineBytes = maxLineBytes
        readSize = buffers.readBytes
        self.buffers = buffers
        self.pacing = pacing
        capacity = maxLineBytes + readSize + 1
        pages = PageMemory(capacity: capacity)
        buffer = pages.base.bindMemory(to: UInt8.self, capacity: capacity)
    }

    /// Opens a path (or `-` for stdin), gunzipping when the data starts with
    /// the gzip magic (read with the first line). With `pacing` it pauses
    /// before its refills and reads; `stoppable`: a shutdown stops its reads.
    /// `buffers` says how much is read at a time and how much of a gzip member is held.
    static func open(_ path: String, maxLineBytes: Int, pacing: ReadPacing? = nil, stoppable: Bool = true,
                     buffers: InputBuffers = .single) throws -> LineReader {
        let file = try FileByteSource.open(path, pacing: pacing, stoppable: stoppable)
        return LineReader(path: path, file: file, maxLineBytes: maxLineBytes, buffers: buffers, pacing: pacing)
    }

    /// What the buffer keeps written between lines: a read, and as much again for the line it ends in.
    var keptBytes: Int { 2 * readSize }

    /// The memory the buffer's pages may take now: what was written since they were last given back.
    var residentBytes: Int { PageMemory.roundedUp(pages.touched) }

    /// The next line, `.paused` when the run's housekeeping is due first, or nil at the end of the input.
    func next() throws -> InputLine? {
        // The last line ended past the kept size (a long line): what follows it goes to the front.
        if start > keptBytes { shrinkAfterLongLine() }
        while true {
            if skipping != nil {
                if let newline = findNewline(from: start) {
                    skip(from: start, to: newline)
                    start = newline + 1
                    scanFrom = start
                    return finishSkipping()
                }
                skip(from: start, to: end)
                start = 0
                end = 0
                scanFrom = 0
                if damagedFrom != Int.max { damagedFrom = 0 }
                switch try refill() {
                case .filled: continue
                case .paused: return .paused
                case .ended: return finishSkipping()
                }
            }
            if let newline = findNewline(from: scanFrom) {
                lineNumber += 1
                var lineEnd = newline
                if lineEnd > start && buffer[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
                let lineStart = lineNumber == 1 && atFileStart ? afterByteOrderMark(start, lineEnd) : start
                start = newline + 1
                scanFrom = start
                if lineEnd - lineStart > maxLineBytes {
                    return .tooLong(preview: preview(lineStart, lineEnd - lineStart), length: lineEnd - lineStart, number: lineNumber)
                }
                if newline >= damagedFrom {
                    return .damaged(UnsafeBufferPointer(start: buffer + lineStart, count: lineEnd - lineStart), number: lineNumber)
                }
                return .line(UnsafeBufferPointer(start: buffer + lineStart, count: lineEnd - lineStart), number: lineNumber)
            }
            scanFrom = end
            // One byte more than the limit may still be a `\r` before the `\n`, not part of the line.
            if end - start > maxLineBytes + 1 {
                // Keep a preview and drop the rest as it streams past.
                skipping = Skipped()
                skip(from: start, to: end)
                start = 0
                end = 0
                scanFrom = 0
                if damagedFrom != Int.max { damagedFrom = 0 }
                continue
            }
            switch try refill() {
            case .filled: continue
            case .paused: return .paused
            case .ended:
                guard start < end else { return nil }
                // A last line without a newline.
                lineNumber += 1
                let lineStart = lineNumber == 1 && atFileStart ? afterByteOrderMark(start, end) : start
                start = end
                scanFrom = end
                if deferredError != nil {
                    return .damaged(UnsafeBufferPointer(start: buffer + lineStart, count: end - lineStart), number: lineNumber)
                }
                if stopped {
                    return .cutShort(UnsafeBufferPointer(start: buffer + lineStart, count: end - lineStart), number: lineNumber)
                }
                var lineEnd = end
                if buffer[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
                if lineEnd - lineStart > maxLineBytes {
                    return .tooLong(preview: preview(lineStart, lineEnd - lineStart), length: lineEnd - lineStart, number: lineNumber)
                }
                if end > damagedFrom {
                    return .damaged(UnsafeBufferPointer(start: buffer + lineStart, count: lineEnd - lineStart), number: lineNumber)
                }
                return .line(UnsafeBufferPointer(start: buffer + lineStart, count: lineEnd - lineStart), number: lineNumber)
            }
        }
    }

    private enum Refill {
        case filled
        case ended
        /// Nothing read yet: the run's housekeeping is due (`ReadPacing.due`).
        case paused
    }

    /// Where the first line starts: after a UTF-8 byte-order mark, which some
    /// Windows tools write at the start of a file and which is no part of the JSON.
    private func afterByteOrderMark(_ from: Int, _ to: Int) -> Int {
        to - from >= 3 && buffer[from] == 0xEF && buffer[from + 1] == 0xBB && buffer[from + 2] == 0xBF ? from + 3 : from
    }

    /// Whether a line is blank: only spaces, tabs or `\r` (skipped and counted apart, never an event).
    @inline(__always)
    static func isBlank(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in line where byte != 0x20 && byte != 0x09 && byte != 0x0D { return false }
        return true
    }

    /// Takes bytes `from..<to` of a too-long line into its count and preview.
    private func skip(from: Int, to: Int) {
        guard to > from else { return }
        let wanted = LineReader.previewBytes - skipping!.preview.count
        if wanted > 0 {
            skipping!.preview.append(contentsOf: UnsafeBufferPointer(start: buffer + from, count: min(wanted, to - from)))
        }
        skipping!.length += to - from
        skipping!.endsWithCR = buffer[to - 1] == UInt8(ascii: "\r")
    }

    /// The too-long line just skipped: its length without a final `\r`, as for
    /// any other line, and its first bytes, however the reads fell.
    private func finishSkipping() -> InputLine {
        lineNumber += 1
        let skipped = skipping!
        skipping = nil
        let length = skipped.length - (skipped.endsWithCR ? 1 : 0)
        return .tooLong(preview: Array(skipped.preview.prefix(length)), length: length, number: lineNumber)
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

    /// Moves the unread bytes to the front of the buffer.
    private func compact() {
        guard start > 0 else { return }
        let pending = end - start
        if pending > 0 { memmove(buffer, buffer + start, pending) }
        scanFrom -= start
        if damagedFrom != Int.max { damagedFrom = max(0, damagedFrom - start) }
        end = pending
        start = 0
    }

    /// Once what the buffer holds fits the kept size again (after a long line,
    /// or while a too-long one streams past), the pages written past it are given back.
    private func shrinkAfterLongLine() {
        compact()
        if pages.touched > keptBytes && end + readSize <= keptBytes { pages.release(keeping: keptBytes) }
    }

    /// Moves the unread bytes to the front and reads more. Pauses (with
    /// pacing) before it reads, and again wherever its source pauses; called
    /// again, it goes on from there.
    private func refill() throws -> Refill {
        if ended {
            if let error = deferredError {
                deferredError = nil
                throw error
            }
            return .ended
        }
        if let file = unsniffed {
            // The first bytes (gzip's magic or not) are read ahead of the first refill.
            do {
                guard let head = try file.peek(2) else { return .paused }
                unsniffed = nil
                if head == [0x1F, 0x8B] { source = GzipByteSource(upstream: file, buffers: buffers) }
            } catch {
                unsniffed = nil
                throw error
            }
        }
        shrinkAfterLongLine()
        if let pacing, !finishingLine, !refillHousekept {
            refillHousekept = true
            pacing.due = .refill
            return .paused
        }
        let room = min(capacity - end, readSize)
        var n: Int
        do {
            n = try source.read(into: UnsafeMutableRawBufferPointer(start: buffer + end, count: room))
        } catch is InputStopped {
            refillHousekept = false
            if source.isRegularFile && (start < end || skipping != nil) {
                // A file does not wait: the line being read is read to its end, then reading stops.
                source.finishLineAfterStop()
                finishingLine = true
                return .filled
            }
            // Shutdown: what was read is processed, as at the end of the input.
            ended = true
            stopped = true
            return .ended
        } catch let error as InputError {
            refillHousekept = false
            guard case .corruptGzip = error, start < end || skipping != nil else { throw error }
            // The line the damage cut is returned (rejected) before the error.
            deferredError = error
            damagedFrom = min(damagedFrom, start)
            ended = true
            return .ended
        }
        if n == ReadPacing.paused { return .paused }
        refillHousekept = false
        pages.wrote(upTo: end + n)
        if n > 0 && source.lastReadDamaged && damagedFrom == Int.max { damagedFrom = end }
        if finishingLine {
            if n == 0 {
                ended = true
                return .ended
            }
            if let found = memchr(buffer + end, 0x0A, n) {
                // The line is whole: nothing after it is taken.
                n = buffer.distance(to: found.assumingMemoryBound(to: UInt8.self)) + 1 - end
                ended = true
                stopped = true
            }
        }
        if n == 0 {
            ended = true
            return .ended
        }
        end += n
        return .filled
    }
}
