#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Small POSIX helpers for output paths.
enum FileSystem {
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `mkdir -p`.
    static func makeDirectories(_ path: String) throws(OutputError) {
        if path.isEmpty || path == "." || path == "/" { return }
        var info = stat()
        if stat(path, &info) == 0 {
            if info.st_mode & S_IFMT == S_IFDIR { return }
            throw .cannotCreate(path: path, errno: ENOTDIR)
        }
        try makeDirectories(directory(of: path))
        if mkdir(path, 0o755) != 0 && errno != EEXIST {
            throw .cannotCreate(path: path, errno: errno)
        }
    }

    /// Writes all of `bytes` to `fd`, again after a signal interrupts a write;
    /// returns how many were written and, if a write failed, its errno (else 0).
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> (written: Int, errno: Int32) {
        var written = 0
        while written < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + written, bytes.count - written)
            if n < 0 {
                if errno == EINTR { continue }
                return (written, errno)
            }
            written += n
        }
        return (written, 0)
    }

    /// Whether `path` names the file open as `fd` (`/dev/stdout` when records go to stdout).
    static func isOpen(_ path: String, as fd: Int32) -> Bool {
        var named = stat(), open = stat()
        guard stat(path, &named) == 0, fstat(fd, &open) == 0 else { return false }
        return named.st_dev == open.st_dev && named.st_ino == open.st_ino
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// fsync a directory so a rename in it survives a power loss.
    static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            _ = fsync(fd)
            _ = Glibc.close(fd)
        }
    }
}
