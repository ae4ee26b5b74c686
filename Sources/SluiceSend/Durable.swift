#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Files and moves that survive a crash or a power loss once the call returns.
enum Durable {
    /// Writes `bytes` to `path` whole: a temporary file beside it, fsync, rename, fsync of the directory.
    static func write(_ bytes: [UInt8], to path: String) throws(SendFailure) {
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if fd < 0 { throw .io("cannot create \(temporary): \(String(cString: strerror(errno)))") }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {
                let code = errno
                close(fd)
                unlink(temporary)
                throw .io("cannot write \(temporary): \(String(cString: strerror(code)))")
            }
            written += n
        }
        let synced = fsync(fd) == 0
        close(fd)
        guard synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw .io("cannot write \(path): \(String(cString: strerror(errno)))")
        }
        syncDirectory(of: path)
    }

    /// Moves `from` to `to` (same filesystem), creating `to`'s folders; an existing
    /// `to` (a file of that name sent before) gets `.1`, `.2`, … before its extension instead of being replaced.
    static func move(_ from: String, to: String) throws(SendFailure) {
        let directory = (to as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .io("cannot create \(directory): \(error.localizedDescription)")
        }
        var target = to
        var counter = 1
        while FileManager.default.fileExists(atPath: target) {
            let name = (to as NSString).lastPathComponent
            let dot = name.firstIndex(of: ".") ?? name.endIndex
            target = directory + "/" + name[..<dot] + ".\(counter)" + name[dot...]
            counter += 1
        }
        guard rename(from, target) == 0 else { throw .io("cannot move \(from) to \(target): \(String(cString: strerror(errno)))") }
        syncDirectory(of: target)
        syncDirectory(of: from)
    }

    static func remove(_ path: String) throws(SendFailure) {
        guard unlink(path) == 0 || errno == ENOENT else { throw .io("cannot delete \(path): \(String(cString: strerror(errno)))") }
        syncDirectory(of: path)
    }

    static func syncDirectory(of path: String) {
        let fd = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
    }
}
