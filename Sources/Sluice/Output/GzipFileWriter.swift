import CZlib
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes one gzip file as `NAME.part`, renamed to `NAME` only when complete.
///
/// Each `endMember()` finishes a gzip member and writes it out, so a `.part`
/// left by a crash gunzips up to its last flush. `close()` finishes the
/// stream, fsyncs the file, renames it and fsyncs the directory: a reader that
/// picks up `*.ndjson.gz` never sees a half-written file.
final class GzipFileWriter {
    /// The final name: the one asked for, or the next free one if that was taken by the time the file was finished.
    private(set) var path: String
    let partPath: String
    /// Other final names to try, in order, when `path` exists at `close()`; nil: fail instead.
    private let alternativeName: ((Int) -> String)?
    private let fd: Int32
    /// Nil once the file is written whole (`releaseCompressor`): a file waiting
    /// for its fsync and rename holds no deflate state or buffer.
    private var deflater: GzipDeflater?
    private(set) var uncompressedBytes = 0
    private(set) var compressedBytes = 0
    private var closed = false

    /// Creates the directories and `path.part`; fails if the `.part` exists.
    ///
    /// The `.part` is held with an exclusive `flock` until it is renamed, so
    /// `sluice recover` leaves a file alone while a live run writes it; the
    /// lock goes away with the process, so a crashed run's files are free.
    /// - Parameter alternativeName: the final name to try on the nth attempt (1, 2, ...)
    ///   when the name asked for exists at `close()`; without it `close()` fails then.
    init(path: String, level: Int32, alternativeName: ((Int) -> String)? = nil) throws(OutputError) {
        self.path = path
        self.partPath = path + ".part"
        self.alternativeName = alternativeName
        try FileSystem.makeDirectories(FileSystem.directory(of: path))
        self.fd = try Self.createLocked(partPath)
        deflater = GzipDeflater(level: level, label: partPath)
    }

    deinit {
        if !closed { Glibc.close(fd) }
    }

    /// Compresses `data` into the current member.
    func write(_ data: UnsafeRawBufferPointer) throws(OutputError) {
        uncompressedBytes += data.count
        try deflater!.compress(data) { (chunk) throws(OutputError) in try writeOut(chunk) }
    }

    /// Ends the current gzip member and writes everything out (no fsync);
    /// false when there was nothing to end.
    @discardableResult
    func endMember() throws(OutputError) -> Bool {
        guard let deflater, deflater.pendingInMember > 0 else { return false }
        try deflater.endMember { (chunk) throws(OutputError) in try writeOut(chunk) }
        return true
    }

    /// Frees the deflate state and its output buffer (about half a MiB) once
    /// the last member is ended and written: nothing more is written to the
    /// file, and a slow disk's queue of files to finish then costs no memory.
    func releaseCompressor() {
        precondition(deflater?.pendingInMember ?? 0 == 0, "released with data in the member")
        deflater = nil
    }

    /// Finishes the file: last member, fsync, rename `.part` to its name, fsync the directory.
    ///
    /// Never overwrites: the final name is taken by a rename that fails if it
    /// exists (another destination with the same files, another run into
    /// the same `--out`, a file put there by hand since the `.part` was
    /// opened); then the next free alternative name is taken instead.
    /// The rename happens before the descriptor is closed, while the lock is
    /// still held, so `recover` can never take a complete file in between.
    func close() throws(OutputError) {
        try endMember()
        if fsync(fd) != 0 { throw .writeFailed(path: partPath, errno: errno) }
        try checkLinked()
        try renameWithoutOverwriting()
        closed = true
        // The data is on disk and renamed; a failing close(2) cannot take that back.
        _ = Glibc.close(fd)
        FileSystem.syncDirectory(FileSystem.directory(of: path))
    }

    /// Renames the `.part` to the final name without replacing a file
    /// (`FileSystem.renameWithoutReplacing`); when the name is taken, to the
    /// next alternative name whose `.part` is not in use either.
    private func renameWithoutOverwriting() throws(OutputError) {
        var attempt = 0
        while true {
            let code = FileSystem.renameWithoutReplacing(partPath, to: path)
            if code == 0 { return }
            guard code == EEXIST else { throw .writeFailed(path: partPath, errno: code) }
            guard let alternativeName else { throw .writeFailed(path: path, errno: EEXIST) }
            repeat {
                attempt += 1
                path = alternativeName(attempt)
            } while FileSystem.exists(path) || FileSystem.exists(path + ".part")
        }
    }

    /// Throws when the `.part` is in no directory any more (deleted, or its
    /// directory removed): its records can never be finished.
    func checkLinked() throws(OutputError) {
        var info = stat()
        if fstat(fd, &info) == 0 && info.st_nlink == 0 { throw .removed(path: partPath) }
    }

    /// Pushes what was written so far (whole members) to the disk, so a
    /// `.part` survives a power loss up to its last flush, not only a crash.
    func syncData() throws(OutputError) {
        if fdatasync(fd) != 0 { throw .writeFailed(path: partPath, errno: errno) }
    }

    /// `open(O_CREAT|O_EXCL)` then `flock`, retried if `recover` removed or
    /// moved the empty file between the two calls (the lock then belongs to
    /// an inode that is no longer at `partPath`).
    private static func createLocked(_ partPath: String) throws(OutputError) -> Int32 {
        while true {
            let fd = open(partPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd < 0 { throw .cannotCreate(path: partPath, errno: errno) }
            var result: Int32
            repeat { result = flock(fd, LOCK_EX) } while result != 0 && errno == EINTR
            var opened = stat()
            var named = stat()
            if fstat(fd, &opened) == 0, stat(partPath, &named) == 0,
               opened.st_ino == named.st_ino, opened.st_dev == named.st_dev {
                return fd
            }
            _ = Glibc.close(fd)
        }
    }

    /// Closes the descriptor without renaming: the `.part` stays for `recover`.
    func abandon() {
        if !closed {
            Glibc.close(fd)
            closed = true
        }
    }

    private func writeOut(_ chunk: UnsafeRawBufferPointer) throws(OutputError) {
        let result = FileSystem.writeAll(fd, chunk)
        if result.errno != 0 { throw .writeFailed(path: partPath, errno: result.errno) }
        compressedBytes += chunk.count
    }
}
