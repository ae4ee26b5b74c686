// Unsafe code: the valid part of a `.part` file is copied with pread(2) and
// write(2) through one allocated buffer (freed by `defer`), as the C calls
// take a pointer; each read asks at most the buffer's size, each write what was
// read.

import Foundation

/// Handles one `.part` file for `PartFileRecovery` (see there for the rules).
///
/// Order of steps, so that an interruption at any point leaves something the
/// next `recover` finishes: the final file is complete (fsynced) before it
/// gets its name, and the original moves to the quarantine only after that;
/// a `.part` whose final name exists is never renamed over it.
struct PartFileRecoverer {
    let path: String
    let options: PartFileRecovery.Options

    private var finalPath: String { String(path.dropLast(".part".count)) }

    /// What was done with the file; nil when it is gone: a live run finished
    /// (renamed) it since the directory was listed, which leaves nothing to do.
    func recover() -> RecoveredFile? {
        var outcome = RecoveredFile(path: path, action: .removed)
        outcome.dryRun = options.dryRun
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            outcome.action = .failed(.failed(operation: "open", path: path, errno: errno))
            return outcome
        }
        defer { close(fd) }   // also releases the lock
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            outcome.action = errno == EWOULDBLOCK ? .inUse : .failed(.failed(operation: "flock", path: path, errno: errno))
            return outcome
        }
        // The writer may have renamed it between our scan of the directory and the lock.
        var opened = stat()
        var named = stat()
        guard fstat(fd, &opened) == 0, stat(path, &named) == 0, opened.st_ino == named.st_ino else {
            if errno == ENOENT { return nil }
            outcome.action = .inUse
            return outcome
        }
        do {
            if opened.st_size == 0 {
                if !options.dryRun { try check(unlink(path), "remove", path) }
                outcome.action = .removed
                return outcome
            }
            var final = stat()
            if stat(finalPath, &final) == 0, final.st_ino == opened.st_ino, final.st_dev == opened.st_dev {
                // A run finished this file (its final name is a link to it) and
                // stopped before removing the `.part` name: only that is left to do.
                if !options.dryRun {
                    try check(unlink(path), "remove", path)
                    FileSystem.syncDirectory(FileSystem.directory(of: path))
                }
                outcome.action = .renamed
                outcome.target = finalPath
                return outcome
            }
            let scan = try GzipMemberScan.scan(fd: fd).readingPastTrailingZeros(of: fd)
            outcome.scan = scan
            if scan.members == 0 && scan.cutLines == 0 {
                outcome.action = .quarantined
                outcome.quarantinedAs = try quarantine()
            } else if FileSystem.exists(finalPath) {
                outcome.action = .conflict
                outcome.quarantinedAs = try quarantine()
            } else if scan.isComplete {
                outcome.action = .renamed
                outcome.target = finalPath
                if !options.dryRun { try renameComplete(fd) }
            } else {
                outcome.action = .salvaged
                outcome.target = finalPath
                if !options.dryRun {
                    try writeFinal(from: fd, scan: scan)
                }
                outcome.quarantinedAs = try quarantine()
            }
        } catch {
            outcome.action = .failed(error)
        }
        return outcome
    }

    /// fsync, then link the `.part` to its final name (fails if the name
    /// exists: never overwrites), then remove the `.part` name.
    private func renameComplete(_ fd: Int32) throws(RecoveryError) {
        try check(fsync(fd), "fsync", path)
        try check(link(path, finalPath), "link to", finalPath)
        try check(unlink(path), "remove", path)
        FileSystem.syncDirectory(FileSystem.directory(of: path))
    }

    /// Copies the complete members to `NAME.recovering`, then the whole lines
    /// of a member cut by the end of the file as a member of their own,
    /// fsyncs it and links it to the final name.
    private func writeFinal(from fd: Int32, scan: GzipMemberScan) throws(RecoveryError) {
        let bytes = scan.validBytes
        let temporary = finalPath + ".recovering"
        let out = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if out < 0 { throw .failed(operation: "create", path: temporary, errno: errno) }
        var closed = false
        defer {
            if !closed { close(out) }
            unlink(temporary)
        }
        let chunk = 256 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var offset = 0
        while offset < bytes {
            let n = pread(fd, buffer, min(chunk, bytes - offset), off_t(offset))
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { throw .failed(operation: "read", path: path, errno: n < 0 ? errno : EIO) }
            var written = 0
            while written < n {
                let w = write(out, buffer + written, n - written)
                if w < 0 && errno == EINTR { continue }
                if w < 0 { throw .failed(operation: "write", path: temporary, errno: errno) }
                written += w
            }
            offset += n
        }
        try CutMemberSalvage.write(from: fd, offset: bytes, lineBytes: scan.cutLineBytes, to: out, outPath: temporary)
        try check(fsync(out), "fsync", temporary)
        closed = true
        try check(close(out), "close", temporary)
        try check(link(temporary, finalPath), "link to", finalPath)
        FileSystem.syncDirectory(FileSystem.directory(of: finalPath))
    }

    /// Moves the original into the quarantine folder (same relative path;
    /// `.1`, `.2`, ... added if that name is taken); returns its new path.
    private func quarantine() throws(RecoveryError) -> String {
        let relative = path.hasPrefix(options.directory + "/") ? String(path.dropFirst(options.directory.count + 1)) : path
        var target = options.quarantineDirectory + "/" + relative
        var attempt = 0
        while FileSystem.exists(target) {
            attempt += 1
            target = options.quarantineDirectory + "/" + relative + ".\(attempt)"
        }
        if options.dryRun { return target }
        do {
            try FileSystem.makeDirectories(FileSystem.directory(of: target))
        } catch {
            throw .failed(operation: "create the quarantine folder for", path: target, errno: EIO)
        }
        try check(rename(path, target), "move to quarantine", path)
        FileSystem.syncDirectory(FileSystem.directory(of: target))
        FileSystem.syncDirectory(FileSystem.directory(of: path))
        return target
    }

    private func check(_ result: Int32, _ operation: String, _ path: String) throws(RecoveryError) {
        if result != 0 { throw .failed(operation: operation, path: path, errno: errno) }
    }
}
