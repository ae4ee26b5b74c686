// Unsafe code: a source fills the caller's `UnsafeMutableRawBufferPointer`
// (the line reader's mapped pages) straight from read(2)/pread(2), so input
// bytes are copied once, by the kernel. Each call is given the buffer's own
// count; `peek`'s bytes are copied back with at most `buffer.count` bytes.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Something that fills a buffer with bytes: a file descriptor, or gzip data inflated from one.
protocol ByteSource: AnyObject {
    /// Reads up to `buffer.count` bytes; 0 means end of input, `ReadPacing.paused`
    /// that nothing was read because the run's housekeeping is due first: call again.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
    /// Bytes consumed from the underlying file so far (compressed bytes for gzip).
    var bytesConsumed: Int { get }
    /// The bytes of the last read come from a gzip member that failed its check:
    /// their lines are rejected, never delivered.
    var lastReadDamaged: Bool { get }
    /// Reads never wait (a regular file, memory): a line a stop cuts can be read to its end.
    var isRegularFile: Bool { get }
    /// After a stop, reads go on without pausing, to finish the line being read.
    func finishLineAfterStop()
    func close()
}

extension ByteSource {
    var lastReadDamaged: Bool { false }
    var isRegularFile: Bool { false }
    func finishLineAfterStop() {}
}

/// Why reading an input failed.
public enum InputError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input could not be opened (exit 66).
    case cannotOpen(path: String, errno: Int32)
    /// read(2) failed (exit 74).
    case readFailed(path: String, errno: Int32)
    /// The gzip data is corrupt or truncated at a compressed byte offset (exit 65).
    case corruptGzip(path: String, offset: Int, message: String)

    /// A fault in the data itself (a corrupt gzip), like a rejected line: the run
    /// still saves its `--state`. An input that cannot be opened or read is a
    /// failed run: the previous state is left, so the same inputs can be run again from it.
    public var isDataProblem: Bool {
        if case .corruptGzip = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case let .cannotOpen(path, code):
            return "cannot open input \(path): \(String(cString: strerror(code))); check the path and its permissions"
        case let .readFailed(path, code):
            return "read error on \(path): \(String(cString: strerror(code)))"
        case let .corruptGzip(path, offset, message):
            return "corrupt gzip data in \(path) at compressed byte \(offset): \(message); the lines of the damaged member were rejected (corrupt_gzip), the members before it were processed, the rest of this file was not"
        }
    }
}

/// Reads a file descriptor with large read(2) calls.
final class FileByteSource: ByteSource {
    let path: String
    private let fd: Int32
    private let ownsDescriptor: Bool
    /// Bytes read ahead to sniff the format, returned before reading the descriptor again.
    @exclusivity(unchecked) private var pending: [UInt8] = []
    @exclusivity(unchecked) private(set) var bytesConsumed = 0
    /// Paused at before every read(2) (the first call of each returns
    /// `ReadPacing.paused`, the next reads); nil reads straight away.
    private let pacing: ReadPacing?
    /// Whether a shutdown stops its reads (not for what a run reads after its
    /// inputs, which is read to its end whatever the stop).
    private let stoppable: Bool
    /// The run did its housekeeping for the read(2) that paused: the next call reads.
    @exclusivity(unchecked) private var housekept = false
    /// Whether a read may wait for data (a pipe, a terminal), unlike a regular file.
    private let mayBlock: Bool
    /// Set once a read returned 0: the end stays the end. At a terminal the
    /// end is one Ctrl-D, which read(2) reports once; reading again would wait
    /// for more typing (the peek that sniffs gzip must not use it up).
    @exclusivity(unchecked) private var ended = false
    /// A terminal in canonical mode hands over a line at its newline, or what
    /// was typed so far at a Ctrl-D: a read that ends without a newline (and
    /// short of the terminal's line limit) was a Ctrl-D, so it ends the input
    /// at once instead of waiting for a second one.
    private let isTerminal: Bool
    /// Set after a stop to read a regular file on to the end of the line being read.
    @exclusivity(unchecked) private var pastStop = false
    /// Where reading began in a regular file (stdin may be one, already read into).
    private let startOffset: Int
    /// Bytes after which the file ends for this source (exact order's first read of a file's first half); nil: its end.
    var limit: Int?

    var isRegularFile: Bool { !mayBlock }

