// Unsafe code: directory entries (`readdir`) and the spill files are read and
// written through the C library; each pointer is used only within the call that gets it.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SluiceJSON

/// Where an exact-order run spills its sorted runs: a directory of its own,
/// `.sluice-sort-PID-N` under `--tmp` (else `--out`), made on the first spill
/// and removed when the run ends. It holds a lock (`flock` on `lock`) for as
/// long as the run lives, so a later run that finds such a directory whose
/// lock it can take knows its run died (kill -9) and removes it.
final class SpillDirectory {
    let root: String
    private(set) var path: String?
    private var lockDescriptor: Int32 = -1
    private var next = 0

    static let prefix = ".sluice-sort-"

    init(root: String) {
        self.root = root
    }

    deinit { remove() }

    /// Removes the spill directories of runs that died under `root` (their lock is free).
    static func removeAbandoned(under root: String) {
        guard let directory = opendir(root) else { return }
        var stale: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasPrefix(prefix) else { continue }
            let path = root + "/" + name
            let fd = open(path + "/lock", O_RDWR | O_CLOEXEC)
            if fd < 0 {
                // No lock file: a directory made and not yet locked, or one whose lock was removed last.
                var info = stat()
                if stat(path, &info) == 0, time(nil) - info.st_mtim.tv_sec > 60 { stale.append(path) }
                continue
            }
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { stale.append(path) }
            close(fd)
        }
        closedir(directory)
        for path in stale { removeTree(path) }
    }

    /// A new file's path in the directory, which is made (and locked) on the first call.
    func newFile() throws(OutputError) -> String {
        if path == nil {
            try FileSystem.makeDirectories(root)
            var attempt = 0
            while true {
                let candidate = root + "/" + Self.prefix + "\(getpid())-\(attempt)"
                if mkdir(candidate, 0o700) == 0 {
                    path = candidate
                    break
                }
                if errno != EEXIST || attempt > 1000 { throw .cannotCreate(path: candidate, errno: errno) }
                attempt += 1
            }
            let fd = open(path! + "/lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            if fd < 0 { throw .cannotCreate(path: path! + "/lock", errno: errno) }
            _ = flock(fd, LOCK_EX)
            lockDescriptor = fd
        }
        next += 1
        return path! + "/run-\(next).gz"
    }

    /// Removes the directory and everything in it.
    func remove() {
        guard let path else { return }
        Self.removeTree(path)
        if lockDescriptor >= 0 { close(lockDescriptor) }
        lockDescriptor = -1
        self.path = nil
    }

    private static func removeTree(_ path: String) {
        guard let directory = opendir(path) else { return }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        closedir(directory)
        // The lock goes last, so a directory without one is one being removed.
        for name in names.sorted(by: { a, _ in a != "lock" }) { unlink(path + "/" + name) }
        unlink(path + "/lock")
        rmdir(path)
    }
}

/// One sorted run on disk: gzip (level 1), a line per event, each the event's
/// origin (`SOURCE LINE `, decimal) and then its line as it was read.
final class SortRunWriter {
    let path: String
    private let fd: Int32
    private let deflater: GzipDeflater
    @exclusivity(unchecked) private var pending: [UInt8] = []
    @exclusivity(unchecked) private(set) var lines = 0
    @exclusivity(unchecked) private(set) var compressedBytes = 0

    init(path: String) throws(OutputError) {
        self.path = path
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd < 0 { throw .cannotCreate(path: path, errno: errno) }
        deflater = GzipDeflater(level: 1, label: path)
        pending.reserveCapacity(Self.chunk + 4096)
    }

    deinit { close(fd) }

    static let chunk = 256 * 1024

    func append(_ event: borrowing Event) throws {
        appendDecimal(Int64(event.origin.source))
        pending.append(0x20)
        appendDecimal(event.origin.line)
        pending.append(0x20)
        event.document.withRawBytes(0) { pending.append(contentsOf: $0) }
        pending.append(0x0A)
        lines += 1
        if pending.count >= Self.chunk { try flush() }
    }

    /// Ends the gzip member and writes everything out.
    func finish() throws {
        try flush()
        try deflater.endMember { chunk throws(OutputError) in try write(chunk) }
    }

    private func flush() throws {
        guard !pending.isEmpty else { return }
        try pending.withUnsafeBytes { raw in
            try deflater.compress(raw) { chunk throws(OutputError) in try write(chunk) }
        }
        pending.removeAll(keepingCapacity: true)
    }

