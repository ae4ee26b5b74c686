#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes small files (stats, metrics) so a reader sees the old or the new
/// content, never half: a temporary file beside it, fsync, rename.
public enum AtomicFile {
    public static func write(_ text: String, to path: String) throws(OutputError) {
        try FileSystem.makeDirectories(FileSystem.directory(of: path))
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if fd < 0 { throw .cannotCreate(path: temporary, errno: errno) }
        var bytes = Array(text.utf8)
        if bytes.last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, bytes.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                let code = errno
                close(fd)
                unlink(temporary)
                throw .writeFailed(path: temporary, errno: code)
            }
            written += n
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
    }
}
