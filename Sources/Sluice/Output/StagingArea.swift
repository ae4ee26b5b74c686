// Unsafe code: the journal is written with pwrite(2) and read with pread(2)
// through `withUnsafeBytes`/`withUnsafeMutableBytes` over arrays, which the C
// calls take as pointers; each is given the array's own count.

import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `sluice run --staging DIR`: the run writes every file it would write
/// under `--out` (destinations and rejects, `.part` files and all) under DIR
/// instead, with the same relative paths, and `publish` moves them into place
/// under `--out` only when the run succeeded. A killed or failed attempt
/// leaves nothing under `--out`; a retry after a success finds the names
/// taken and refuses, so no record is ever there twice.
///
/// - DIR and `--out` must be on one filesystem (`st_dev`), so every move is
///   one atomic rename; DIR may not be `--out` or hold it.
/// - DIR holds `.sluice-staging`, created by the run and `flock`ed by it for
///   as long as it runs: a second run with the same DIR exits 75. A DIR that
///   holds that file and is not locked is a dead attempt's: its files are
///   removed at the start (that is the retry), so the retry writes the same
///   names from `{seq}` 0. A DIR that holds other files and no marker is not
///   Sluice's, and is refused.
/// - Moving never replaces a file: every name is checked first (a taken
///   name fails the run with exit 73 and moves nothing), then each file is
///   renamed without replacing (`FileSystem.renameWithoutReplacing`); if one
///   fails, those moved are moved back. Then the directories are fsynced.
/// - Before the first move the list of files is written to the marker and
///   fsynced, and it is emptied when the moves are over (or undone). A run
///   killed while moving (milliseconds) leaves that list: the next attempt
///   with the same DIR then refuses (exit 73), saying how many of the files
///   are in place, rather than remove the rest and run again.
public final class StagingArea {
    /// The file that marks a directory as a staging directory and holds the run's lock.
    public static let markerName = ".sluice-staging"

    public let directory: String
    public let outDirectory: String
    private var lockDescriptor: Int32 = -1

    /// Claims DIR for this run: creates both directories, checks them against
    /// each other, takes the lock, and removes what a dead attempt left.
    public init(directory: String, outDirectory: String, logger: Logger) throws(StagingError) {
        self.directory = directory
        self.outDirectory = outDirectory
        for path in [outDirectory, directory] {
            do {
                try FileSystem.makeDirectories(path)
            } catch {
                throw .cannotUse(path: path, errno: error.errno)
            }
        }
        let staging = try Self.identity(directory), out = try Self.identity(outDirectory)
        if staging.real == out.real || (out.real + "/").hasPrefix(staging.real + "/") {
            throw .holdsOut(staging: directory, out: outDirectory)
        }
        if staging.device != out.device { throw .otherFilesystem(staging: directory, out: outDirectory) }
        let marker = directory + "/" + Self.markerName
        var fd = open(marker, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        let fresh = fd >= 0
        if !fresh {
            guard errno == EEXIST else { throw .cannotUse(path: marker, errno: errno) }
            fd = open(marker, O_RDWR | O_CLOEXEC)
            if fd < 0 { throw .cannotUse(path: marker, errno: errno) }
        }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            close(fd)
            if code == EWOULDBLOCK { throw .inUse(staging: directory) }
            throw .cannotUse(path: marker, errno: code)
        }
        lockDescriptor = fd
        if !fresh, let journal = Self.readJournal(fd), !journal.isEmpty {
            throw .interruptedPublish(staging: directory, inPlace: journal.filter { FileSystem.exists(outDirectory + "/" + $0) }.count,
                                      of: journal.count)
        }
        let others = (try? FileManager.default.contentsOfDirectory(atPath: directory))?.filter { $0 != Self.markerName } ?? []
        if fresh, let other = others.sorted().first {
            unlink(marker)
            throw .notStaging(staging: directory, holds: other)
        }
        if !others.isEmpty {
            var removed = 0
            for name in others {
                let path = directory + "/" + name
                removed += Self.regularFiles(under: path).count + (FileSystem.isDirectory(path) ? 0 : 1)
                do {
                    try FileManager.default.removeItem(atPath: path)
                } catch {
                    throw .cannotUse(path: path, errno: (error as NSError).code == 0 ? EIO : Int32((error as NSError).code))
                }
            }
            FileSystem.syncDirectory(directory)
            logger.warning("--staging \(directory): removed what an earlier attempt left (\(removed) files), which was never moved into place")
        }
    }

