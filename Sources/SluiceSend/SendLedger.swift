// Unsafe code: the ledger is read with pread(2) and appended with pwrite(2)
// through an array's bytes, as the C calls take pointers; each call is given
// only the bytes left of the array (`count - filled`, `count - written`).

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Sluice

/// What a provider acknowledged, per destination: `OUT/.sluice-send/NAME.ledger`.
///
/// One line per fact, appended and fdatasynced before `sluice send` moves on,
/// so a crash at any moment leaves every acknowledged batch in it and loses
/// nothing else: a rerun sends what is not in it, which is at most the batches
/// that were in flight. Tab-separated text (paths hold no tabs: they are made
/// of path-safe names and digits):
///
/// ```
/// ack  PATH  IDENTITY  FIRST  END     records FIRST..<END of the file were acknowledged (sent or refused)
/// done PATH  IDENTITY                 every record of it was; `after_send` is due
/// gone PATH  IDENTITY                 `after_send` moved or deleted it
/// ```
///
/// A last line without its newline (a crash inside the write) is not a fact
/// and is cut off when the ledger is opened. An exclusive `flock` keeps a
/// second `sluice send` off the same destination.
final class SendLedger {
    typealias Entry = LedgerFacts.Entry

    let path: String
    private let fd: Int32
    private var facts = LedgerFacts()
    private var entries: [String: Entry] {
        get { facts.entries }
        set { facts.entries = newValue }
    }

    /// Opens (creating) and locks the ledger, reads it, and rewrites it with only
    /// the facts about files still there (`exists(path, identity)`), so it stays small.
    init(directory: String, destination: String, exists: (String, String) -> Bool) throws(SendFailure) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .io("cannot create \(directory): \(error.localizedDescription)")
        }
        path = directory + "/" + destination + ".ledger"
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if fd < 0 { throw .io("cannot open the ledger \(path): \(String(cString: strerror(errno)))") }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            close(fd)
            throw .tryAgain("the ledger \(path) is in use by another sluice send; try again when it is done")
        }
        var info = stat()
        fstat(fd, &info)
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var filled = 0
        while filled < bytes.count {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + filled, $0.count - filled, off_t(filled)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            filled += n
        }
        facts = LedgerFacts(Array(bytes[0..<filled]))
        entries = entries.filter { exists($0.key, $0.value.identity) }
        try compact()
    }

    deinit { close(fd) }

    /// The facts as lines, each entry's ranges merged.
    private func lines() -> String {
        var text = ""
        for (path, entry) in entries.sorted(by: { $0.key < $1.key }) {
            for range in RangeSet.merged(entry.acknowledged) {
                text += "ack\t\(path)\t\(entry.identity)\t\(range.lowerBound)\t\(range.upperBound)\n"
            }
            if entry.done { text += "done\t\(path)\t\(entry.identity)\n" }
        }
        return text
    }

    /// Rewrites the ledger in place with the facts it holds now (under the lock, so
    /// in place: truncate, write, fdatasync; a crash inside leaves a ledger
    /// missing acknowledgements, which costs re-sending those batches, never a loss).
    private func compact() throws(SendFailure) {
        let text = Array(lines().utf8)
        guard ftruncate(fd, 0) == 0 else { throw .io("cannot rewrite the ledger \(path): \(String(cString: strerror(errno)))") }
        try write(text, at: 0)
    }

    private func write(_ bytes: [UInt8], at offset: Int? = nil) throws(SendFailure) {
        var position = offset ?? Int(lseek(fd, 0, SEEK_END))
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + written, $0.count - written, off_t(position)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { throw .io("cannot write the ledger \(path): \(String(cString: strerror(errno)))") }
            written += n
            position += n
        }
        guard fdatasync(fd) == 0 else { throw .io("cannot sync the ledger \(path): \(String(cString: strerror(errno)))") }
    }

    /// Records `range` of a file as acknowledged; returned once it is on disk.
    func acknowledge(_ file: SendFile, _ range: Range<Int>) throws(SendFailure) {
        try write(Array("ack\t\(file.path)\t\(file.identity)\t\(range.lowerBound)\t\(range.upperBound)\n".utf8))
        var entry = entries[file.path].flatMap { $0.identity == file.identity ? $0 : nil } ?? Entry(identity: file.identity)
        entry.acknowledged.append(range)
        entries[file.path] = entry
    }

    func markDone(path: String, identity: String) throws(SendFailure) {
        try write(Array("done\t\(path)\t\(identity)\n".utf8))
        var entry = entries[path].flatMap { $0.identity == identity ? $0 : nil } ?? Entry(identity: identity)
        entry.done = true
        entries[path] = entry
    }

    func markGone(path: String, identity: String) throws(SendFailure) {
        try write(Array("gone\t\(path)\t\(identity)\n".utf8))
        entries[path] = nil
    }

    func pending(path: String, identity: String, count: Int) -> [Range<Int>] {
        facts.pending(path: path, identity: identity, count: count)
    }

    func isDone(path: String, identity: String) -> Bool { facts.isDone(path: path, identity: identity) }
}

