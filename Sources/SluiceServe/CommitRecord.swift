// Unsafe code: the record's bytes go to write(2) through `withUnsafeBytes`
// over the array, with its own count.

import Foundation
import Sluice
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An epoch's commit record, `JOURNAL/commit`: written and fsynced after the
/// epoch's files and state are written (under the staging directory and
/// beside the state file) and before the first of them moves; removed once
/// the files are in place, the state renamed and the segments deleted. A
/// record found at start is rolled forward (`rollForward`): what is not in
/// place yet is moved, the state put in place, the segments dropped. An epoch
/// that died before writing its record left nothing in place: it is
/// discarded and done again from its segments.
///
/// The text is one `key<TAB>value` a line (paths never hold a tab or a
/// newline: `sluice serve` refuses such paths, and output paths hold no
/// control character), the first line `sluice-serve-commit<TAB>1`.
package struct CommitRecord: Equatable, Sendable {
    package var staging: String
    package var out: String
    package var state: String?
    package var stateTemporary: String?
    package var segments: [String]
    package var files: [String]

    package init(staging: String, out: String, state: String?, stateTemporary: String?, segments: [String], files: [String]) {
        self.staging = staging
        self.out = out
        self.state = state
        self.stateTemporary = stateTemporary
        self.segments = segments
        self.files = files
    }

    static let header = "sluice-serve-commit\t1"

    package var text: String {
        var lines = [Self.header, "staging\t\(staging)", "out\t\(out)"]
        if let state { lines.append("state\t\(state)") }
        if let stateTemporary { lines.append("state-temporary\t\(stateTemporary)") }
        lines += segments.map { "segment\t\($0)" }
        lines += files.map { "file\t\($0)" }
        lines.append("end")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The record in `text`; nil when it is not one (or was cut short: it ends with `end`).
    package init?(text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.first == Self.header, lines.contains("end") else { return nil }
        var staging: String?, out: String?
        var state: String?, temporary: String?
        var segments: [String] = [], files: [String] = []
        for line in lines.dropFirst() {
            if line == "end" { break }
            let parts = line.split(separator: "\t", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { return nil }
            switch parts[0] {
            case "staging": staging = parts[1]
            case "out": out = parts[1]
            case "state": state = parts[1]
            case "state-temporary": temporary = parts[1]
            case "segment": segments.append(parts[1])
            case "file": files.append(parts[1])
            default: return nil
            }
        }
        guard let staging, let out else { return nil }
        self.init(staging: staging, out: out, state: state, stateTemporary: temporary, segments: segments, files: files)
    }

    package static func path(journal: String) -> String { journal + "/commit" }

    /// Writes the record to `path` atomically: a temporary file, fsynced, renamed, the directory fsynced.
    package func write(to path: String) throws(CommitError) {
        let temporary = path + ".tmp"
        let bytes = Array(text.utf8)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if fd < 0 { throw .cannotWrite(path: temporary, errno: errno) }
        let written = writeDescriptor(fd, bytes)
        let ok = written == bytes.count && fsync(fd) == 0
        let code = errno
        close(fd)
        guard ok else {
            unlink(temporary)
            throw .cannotWrite(path: temporary, errno: code == 0 ? EIO : code)
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw .cannotWrite(path: path, errno: code)
        }
        FileSystem.syncDirectory(FileSystem.directory(of: path))
    }

    /// The record at `path`; nil when there is none.
    package static func read(_ path: String) throws(CommitError) -> CommitRecord? {
        guard FileSystem.exists(path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else { throw .cannotRead(path: path) }
        guard let record = CommitRecord(text: String(decoding: data, as: UTF8.self)) else { throw .corrupt(path: path) }
        return record
    }

    /// Removes the record at `path` and fsyncs its directory.
    package static func remove(_ path: String) {
        unlink(path)
        FileSystem.syncDirectory(FileSystem.directory(of: path))
    }

    /// Finishes what the record says: every file not in place yet is moved
    /// (never replacing one), the state put in place, the segments deleted,
    /// the staging directory removed; returns how many files were moved.
    /// The record itself is left for the caller to remove.
    @discardableResult
    package func rollForward() throws(CommitError) -> Int {
        var moved = 0
        var directories = Set<String>()
        for file in files {
            let from = staging + "/" + file, to = out + "/" + file
            if FileSystem.exists(to) {
                // In place already (or, after link(2) and before unlink(2), in both places).
                if FileSystem.exists(from) { unlink(from) }
                continue
            }
            guard FileSystem.exists(from) else { throw .missing(path: from, target: to) }
            do {
                try FileSystem.makeDirectories(FileSystem.directory(of: to))
            } catch {
                throw .cannotMove(from: from, to: to, errno: error.errno)
            }
            let code = FileSystem.renameWithoutReplacing(from, to: to)
            if code != 0 { throw .cannotMove(from: from, to: to, errno: code) }
            directories.insert(FileSystem.directory(of: to))
            directories.insert(FileSystem.directory(of: from))
            moved += 1
        }
        for directory in directories.sorted() { FileSystem.syncDirectory(directory) }
        if let state, let stateTemporary, FileSystem.exists(stateTemporary) {
            guard rename(stateTemporary, state) == 0 else { throw .cannotMove(from: stateTemporary, to: state, errno: errno) }
            FileSystem.syncDirectory(FileSystem.directory(of: state))
        }
        for segment in segments { unlink(segment) }
        if let first = segments.first { FileSystem.syncDirectory(FileSystem.directory(of: first)) }
        if FileSystem.exists(staging) {
            try? FileManager.default.removeItem(atPath: staging)
            FileSystem.syncDirectory(FileSystem.directory(of: staging))
        }
        return moved
    }
}

/// write(2) of `bytes` (a record is small: one call), outside the type whose `write(to:)` hides the function's name.
private func writeDescriptor(_ fd: Int32, _ bytes: [UInt8]) -> Int {
    bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
}

/// Why a commit record cannot be written, read or rolled forward.
package enum CommitError: Error, Equatable, CustomStringConvertible {
    case cannotWrite(path: String, errno: Int32)
    case cannotRead(path: String)
    case corrupt(path: String)
    case missing(path: String, target: String)
    case cannotMove(from: String, to: String, errno: Int32)

    package var description: String {
        switch self {
        case let .cannotWrite(path, code): return "cannot write the commit record \(path): \(String(cString: strerror(code)))"
        case let .cannotRead(path): return "cannot read the commit record \(path)"
        case let .corrupt(path):
            return "the commit record \(path) is not one sluice serve wrote (or was damaged): nothing was done; "
                + "see docs/operations.md, `sluice serve`, to finish the epoch it names by hand"
        case let .missing(path, target):
            return "rolling an epoch forward: \(path) is neither under the staging directory nor in place (\(target)): nothing more was done"
        case let .cannotMove(from, to, code):
            return "rolling an epoch forward: cannot move \(from) to \(to): \(String(cString: strerror(code)))"
        }
    }
}