    deinit {
        if lockDescriptor >= 0 { close(lockDescriptor) }
    }

    /// Files moved into place, which `rollBack` can move back.
    public struct Publication {
        fileprivate var moves: [(from: String, to: String)] = []
        fileprivate var made: [String] = []
        public var count: Int { moves.count }
    }

    /// Moves every file of `publication` back under the staging directory and
    /// removes the directories the moves made under `--out`: nothing is left in place.
    public func rollBack(_ publication: Publication) {
        for move in publication.moves.reversed() { _ = FileSystem.renameWithoutReplacing(move.to, to: move.from) }
        for path in publication.made.reversed() { rmdir(path) }
        for directory in Set(publication.moves.flatMap { [FileSystem.directory(of: $0.from), FileSystem.directory(of: $0.to)] }) {
            FileSystem.syncDirectory(directory)
        }
        writeJournal([])
    }

    /// Moves every file under the staging directory to the same path under
    /// `--out`. Nothing is moved when a name is taken or a file is unfinished;
    /// a move that fails moves the others back. Then the directories of both
    /// sides are fsynced, so the new names last.
    public func publish() throws(StagingError) -> Publication {
        let files = Self.regularFiles(under: directory).filter { $0 != Self.markerName }
        if let part = files.first(where: { $0.hasSuffix(".part") }) {
            throw .unfinished(path: directory + "/" + part)
        }
        for file in files where FileSystem.exists(outDirectory + "/" + file) {
            throw .nameTaken(path: outDirectory + "/" + file, staged: directory + "/" + file)
        }
        guard writeJournal(files) else { throw .cannotUse(path: directory + "/" + Self.markerName, errno: errno) }
        var publication = Publication()
        for file in files {
            let from = directory + "/" + file, to = outDirectory + "/" + file
            do {
                try FileSystem.makeDirectories(FileSystem.directory(of: to), made: &publication.made)
            } catch {
                rollBack(publication)
                throw .cannotUse(path: FileSystem.directory(of: to), errno: error.errno)
            }
            let code = FileSystem.renameWithoutReplacing(from, to: to)
            if code != 0 {
                rollBack(publication)
                if code == EEXIST { throw .nameTaken(path: to, staged: from) }
                throw .moveFailed(from: from, to: to, errno: code)
            }
            publication.moves.append((from, to))
        }
        var synced = Set<String>()
        for directory in publication.made.map(FileSystem.directory(of:))
            + publication.moves.flatMap({ [FileSystem.directory(of: $0.to), FileSystem.directory(of: $0.from)] })
            where synced.insert(directory).inserted {
            FileSystem.syncDirectory(directory)
        }
        return publication
    }

    /// The files `publish` would move, relative to the staging directory, sorted.
    var stagedFiles: [String] { Self.regularFiles(under: directory).filter { $0 != Self.markerName } }

    /// After a successful publish: removes the staging directory's empty
    /// folders, the marker and the directory itself (when nothing else is in it).
    public func removeEmptyDirectory() {
        let folders = (FileManager.default.subpaths(atPath: directory) ?? [])
            .filter { FileSystem.isDirectory(directory + "/" + $0) }
            .sorted { $0.count > $1.count }
        for folder in folders { rmdir(directory + "/" + folder) }
        unlink(directory + "/" + Self.markerName)
        close(lockDescriptor)
        lockDescriptor = -1
        rmdir(directory)
        FileSystem.syncDirectory(FileSystem.directory(of: directory))
    }

    /// Writes the files about to move (relative paths, one a line) to the marker, fsynced; `[]` empties it.
    @discardableResult
    private func writeJournal(_ files: [String]) -> Bool {
        let text = Array(files.map { $0 + "\n" }.joined().utf8)
        guard ftruncate(lockDescriptor, 0) == 0 else { return false }
        let written = text.withUnsafeBytes { bytes in
            bytes.isEmpty ? 0 : pwrite(lockDescriptor, bytes.baseAddress, bytes.count, 0)
        }
        return written == text.count && fsync(lockDescriptor) == 0
    }