/// The facts of a ledger's text, by file (what `--dry-run` reads without taking the lock).
struct LedgerFacts {
    struct Entry {
        var identity: String
        var acknowledged: [Range<Int>] = []
        var done = false
    }

    var entries: [String: Entry] = [:]

    init() {}

    /// Every complete line of `bytes` (a last line without its newline is not a fact).
    init(_ bytes: [UInt8]) {
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: true)
        if bytes.last != 0x0A && !lines.isEmpty { lines.removeLast() }
        for line in lines { apply(String(decoding: line, as: UTF8.self)) }
    }

    /// A ledger file read as it is now; empty when there is none.
    init(path: String) {
        self.init(FileManager.default.contents(atPath: path).map { Array($0) } ?? [])
    }

    /// Applies one line of the ledger to `entries`.
    private mutating func apply(_ line: String) {
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard fields.count >= 3 else { return }
        let (path, identity) = (fields[1], fields[2])
        switch fields[0] {
        case "ack":
            guard fields.count == 5, let first = Int(fields[3]), let end = Int(fields[4]), first < end else { return }
            var entry = entries[path].flatMap { $0.identity == identity ? $0 : nil } ?? Entry(identity: identity)
            entry.acknowledged.append(first..<end)
            entries[path] = entry
        case "done":
            var entry = entries[path].flatMap { $0.identity == identity ? $0 : nil } ?? Entry(identity: identity)
            entry.done = true
            entries[path] = entry
        case "gone":
            if entries[path]?.identity == identity { entries[path] = nil }
        default:
            return
        }
    }

    /// What of `count` records of the file is not acknowledged yet.
    func pending(path: String, identity: String, count: Int) -> [Range<Int>] {
        guard let entry = entries[path], entry.identity == identity else { return count > 0 ? [0..<count] : [] }
        return RangeSet.complement(of: entry.acknowledged, in: 0..<count)
    }

    func isDone(path: String, identity: String) -> Bool {
        entries[path].map { $0.identity == identity && $0.done } ?? false
    }
}

/// Ranges of record indexes, merged and complemented.
enum RangeSet {
    static func merged(_ ranges: [Range<Int>]) -> [Range<Int>] {
        var result: [Range<Int>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) where !range.isEmpty {
            if let last = result.last, range.lowerBound <= last.upperBound {
                result[result.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                result.append(range)
            }
        }
        return result
    }

    static func complement(of ranges: [Range<Int>], in whole: Range<Int>) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var next = whole.lowerBound
        for range in merged(ranges) {
            if range.lowerBound > next { result.append(next..<min(range.lowerBound, whole.upperBound)) }
            next = max(next, range.upperBound)
        }
        if next < whole.upperBound { result.append(next..<whole.upperBound) }
        return result.filter { !$0.isEmpty }
    }
}
