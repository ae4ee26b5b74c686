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
///   the first one carried; the second exits 75 and does nothing.
/// - Loading maps the file read-only and restores the stages from it
///   (`StateFormat.decode`); a missing file is a first run.
/// - Saving streams the state to `FILE.tmp-PID`, fsyncs it, renames it over
///   `FILE` and fsyncs the directory: after a crash there is the old state or
///   the new one, never a mix.
public final class StateFile {
    public let path: String
    private var lockDescriptor: Int32 = -1

    /// Takes the lock (creating the directory if needed), so a state that could
    /// not be saved at the end fails now, before anything is read or written.
    public init(path: String) throws(StateError) {
        self.path = path
        do {
            try FileSystem.makeDirectories(FileSystem.directory(of: path))
        } catch {
            throw .cannotWrite(path: FileSystem.directory(of: path), errno: error.errno, atEnd: false)
        }
        let lockPath = path + ".lock"
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if fd < 0 { throw .cannotWrite(path: lockPath, errno: errno, atEnd: false) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            close(fd)
            if code == EWOULDBLOCK { throw .locked(path: path) }
            throw .cannotWrite(path: lockPath, errno: code, atEnd: false)
        }
        lockDescriptor = fd
        let directory = FileSystem.directory(of: path)
        if access(directory, W_OK) != 0 { throw .cannotWrite(path: directory, errno: errno, atEnd: false) }
    }

    deinit {
        if lockDescriptor >= 0 { close(lockDescriptor) }
    }

    /// Restores `stages` (fresh ones) from the file; nil when there is no file yet.
    func load(into stages: inout [any Stage], sourceBase: Int32) throws(StateError) -> StateFormat.Header? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
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
            return try StateFormat.decode(UnsafeRawBufferPointer(start: nil, count: 0), path: path, into: &stages, sourceBase: sourceBase)
        }
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else {
            throw .cannotRead(path: path, errno: errno)
        }
        defer { munmap(mapped, size) }
        _ = madvise(mapped, size, MADV_SEQUENTIAL)
        return try StateFormat.decode(UnsafeRawBufferPointer(start: mapped, count: size), path: path, into: &stages, sourceBase: sourceBase)
    }

    /// Writes the state of `stages` atomically over the file; returns its size.
    @discardableResult
    func save(stages: [any Stage], sourceNames: [String], latestTime: EventTime) throws(StateError) -> Int {
        let pending = try prepare(stages: stages, sourceNames: sourceNames, latestTime: latestTime)
        try pending.commit()
        return pending.bytes
    }

    /// A saved state not yet in place: written and fsynced beside the file,
    /// put over it by `commit` (rename, fsync of the directory) or thrown
    /// away by `discard`. `--staging` commits it only once the outputs are in place.
    struct PendingSave {
        let temporary: String
        let path: String
        let bytes: Int

        func commit() throws(StateError) {
            if rename(temporary, path) != 0 {
                let code = errno
                unlink(temporary)
                throw .cannotWrite(path: path, errno: code, atEnd: true)
            }
            FileSystem.syncDirectory(FileSystem.directory(of: path))
        }

        func discard() { unlink(temporary) }
    }

    /// Writes the state of `stages` to `FILE.tmp-PID` and fsyncs it; the file itself is not touched yet.
    func prepare(stages: [any Stage], sourceNames: [String], latestTime: EventTime) throws(StateError) -> PendingSave {
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if fd < 0 { throw .cannotWrite(path: temporary, errno: errno, atEnd: true) }
        let writer = StateWriter(sourceNames: sourceNames) { (chunk: UnsafeRawBufferPointer) throws(StateError) in
            let code = FileSystem.writeAll(fd, chunk).errno
            if code != 0 { throw .cannotWrite(path: temporary, errno: code, atEnd: true) }
        }
        StateFormat.encode(stages: stages, latestTime: latestTime, to: writer)
        var failure = writer.failure
        if failure == nil && fsync(fd) != 0 { failure = .cannotWrite(path: temporary, errno: errno, atEnd: true) }
        if close(fd) != 0 && failure == nil { failure = .cannotWrite(path: temporary, errno: errno, atEnd: true) }
        if let failure {
            unlink(temporary)
            throw failure
        }
        return PendingSave(temporary: temporary, path: path, bytes: Int(writer.offset))
    }
}
