// Unsafe code: the state file is mmap(2)ed and read as an
// `UnsafeRawBufferPointer`, so a large state is decoded without a copy into
// memory. The mapping is unmapped only after `decode` returns and the buffer
// is the file's size; the save's writer hands chunks to write(2).

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `sluice run --state FILE` on disk: a lock for the run, the load at its
/// start and the save at its end.
///
/// - The lock is `FILE.lock` (`flock`, held for the whole run), so two cron
///   runs that overlap cannot both start from the same state and lose what
///   the first one carried; the second exits 75 and does nothing. The state
///   file itself is locked too (its inode, held open for the run), so names
///   the lock file cannot tie together, hard links, still exclude each other.
/// - Loading maps the file read-only and restores the stages, and the
///   destinations' device memories, from it (`StateFormat.decode`); a
///   missing file is a first run.
/// - Saving streams the state to `FILE.tmp-PID` and fsyncs it (`write`), and
///   once the run's stats are written too renames it over `FILE` and fsyncs
///   the directory (`commit`): after a crash there is the old state or the
///   new one, never a mix, and a run that failed leaves the old one.
public final class StateFile {
    public let path: String
    private var lockDescriptor: Int32 = -1
    /// The state file as the run found it, open and locked (-1: there was none).
    private var fileLockDescriptor: Int32 = -1

    /// Takes the lock (creating the directory if needed), so a state that could
    /// not be saved at the end fails now, before anything is read or written.
    /// A `path` that is a symbolic link stands for the file it points to: that
    /// file is locked, read and replaced, so every name of one state shares
    /// one lock, and the link stays a link.
    public init(path: String) throws(StateError) {
        self.path = FileSystem.followingSymlinks(path)
        do {
            try FileSystem.makeDirectories(FileSystem.directory(of: self.path))
        } catch {
            throw .cannotWrite(path: FileSystem.directory(of: self.path), errno: error.errno, atEnd: false)
        }
        let lockPath = self.path + ".lock"
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if fd < 0 { throw .cannotWrite(path: lockPath, errno: errno, atEnd: false) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            close(fd)
            if code == EWOULDBLOCK { throw .locked(path: self.path) }
            throw .cannotWrite(path: lockPath, errno: code, atEnd: false)
        }
        lockDescriptor = fd
        // Without waiting: a FIFO is no state file (the load says so), and must not block the open.
        let file = open(self.path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        if file >= 0 {
            if flock(file, LOCK_EX | LOCK_NB) != 0 {
                let code = errno
                close(file)
                if code == EWOULDBLOCK { throw .locked(path: self.path) }
                throw .cannotRead(path: self.path, errno: code)
            }
            fileLockDescriptor = file
        }
        let directory = FileSystem.directory(of: self.path)
        if access(directory, W_OK) != 0 { throw .cannotWrite(path: directory, errno: errno, atEnd: false) }
    }

    deinit {
        discard()
        if fileLockDescriptor >= 0 { close(fileLockDescriptor) }
        if lockDescriptor >= 0 { close(lockDescriptor) }
    }

    /// Restores `stages` (fresh ones) from the file; nil when there is no file yet.
    func load(into stages: inout [any Stage], memories: [StateFormat.Memory] = [], sourceBase: Int32) throws(StateError)
        -> StateFormat.Header? {
        // Without waiting for a FIFO's writer: it is not a state file, refused below.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw .cannotRead(path: path, errno: errno)
        }
        defer { close(fd) }
        var info = stat()
        if fstat(fd, &info) != 0 { throw .cannotRead(path: path, errno: errno) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .notAStateFile(path: path) }
        let size = Int(info.st_size)
        if size == 0 {
            return try StateFormat.decode(UnsafeRawBufferPointer(start: nil, count: 0), path: path, into: &stages, memories: memories,
                                          sourceBase: sourceBase)
        }
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else {
            throw .cannotRead(path: path, errno: errno)
        }
        defer { munmap(mapped, size) }
        _ = madvise(mapped, size, MADV_SEQUENTIAL)
        return try StateFormat.decode(UnsafeRawBufferPointer(start: mapped, count: size), path: path, into: &stages, memories: memories,
                                      sourceBase: sourceBase)
    }

    /// The written state waiting for `commit` (`FILE.tmp-PID`), if any.
    private var pending: String?

    /// Writes the state of `stages` to `FILE.tmp-PID` and fsyncs it; returns
    /// its size. The file itself changes only at `commit`, so the run can still
    /// fail (its stats cannot be written) and leave the previous state for a retry.
    @discardableResult
    func write(stages: [any Stage], memories: [StateFormat.Memory] = [], pendingLines: [Event] = [], sourceNames: [String],
               latestTime: EventTime) throws(StateError) -> Int {
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if fd < 0 { throw .cannotWrite(path: temporary, errno: errno, atEnd: true) }
        let writer = StateWriter(sourceNames: sourceNames) { (chunk: UnsafeRawBufferPointer) throws(StateError) in
            let code = FileSystem.writeAll(fd, chunk).errno
            if code != 0 { throw .cannotWrite(path: temporary, errno: code, atEnd: true) }
        }
        StateFormat.encode(stages: stages, memories: memories, pending: pendingLines, latestTime: latestTime, to: writer)
        var failure = writer.failure
        if failure == nil && fsync(fd) != 0 { failure = .cannotWrite(path: temporary, errno: errno, atEnd: true) }
        if close(fd) != 0 && failure == nil { failure = .cannotWrite(path: temporary, errno: errno, atEnd: true) }
        if let failure {
            unlink(temporary)
            throw failure
        }
        pending = temporary
        return Int(writer.offset)
    }

    /// Puts the written state in place: renamed over the file, the directory fsynced.
    func commit() throws(StateError) {
        guard let temporary = pending else { return }
        pending = nil
        if rename(temporary, path) != 0 {
            let code = errno
            unlink(temporary)
            throw .cannotWrite(path: path, errno: code, atEnd: true)
        }
        FileSystem.syncDirectory(FileSystem.directory(of: path))
    }

    /// Drops the written state: the file stays as the run found it.
    func discard() {
        guard let temporary = pending else { return }
        pending = nil
        unlink(temporary)
    }

    /// Whether a written state waits for `commit` or `discard`.
    var isPending: Bool { pending != nil }
    /// The written state waiting for `commit` (`FILE.tmp-PID`), if any.
    var pendingPath: String? { pending }
}
