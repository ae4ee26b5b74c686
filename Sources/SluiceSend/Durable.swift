#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Sluice

/// Files and moves that survive a crash or a power loss once the call
/// returns, on the output code's own helpers (`AtomicFile`, `FileSystem`).
enum Durable {
    /// Writes `bytes` to `path` whole: a temporary file beside it, fsync, rename, fsync of the directory.
    static func write(_ bytes: [UInt8], to path: String) throws(SendFailure) {
        do {
            try AtomicFile.replace(path, with: bytes, syncingDirectory: true)
        } catch {
            throw .io("\(error)")
        }
    }

    /// Moves `from` to `to` (same filesystem), creating `to`'s folders; an existing
    /// `to` (a file of that name sent before) gets `.1`, `.2`, … before its extension
    /// instead of being replaced, even when another process takes a name meanwhile.
    static func move(_ from: String, to: String) throws(SendFailure) {
        let directory = FileSystem.directory(of: to)
        do {
            try FileSystem.makeDirectories(directory)
        } catch {
            throw .io("\(error)")
        }
        let name = to.lastIndex(of: "/").map { String(to[to.index(after: $0)...]) } ?? to
        let dot = name.firstIndex(of: ".") ?? name.endIndex
        var target = to
        var counter = 1
        while true {
            let code = FileSystem.renameWithoutReplacing(from, to: target)
            if code == 0 { break }
            guard code == EEXIST else { throw .io("cannot move \(from) to \(target): \(String(cString: strerror(code)))") }
            target = directory + "/" + name[..<dot] + ".\(counter)" + name[dot...]
            counter += 1
        }
        FileSystem.syncDirectory(directory)
        FileSystem.syncDirectory(FileSystem.directory(of: from))
    }

    static func remove(_ path: String) throws(SendFailure) {
        guard unlink(path) == 0 || errno == ENOENT else { throw .io("cannot delete \(path): \(String(cString: strerror(errno)))") }
        FileSystem.syncDirectory(FileSystem.directory(of: path))
    }
}
