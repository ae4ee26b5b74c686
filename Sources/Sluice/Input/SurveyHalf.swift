// Unsafe code: `splitOffset` reads the file with pread(2) into a local array's
// bytes (`withUnsafeMutableBytes`, at most the array's count) and into a
// two-byte tuple for the gzip magic; nothing outlives the call.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SluiceJSON

/// Exact order's first read of a large plain file on both cores: the reading
/// thread reads the file's first half while this reads the second on a thread
/// of its own, and `OrderSurvey.append` joins what the two found. The halves
/// meet after a newline, so each line is read whole by one of them, as the
/// second read reads it; the second half's first line keeps a byte order mark
/// (only the file's first line loses one). The run's housekeeping pauses only
/// the reading thread's half; this one reads on, unpaced, until it is done or
/// the run stops (`cancel`).
final class SurveyHalf: @unchecked Sendable {
    /// Files smaller than this are read by the reading thread alone.
    static let smallestSplit = 32 << 20

    /// Where the second half of the file at `path` begins: the byte after the first newline past
    /// its middle. Nil for a file under `smallestSplit`, gzip (its bytes cannot be read from the
    /// middle), one that cannot be read, or one without a newline past its middle.
    static func splitOffset(of path: String, smallest: Int = smallestSplit) -> Int? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let size = Int(info.st_size)
        guard size >= smallest else { return nil }
        var magic: (UInt8, UInt8) = (0, 0)
        guard pread(fd, &magic, 2, 0) == 2, magic != (0x1F, 0x8B) else { return nil }
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        var offset = size / 2
        while offset < size {
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(offset)) }
            guard n > 0 else { return nil }
            if let newline = buffer[..<n].firstIndex(of: UInt8(ascii: "\n")) {
                let split = offset + newline + 1
                return split < size ? split : nil
            }
            offset += n
        }
        return nil
    }

    private let condition = NSCondition()
    private var finished = false
    private var cancelled = false
    private var result: OrderSurvey?

    /// Starts reading `path` from `offset` to its end, recording at most `mostLines` lines, and
    /// the runs of lines at one time when `findsRuns` (the file is a run's only input).
    init(path: String, from offset: Int, maxLineBytes: Int, mostLines: Int, findsRuns: Bool = true) {
        let thread = Thread { [self] in
            let survey = Self.read(path: path, from: offset, maxLineBytes: maxLineBytes, mostLines: mostLines, findsRuns: findsRuns,
                                   stopped: { [self] in condition.withLock { cancelled } })
            condition.withLock {
                result = survey
                finished = true
                condition.broadcast()
            }
        }
        thread.name = "sluice-survey"
        thread.start()
    }

    /// What the half's read came to.
    enum Outcome {
        /// Still reading.
        case reading
        /// Read whole: what it found.
        case read(OrderSurvey)
        /// It holds more lines than may be recorded, a read failed, or it was cancelled.
        case failed
    }

    /// Waits for the half to be read, at most `timeout` (nil: as long as it takes).
    func wait(upTo timeout: Duration? = nil) -> Outcome {
        condition.lock()
        defer { condition.unlock() }
        let deadline = timeout.map { Date(timeIntervalSinceNow: Double($0.nanoseconds) / 1e9) }
        while !finished {
            if let deadline {
                if !condition.wait(until: deadline) && !finished { return .reading }
            } else {
                condition.wait()
            }
        }
        return result.map { .read($0) } ?? .failed
    }

    /// Stops the reading at its next look (every 4096 lines); `wait` then gives `.failed`.
    func cancel() {
        condition.withLock { cancelled = true }
    }

    private static func read(path: String, from offset: Int, maxLineBytes: Int, mostLines: Int, findsRuns: Bool,
                             stopped: @escaping () -> Bool) -> OrderSurvey? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        guard lseek(fd, off_t(offset), SEEK_SET) == off_t(offset) else {
            close(fd)
            return nil
        }
        let file = FileByteSource(path: path, fd: fd, ownsDescriptor: true, stoppable: false)
        let reader = LineReader(path: path, source: file, maxLineBytes: maxLineBytes, atFileStart: false)
        // Its own parser space: the reading thread's is in use meanwhile.
        let input = InputLines(path: path, reader: reader,
                               source: 0, reading: InputReading(maxLineBytes: maxLineBytes, scratch: JSONParseScratch()))
        var survey = OrderSurvey(inputs: 1, mostLines: mostLines, findsRuns: findsRuns)
        input.checksumsLines = true
        switch survey.read(input, index: 0, stopped: stopped) {
        case .done:
            guard input.error == nil, !stopped() else { return nil }
            return survey
        case .tooManyLines, .paused:
            return nil
        }
    }
}
