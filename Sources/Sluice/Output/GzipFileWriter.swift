// Unsafe code: `write` takes records as an `UnsafeRawBufferPointer` (an
// output's buffer) and passes them on to the block stream, which copies them
// during the call; nothing is kept.

import CZlib
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes one gzip file as `NAME.part`, renamed to `NAME` only when complete.
///
/// The bytes are deflated in blocks on a `CompressionPool` (`BlockGzipStream`)
/// and written in order as they are done. Each `endMember()` finishes a gzip
/// member and writes it out (waiting for its blocks), so a `.part`
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
    private let stream: BlockGzipStream
    private(set) var uncompressedBytes = 0
    private var closed = false

    /// Creates the directories and `path.part`; fails if the `.part` exists.
    ///
    /// The `.part` is held with an exclusive `flock` until it is renamed, so
    /// `sluice recover` leaves a file alone while a live run writes it; the
    /// lock goes away with the process, so a crashed run's files are free.
    /// - Parameter alternativeName: the final name to try on the nth attempt (1, 2, ...)
    ///   when the name asked for exists at `close()`; without it `close()` fails then.
    init(path: String, level: Int32, pool: CompressionPool = .shared, blockSize: Int = BlockGzipStream.defaultBlockSize,
         blocksInFlight: Int? = nil, alternativeName: ((Int) -> String)? = nil) throws(OutputError) {
        self.path = path
        let partPath = path + ".part"
        self.partPath = partPath
        self.alternativeName = alternativeName
        try FileSystem.makeDirectories(FileSystem.directory(of: path))
        let fd = try Self.createLocked(partPath)
        self.fd = fd
        stream = BlockGzipStream(level: level, label: partPath, pool: pool, blockSize: blockSize,
                                 maxInFlight: blocksInFlight) { (chunk) throws(OutputError) in
            let result = FileSystem.writeAll(fd, chunk)
            if result.errno != 0 { throw .writeFailed(path: partPath, errno: result.errno) }
        }
    }

    deinit {
        // Blocks still in the pool write to the descriptor: let them finish first.
        stream.waitIdle()
        if !closed { Glibc.close(fd) }
    }

    /// Gzip bytes written to the file so far (blocks still being compressed are not counted yet).
    var compressedBytes: Int { stream.compressedBytes }

    /// Adds `data` to the current member; its blocks are compressed on the pool and written in order.
    func write(_ data: UnsafeRawBufferPointer) throws(OutputError) {
        uncompressedBytes += data.count
        try stream.write(data)
    }

    /// Ends the current gzip member and writes everything out (no fsync);
    /// false when there was nothing to end.
    @discardableResult
    func endMember() throws(OutputError) -> Bool {
        try stream.endMember()
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
        stream.waitIdle()
        if !closed {
            Glibc.close(fd)
            closed = true
        }
    }
}
