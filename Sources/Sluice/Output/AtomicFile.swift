// Unsafe code: `withUnsafeBytes` hands the file's bytes to write(2)
// (`FileSystem.writeAll`) without a copy; the array outlives the call and
// the count is its own.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes small files (stats, metrics) so a reader sees the old or the new
/// content, never half: a temporary file beside it, fsync, rename.
///
/// A path that is a device, a FIFO or a socket (`--stats /dev/stderr`, a
/// FIFO a collector reads) is written to as it is: renaming over it would
/// replace it (as root, `/dev/stderr` itself) with a regular file. A symbolic
/// link is followed first, and the file it leads to is the one replaced:
/// `--stats /dev/stdout` with stdout redirected to a file fills that file,
/// where renaming over the link replaced `/dev/stdout` itself.
public enum AtomicFile {
    /// - Parameters:
    ///   - waitingForReader: false: a FIFO with no reader is not waited for
    ///     (`ENXIO`), as a process about to exit must not wait.
    ///   - stopWaiting: while a FIFO has no reader, asked every 10 ms whether
    ///     to give up (a signal the caller must serve): then `ENXIO`. Nil: open(2)
    ///     waits for the reader.
    public static func write(_ text: String, to given: String, waitingForReader: Bool = true,
                             stopWaiting: (() -> Bool)? = nil) throws(OutputError) {
        let path = resolvingLinks(given)
        var bytes = Array(text.utf8)
        if bytes.last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG, info.st_mode & S_IFMT != S_IFDIR {
            try writeInPlace(bytes, to: path, waitingForReader: waitingForReader, stopWaiting: stopWaiting)
            return
        }
        try FileSystem.makeDirectories(FileSystem.directory(of: path))
        try replace(path, with: bytes)
    }

    /// Replaces the regular file `path` with `bytes` whole: a temporary file
    /// beside it, fsync, rename; with `syncingDirectory`, the directory is
    /// fsynced too, so the new name survives a power loss (`sluice send`'s rejects).
    package static func replace(_ path: String, with bytes: [UInt8], syncingDirectory: Bool = false) throws(OutputError) {
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if fd < 0 { throw .cannotCreate(path: temporary, errno: errno) }
        let code = bytes.withUnsafeBytes { FileSystem.writeAll(fd, $0).errno }
        if code != 0 {
            close(fd)
            unlink(temporary)
            throw .writeFailed(path: temporary, errno: code)
        }
        if fsync(fd) != 0 || close(fd) != 0 {
            let code = errno
            unlink(temporary)
            throw .writeFailed(path: temporary, errno: code)
        }
        if rename(temporary, path) != 0 {
            let code = errno
            unlink(temporary)
            throw .writeFailed(path: path, errno: code)
        }
        if syncingDirectory { FileSystem.syncDirectory(FileSystem.directory(of: path)) }
    }

    /// Checks that `write` could put a file at `given` (its directory made, a
    /// file created and removed beside it; a device or FIFO must be writable),
    /// so a run finds out at its start, not at its end, that a report cannot be written.
    public static func checkWritable(_ given: String) throws(OutputError) {
        let path = resolvingLinks(given)
        var info = stat()
        if stat(path, &info) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFDIR: throw .cannotCreate(path: path, errno: EISDIR)
            case S_IFREG: break
            default:
                if access(path, W_OK) != 0 { throw .cannotCreate(path: path, errno: errno) }
                return
            }
        }
        try FileSystem.makeDirectories(FileSystem.directory(of: path))
        let probe = path + ".tmp-\(getpid())"
        let fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        if fd < 0 { throw .cannotCreate(path: path, errno: errno) }
        close(fd)
        unlink(probe)
    }

    /// The file a symbolic link leads to (the path itself when it is none, or a dangling one).
    static func resolvingLinks(_ path: String) -> String {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK, let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func writeInPlace(_ bytes: [UInt8], to path: String, waitingForReader: Bool,
                                     stopWaiting: (() -> Bool)?) throws(OutputError) {
        let waitsInOpen = waitingForReader && stopWaiting == nil
        var fd: Int32
        while true {
            fd = open(path, O_WRONLY | O_CLOEXEC | (waitsInOpen ? 0 : O_NONBLOCK))
            // A FIFO without a reader: open(2) cannot be woken by a signal (SA_RESTART), so wait here.
            guard fd < 0, errno == ENXIO, waitingForReader, let stopWaiting, !stopWaiting() else { break }
            _ = poll(nil, 0, 10)
        }
        if fd < 0 { throw .cannotCreate(path: path, errno: errno) }
        if !waitsInOpen { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) }
        defer { close(fd) }
        let code = bytes.withUnsafeBytes { FileSystem.writeAll(fd, $0).errno }
        if code != 0 { throw .writeFailed(path: path, errno: code) }
    }
}