    init(path: String, fd: Int32, ownsDescriptor: Bool, pacing: ReadPacing? = nil, stoppable: Bool = true) {
        self.path = path
        self.fd = fd
        self.ownsDescriptor = ownsDescriptor
        self.pacing = pacing
        self.stoppable = stoppable
        var info = stat()
        mayBlock = fstat(fd, &info) != 0 || info.st_mode & S_IFMT != S_IFREG
        isTerminal = isatty(fd) == 1
        startOffset = mayBlock ? 0 : max(0, Int(lseek(fd, 0, SEEK_CUR)))
    }

    /// Opens `path`, or stdin for `-`.
    ///
    /// With pacing, a FIFO is opened without waiting for its writer (open(2)
    /// would wait where no signal can stop it, `SA_RESTART` restarting it):
    /// the wait is the run's poll when the first read pauses, which serves
    /// SIGTERM and SIGINT at once. Reads then block as for any pipe.
    static func open(_ path: String, pacing: ReadPacing? = nil, stoppable: Bool = true) throws -> FileByteSource {
        if path == "-" { return FileByteSource(path: "-", fd: 0, ownsDescriptor: false, pacing: pacing, stoppable: stoppable) }
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | (pacing == nil ? 0 : O_NONBLOCK))
        if fd < 0 { throw InputError.cannotOpen(path: path, errno: errno) }
        if pacing != nil { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) }
        return FileByteSource(path: path, fd: fd, ownsDescriptor: true, pacing: pacing, stoppable: stoppable)
    }

    /// Reads the first bytes (up to `count`) without consuming them; nil when
    /// a read paused (call again: it goes on from what it has). A stop while
    /// waiting keeps what was read; the next read stops again.
    func peek(_ count: Int) throws -> [UInt8]? {
        var scratch = [UInt8](repeating: 0, count: count)
        while pending.count < count {
            let n: Int
            do {
                n = try scratch.withUnsafeMutableBytes { raw in
                    try readDescriptor(UnsafeMutableRawBufferPointer(rebasing: raw[..<(count - pending.count)]))
                }
            } catch is InputStopped {
                break
            }
            if n == ReadPacing.paused { return nil }
            if n == 0 { break }
            pending.append(contentsOf: scratch[..<n])
            bytesConsumed -= n
        }
        return pending
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if !pending.isEmpty {
            let n = min(pending.count, buffer.count)
            pending.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: n) }
            pending.removeFirst(n)
            bytesConsumed += n
            return n
        }
        return try readDescriptor(buffer)
    }

    func finishLineAfterStop() {
        if !mayBlock { pastStop = true }
    }

    /// Reads a regular file at an offset from where reading began, leaving the reading position alone
    /// (a gzip member checked ahead). It pauses for signals and timers as any read does.
    func readAhead(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws -> Int {
        if try pausesFirst(mayBlock: false) { return ReadPacing.paused }
        while true {
            let n = pread(fd, buffer.baseAddress, buffer.count, off_t(startOffset + offset))
            if n >= 0 { return n }
            if errno == EINTR { continue }
            throw InputError.readFailed(path: path, errno: errno)
        }
    }

    private func readDescriptor(_ buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if ended { return 0 }
        var room = buffer.count
        if let limit {
            room = min(room, limit - bytesConsumed)
            if room <= 0 {
                ended = true
                return 0
            }
        }
        if try pausesFirst(mayBlock: mayBlock) { return ReadPacing.paused }
        while true {
            let n = Glibc.read(fd, buffer.baseAddress, room)
            if n >= 0 {
                if n == 0 { ended = true }
                if isTerminal, n > 0, n < min(buffer.count, 4095), buffer[n - 1] != UInt8(ascii: "\n") { ended = true }
                bytesConsumed += n
                return n
            }
            if errno == EINTR { continue }
            throw InputError.readFailed(path: path, errno: errno)
        }
    }

    /// Whether this read returns `ReadPacing.paused` first, for the run's
    /// housekeeping; once the run did it, the read goes on, unless a shutdown
    /// was asked for meanwhile (`InputStopped`).
    @inline(__always)
    private func pausesFirst(mayBlock: Bool) throws -> Bool {
        guard let pacing, !pastStop else { return false }
        guard housekept else {
            housekept = true
            // What is read after the inputs never waits for the run's poll (it is a regular file).
            pacing.due = .read(fd: fd, mayBlock: mayBlock && stoppable)
            return true
        }
        housekept = false
        if stoppable && pacing.stopRequested { throw InputStopped() }
        return false
    }

    func close() {
        if ownsDescriptor { _ = Glibc.close(fd) }
    }
}
