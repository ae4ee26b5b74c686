// Unsafe code: a member's bytes are held in mapped pages (`PageMemory`, owned
// here, so they live as long as the hold) and handed out with copies into the
// caller's buffer, so memory is taken only as written. Writes stay below
// `memoryLimit` (`room()`), reads below `count`. The spill file's name goes to
// mkstemp/unlink as a C string array, only for those calls.

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
///
/// The memory is pages mapped for `memoryLimit` and taken as they are
/// written. Between members the pages past the first `keptBytes` are given
/// back when the hold will not need them soon: after a member that filled
/// the hold (the rest of it goes on without the hold, however long it is),
/// and when a small member follows a large one. Members of about the same
/// size under the limit, one after another, keep theirs.
final class GzipMemberHold {
    let memoryLimit: Int
    /// What the hold keeps written between members: small members reuse it.
    static let keptBytes = 64 * 1024
    private let pages: PageMemory
    private let memory: UnsafeMutableRawPointer
    /// The member filled memory (it was checked ahead, or spilled).
    @exclusivity(unchecked) private var filled = false
    /// Bytes in memory, and how many of them were handed out.
    @exclusivity(unchecked) private var count = 0
    @exclusivity(unchecked) private var handedOut = 0
    /// The spill file: its descriptor, bytes written, bytes handed out.
    @exclusivity(unchecked) private var spill: Int32 = -1
    @exclusivity(unchecked) private var spilled = 0
    @exclusivity(unchecked) private var spillHandedOut = 0
    /// For error messages: the input whose member this is.
    private let path: String

    init(memoryLimit: Int, path: String) {
        self.memoryLimit = memoryLimit
        self.path = path
        pages = PageMemory(capacity: memoryLimit)
        memory = pages.base
    }

    deinit {
        if spill >= 0 { _ = Glibc.close(spill) }
    }

    /// Bytes held and not handed out yet.
    var pending: Int { (spilled - spillHandedOut) + (count - handedOut) }

    /// Room after the bytes in memory, up to the limit; nil when memory is full.
    func room() -> UnsafeMutableRawBufferPointer? {
        guard count < memoryLimit else {
            filled = true
            return nil
        }
        return UnsafeMutableRawBufferPointer(start: memory + count, count: memoryLimit - count)
    }

    /// Takes `n` bytes written into `room()`.
    func commit(_ n: Int) {
        count += n
        pages.wrote(upTo: count)
    }

    /// The memory the hold's pages may take now: what was written since they were last given back.
    var residentBytes: Int { PageMemory.roundedUp(pages.touched) }

    /// Moves the bytes in memory to the spill file (made on first use), freeing memory for more.
    func spillMemory() throws {
        if spill < 0 { spill = try GzipMemberHold.makeSpillFile(for: path) }
        var written = 0
        while written < count {
            let n = pwrite(spill, memory + written, count - written, off_t(spilled + written))
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
        if n > 0 { buffer.baseAddress!.copyMemory(from: memory + handedOut, byteCount: n) }
        handedOut += n
        return n
    }

    /// Empties the hold for the next member (the spill file truncated),
    /// giving back the pages past `keptBytes` after a member that filled it
    /// or a small member.
    func clear() {
        if filled || count <= GzipMemberHold.keptBytes { pages.release(keeping: GzipMemberHold.keptBytes) }
        filled = false
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
