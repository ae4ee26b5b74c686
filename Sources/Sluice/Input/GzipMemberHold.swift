#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The inflated bytes of a gzip member whose CRC-32 and length are not
/// checked yet: nothing of a member goes on before its trailer says it is
/// intact. The bytes are kept in memory up to `memoryLimit`; a member larger
/// than that (on a pipe, which cannot be read ahead) goes on in an unlinked
/// file in the temporary directory, so memory never depends on a member's size.
final class GzipMemberHold {
    let memoryLimit: Int
    private var memory: UnsafeMutableRawPointer?
    private var capacity = 0
    /// Bytes in memory, and how many of them were handed out.
    private var count = 0
    private var handedOut = 0
    /// The spill file: its descriptor, bytes written, bytes handed out.
    private var spill: Int32 = -1
    private var spilled = 0
    private var spillHandedOut = 0
    /// For error messages: the input whose member this is.
    private let path: String

    init(memoryLimit: Int, path: String) {
        self.memoryLimit = memoryLimit
        self.path = path
    }

    deinit {
        memory?.deallocate()
        if spill >= 0 { _ = Glibc.close(spill) }
    }

    /// Bytes held and not handed out yet.
    var pending: Int { (spilled - spillHandedOut) + (count - handedOut) }

    /// Room after the bytes in memory, grown up to the limit; nil when memory is full.
    func room() -> UnsafeMutableRawBufferPointer? {
        if count == capacity {
            guard capacity < memoryLimit else { return nil }
            let grown = min(memoryLimit, max(64 * 1024, capacity * 2))
            let bigger = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 16)
            if let memory {
                bigger.copyMemory(from: memory, byteCount: count)
                memory.deallocate()
            }
            memory = bigger
            capacity = grown
        }
        return UnsafeMutableRawBufferPointer(start: memory! + count, count: capacity - count)
    }

    /// Takes `n` bytes written into `room()`.
    func commit(_ n: Int) { count += n }

    /// Moves the bytes in memory to the spill file (made on first use), freeing memory for more.
    func spillMemory() throws {
        if spill < 0 { spill = try GzipMemberHold.makeSpillFile(for: path) }
        var written = 0
        while written < count {
            let n = pwrite(spill, memory! + written, count - written, off_t(spilled + written))
            if n < 0 {
                if errno == EINTR { continue }
                throw InputError.readFailed(path: "\(path) (holding a gzip member in \(GzipMemberHold.temporaryDirectory))", errno: errno)
            }
            written += n
        }
        spilled += count
        count = 0
    }

    /// Hands out held bytes in order: the spilled ones first.
    func handOut(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if spillHandedOut < spilled {
            while true {
                let n = pread(spill, buffer.baseAddress, min(buffer.count, spilled - spillHandedOut), off_t(spillHandedOut))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw InputError.readFailed(path: "\(path) (holding a gzip member in \(GzipMemberHold.temporaryDirectory))", errno: errno)
                }
                spillHandedOut += n
                return n
            }
        }
        let n = min(buffer.count, count - handedOut)
        if n > 0 { buffer.baseAddress!.copyMemory(from: memory! + handedOut, byteCount: n) }
        handedOut += n
        return n
    }

    /// Empties the hold for the next member (memory is kept, the spill file truncated).
    func clear() {
        count = 0
        handedOut = 0
        if spilled > 0 { _ = ftruncate(spill, 0) }
        spilled = 0
        spillHandedOut = 0
    }

    static var temporaryDirectory: String {
        if let dir = getenv("TMPDIR"), dir.pointee != 0 { return String(cString: dir) }
        return "/tmp"
    }

    private static func makeSpillFile(for path: String) throws -> Int32 {
        var template = Array("\(temporaryDirectory)/sluice-gzip-member-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        if fd < 0 {
            throw InputError.readFailed(path: "\(path) (holding a gzip member in \(temporaryDirectory))", errno: errno)
        }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return fd
    }
}