    private func write(_ chunk: UnsafeRawBufferPointer) throws(OutputError) {
        let result = FileSystem.writeAll(fd, chunk)
        if result.errno != 0 { throw .writeFailed(path: path, errno: result.errno) }
        compressedBytes += chunk.count
    }

    private func appendDecimal(_ value: Int64) {
        var digits: [UInt8] = []
        var rest = value
        repeat {
            digits.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        pending.append(contentsOf: digits.reversed())
    }
}

/// A sorted run read back, event by event.
final class SortRunReader: SortedSource {
    private let reader: LineReader
    private let scratch: JSONParseScratch
    let path: String

    init(path: String, reading: InputReading) throws {
        self.path = path
        reader = try LineReader.open(path, maxLineBytes: reading.maxLineBytes + 64, pacing: reading.pacing,
                                     stoppable: reading.stoppable, buffers: reading.buffers)
        scratch = reading.scratch
    }

    func next() throws -> SortedNext {
        let read: InputLine?
        do {
            read = try reader.next()
        } catch let error as InputError {
            // Not an input's fault: the run's own file. Failing the run keeps every line accounted for.
            throw SortRunDamaged(path: path, line: -1, detail: error.description)
        }
        guard let line = read else { return .end }
        if case .paused = line { return .paused }
        guard case let .line(buffer, number) = line else { throw SortRunDamaged(path: path, line: Int64(lineNumber(line))) }
        // SOURCE LINE JSON
        var index = 0
        func number64() -> Int64? {
            var value: Int64 = 0
            let start = index
            while index < buffer.count, buffer[index] >= 0x30, buffer[index] <= 0x39 {
                value = value * 10 + Int64(buffer[index] - 0x30)
                index += 1
            }
            guard index > start, index < buffer.count, buffer[index] == 0x20 else { return nil }
            index += 1
            return value
        }
        guard let source = number64(), let original = number64() else { throw SortRunDamaged(path: path, line: number) }
        let text = UnsafeBufferPointer(rebasing: buffer[index...])
        switch Event.decode(text, origin: Origin(source: Int32(source), line: original), scratch: scratch) {
        case .success(let event): return .event(event)
        case .failure: throw SortRunDamaged(path: path, line: number)
        }
    }

    private func lineNumber(_ line: InputLine) -> Int64 {
        switch line {
        case let .line(_, number), let .tooLong(_, _, number), let .cutShort(_, number), let .damaged(_, number): number
        case .paused: 0
        }
    }
}

/// Sorted runs on disk merged into one (a second pass over them, so the last
/// merge opens few files). Its reads pause as any read does: `proceed`
/// returns false, and called again goes on where it stood.
final class SortRunMerge {
    private let runs: [String]
    private let readers: [SortRunReader]
    private let writer: SortRunWriter
    @exclusivity(unchecked) private var merging = MergeHeads()
    /// How many readers' first events are in `merging`.
    @exclusivity(unchecked) private var headsRead = 0

    /// The merged run's path.
    var path: String { writer.path }

    init(_ runs: [String], into spill: SpillDirectory, reading: InputReading) throws {
        self.runs = runs
        readers = try runs.map { try SortRunReader(path: $0, reading: reading) }
        writer = try SortRunWriter(path: try spill.newFile())
    }

    /// Merges on; true once the merged run is written and the runs it replaces are removed.
    func proceed() throws -> Bool {
        while headsRead < readers.count {
            switch try readers[headsRead].next() {
            case .paused: return false
            case .event(let event): merging.insert(event, source: headsRead)
            case .end: break
            }
            headsRead += 1
        }
        while let source = merging.minSource {
            let refill: Event?
            switch try readers[source].next() {
            case .paused: return false
            case .event(let event): refill = event
            case .end: refill = nil
            }
            try writer.append(merging.replaceMin(with: refill))
        }
        try writer.finish()
        for run in runs { unlink(run) }
        return true
    }
}

/// A spilled run that does not read back as it was written (the disk changed it): the run fails (exit 74).
struct SortRunDamaged: Error, CustomStringConvertible {
    var path: String
    var line: Int64
    var detail = ""
    var description: String {
        "the sorted run \(path) does not read back as written" + (line > 0 ? " (line \(line))" : "")
            + (detail.isEmpty ? "" : ": \(detail)") + "; the run cannot go on"
    }
}
