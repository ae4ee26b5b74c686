// Unsafe code: `writeAll` takes an `UnsafeRawBufferPointer` and passes it to
// write(2), so callers write their buffers without a copy; it writes only
// `bytes.count` bytes, and the caller keeps the memory alive for the call.

import CRename
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Small POSIX helpers for output paths (`sluice send` moves and removes files with them too).
package enum FileSystem {
    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The file a path names once its symbolic links are followed (a link to
    /// a link, a target relative to the link's directory); the target need
    /// not exist yet. `path` itself when it is no link, or a loop of them.
    package static func followingSymlinks(_ path: String) -> String {
        var current = path
        for _ in 0..<40 {
            var info = stat()
            guard lstat(current, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return current }
            var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(current, &target, Int(PATH_MAX))
            guard count > 0 else { return current }
            let text = String(decoding: target[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = text.hasPrefix("/") ? text : directory(of: current) + "/" + text
        }
        return path
    }

    /// `mkdir -p`.
    package static func makeDirectories(_ path: String) throws(OutputError) {
        var made: [String] = []
        try makeDirectories(path, made: &made)
    }

    /// `mkdir -p`, appending each directory it created to `made`, outermost first
    /// (their parents are what to fsync for the new names to last).
    static func makeDirectories(_ path: String, made: inout [String]) throws(OutputError) {
        if path.isEmpty || path == "." || path == "/" { return }
        var info = stat()
        if stat(path, &info) == 0 {
            if info.st_mode & S_IFMT == S_IFDIR { return }
            throw .cannotCreate(path: path, errno: ENOTDIR)
        }
        try makeDirectories(directory(of: path), made: &made)
        if mkdir(path, 0o755) == 0 {
            made.append(path)
        } else if errno != EEXIST {
            throw .cannotCreate(path: path, errno: errno)
        }
    }

    /// Gives the file `from` the name `to` unless a file has that name: 0, or
    /// the errno (`EEXIST` when `to` is taken). One atomic rename(2) that
    /// cannot replace (`RENAME_NOREPLACE`); where the filesystem cannot do that,
    /// link(2), which fails rather than replace, then unlink(2) of `from`; where
    /// it has no hard links either (FAT, some FUSE filesystems), a check then a
    /// rename, which are not atomic together.
    package static func renameWithoutReplacing(_ from: String, to: String) -> Int32 {
        while true {
            if sluice_rename_noreplace(from, to) == 0 { return 0 }
            let code = errno
            switch code {
            case EINTR: continue
            case EINVAL, ENOSYS, ENOTSUP, EOPNOTSUPP: break
            default: return code
            }
            if link(from, to) == 0 { return unlink(from) == 0 ? 0 : errno }
            switch errno {
            case EEXIST: return EEXIST
            case EPERM, ENOTSUP, EMLINK:
                if exists(to) { return EEXIST }
                return rename(from, to) == 0 ? 0 : errno
            case EINTR: continue
            case let other: return other
            }
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

    package static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    package static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// fsync a directory so a rename in it survives a power loss.
    package static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            _ = fsync(fd)
            _ = Glibc.close(fd)
        }
    }
}