    /// The files a dead attempt was moving when it stopped (empty when it was not moving any).
    private static func readJournal(_ fd: Int32) -> [String]? {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        let read = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard read == bytes.count else { return nil }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// The regular files under `path`, relative to it, sorted (symbolic links are not followed).
    static func regularFiles(under path: String) -> [String] {
        (FileManager.default.subpaths(atPath: path) ?? []).filter {
            var info = stat()
            return lstat(path + "/" + $0, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
        }.sorted()
    }

    private static func identity(_ path: String) throws(StagingError) -> (real: String, device: UInt64) {
        var info = stat()
        guard stat(path, &info) == 0, let resolved = realpath(path, nil) else { throw .cannotUse(path: path, errno: errno) }
        defer { free(resolved) }
        return (String(cString: resolved), UInt64(info.st_dev))
    }
}

/// Why `--staging` cannot be used, or its files cannot be moved into place.
public enum StagingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// DIR and `--out` are on different filesystems: a move would be a copy, not one atomic rename (exit 73).
    case otherFilesystem(staging: String, out: String)
    /// DIR is `--out` or holds it (exit 64).
    case holdsOut(staging: String, out: String)
    /// A run died while moving DIR's files into place: `inPlace` of them are under `--out` (exit 73).
    case interruptedPublish(staging: String, inPlace: Int, of: Int)
    /// DIR holds files and no `.sluice-staging`: not a staging directory (exit 73).
    case notStaging(staging: String, holds: String)
    /// Another run holds DIR's lock (exit 75).
    case inUse(staging: String)
    /// A directory or the marker cannot be created, read or removed (exit 73).
    case cannotUse(path: String, errno: Int32)
    /// A file of that name exists under `--out`: nothing was moved (exit 73).
    case nameTaken(path: String, staged: String)
    /// A `.part` file is still under DIR (exit 74).
    case unfinished(path: String)
    /// A rename failed; the files moved before it were moved back (exit 74).
    case moveFailed(from: String, to: String, errno: Int32)

    public var exitStatus: Int32 {
        switch self {
        case .holdsOut: return ExitStatus.usage
        case .inUse: return ExitStatus.stateInUse
        case .unfinished, .moveFailed: return ExitStatus.ioError
        case .otherFilesystem, .interruptedPublish, .notStaging, .cannotUse, .nameTaken: return ExitStatus.cannotCreate
        }
    }

    public var description: String {
        switch self {
        case let .otherFilesystem(staging, out):
            return "--staging \(staging) is on another filesystem than --out \(out): its files could not be moved into place "
                + "by one atomic rename each; give a directory on --out's filesystem (e.g. beside it)"
        case let .holdsOut(staging, out):
            return "--staging \(staging) is --out \(out) or holds it: give a directory of its own (e.g. beside --out)"
        case let .interruptedPublish(staging, inPlace, total):
            return "--staging \(staging): an earlier run stopped while moving its \(total) files into place, \(inPlace) of them are "
                + "under --out and the rest still under \(staging) (listed in its \(StagingArea.markerName)); nothing was done: "
                + "move the rest by hand (mv -n), or remove the ones in place, then remove \(staging)"
        case let .notStaging(staging, holds):
            return "--staging \(staging) holds \(holds) and was not made by sluice (no \(StagingArea.markerName)): "
                + "give an empty or new directory"
        case let .inUse(staging):
            return "--staging \(staging) is in use by another sluice run (\(StagingArea.markerName) is locked): "
                + "give each attempt its own directory, or try again after it ends"
        case let .cannotUse(path, code):
            return "cannot use \(path) for --staging: \(String(cString: strerror(code)))"
        case let .nameTaken(path, staged):
            return "\(path) exists already, so nothing was moved into place (sluice never replaces a file); "
                + "this run's files stay under the staging directory (\(staged)): if an earlier attempt "
                + "finished these inputs, this one is not needed"
        case let .unfinished(path):
            return "\(path) is unfinished, so nothing was moved into place"
        case let .moveFailed(from, to, code):
            return "cannot move \(from) to \(to): \(String(cString: strerror(code))); the files moved before it were moved back"
        }
    }
}
