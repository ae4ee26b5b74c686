// Unsafe code: a group's bytes go to pwrite(2), and a torn tail is looked
// for with pread(2), through `withUnsafeBytes`/`withUnsafeMutableBytes` over
// arrays; each call is given the array's own count.

import Foundation
import Sluice
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `sluice serve`'s journal: the normalized messages of every request it
/// acknowledges, on disk before the 200 goes out.
///
/// - Files: `segment-N.active` is the segment being appended to (one at a
///   time); sealing it (by size, or when an epoch starts) renames it to
///   `segment-N.ndjson`; the pipeline reads sealed segments only, and deletes
///   them once an epoch that read them is committed. `N` (20 digits) only
///   grows: the next is the larger of the last one + 1 and the clock in
///   microseconds, so names are never reused, across restarts too.
/// - Group commit: requests queue their lines; one writer thread takes
///   every request queued (after waiting `commitInterval` for more to
///   arrive), writes them with one pwrite(2) each and fsyncs once for all,
///   then answers them all. A failed write or fsync (disk full) cuts the
///   segment back to where the group began and answers `.failed`: never a
///   200 for a line not on disk. A group that would leave less than
///   `diskReserve` free on the journal's file system is not written either
///   (`.failed`): that room is kept for the epochs' commit record, so a
///   full disk never stops the epochs that empty it.
/// - Backlog: the bytes of every segment not consumed yet, plus the queued;
///   an append that would take it past `maxBacklog` is answered `.backlogged`.
/// - Recovery at open: a `.active` segment left by a crash is cut back to its
///   last complete line (a torn tail was never acknowledged: its group's
///   fsync did not return) and sealed.
/// - One process at a time: `.lock` in the directory is `flock`ed.
///
/// Sendable: every mutable field is read and written only under `condition`'s
/// lock; the active segment's descriptor is written to by the writer thread
/// outside the lock only while `writing` is true, and nothing else touches
/// the segment then (sealing waits for `writing` to be false).
package final class Journal: @unchecked Sendable {
    package struct Segment: Sendable, Equatable {
        package var number: UInt64
        package var path: String
        package var bytes: Int
    }

    package enum AppendResult: Sendable, Equatable {
        /// On disk (written and fsynced): answer 200.
        case durable
        /// The backlog is over `--max-backlog`: answer 503 and Retry-After.
        case backlogged
        /// The write or its fsync failed (the message says why): answer 503.
        case failed(String)
        /// The journal is closed (the server is stopping): answer 503.
        case closed
    }

    package let directory: String
    private let segmentBytes: Int
    private let commitInterval: Duration
    private let maxBacklog: Int
    /// Bytes kept free on the journal's file system (statvfs) for the commit record.
    private let diskReserve: Int
    private let condition = NSCondition()
    private var queue: [(bytes: [UInt8], done: @Sendable (AppendResult) -> Void)] = []
    private var queuedBytes = 0
    private var writing = false
    private var closed = false
    private var writerDone = false
    private var sealed: [Segment] = []
    private var active: (number: UInt64, fd: Int32, path: String, bytes: Int)?
    private var lastNumber: UInt64 = 0
    private var lockDescriptor: Int32 = -1
    private var pressureHook: (@Sendable () -> Void)?
    private var pressureSignalled = false

    /// Opens (creating) the journal directory, takes its lock, recovers a torn
    /// tail and starts the writer thread.
    package init(directory: String, segmentBytes: Int = 64 << 20, commitInterval: Duration = .milliseconds(2),
                 maxBacklog: Int = 1 << 30, diskReserve: Int = 1 << 20) throws(JournalError) {
        self.directory = directory
        self.diskReserve = diskReserve
        self.segmentBytes = max(segmentBytes, 1)
        self.commitInterval = commitInterval
        self.maxBacklog = maxBacklog
        do {
            try FileSystem.makeDirectories(directory)
        } catch {
            throw .cannotUse(path: directory, errno: error.errno)
        }
        let lockPath = directory + "/.lock"
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if fd < 0 { throw .cannotUse(path: lockPath, errno: errno) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            close(fd)
            if code == EWOULDBLOCK { throw .locked(path: directory) }
            throw .cannotUse(path: lockPath, errno: code)
        }
        lockDescriptor = fd
        try recover()
        let thread = Thread { [self] in writeLoop() }
        thread.name = "sluice-journal"
        thread.start()
    }

    deinit {
        if let active { close(active.fd) }
        if lockDescriptor >= 0 { close(lockDescriptor) }
    }

    /// Called (once, from the writer's thread or an appender's) when the
    /// backlog passes half of `maxBacklog`, so an epoch can start early.
    package func onBacklogPressure(_ hook: @escaping @Sendable () -> Void) {
        condition.lock()
        pressureHook = hook
        condition.unlock()
    }

    static func name(_ number: UInt64, sealed: Bool) -> String {
        let digits = String(number)
        return "segment-" + String(repeating: "0", count: max(0, 20 - digits.count)) + digits + (sealed ? ".ndjson" : ".active")
    }

    private static func number(of name: String) -> (UInt64, sealed: Bool)? {
        guard name.hasPrefix("segment-") else { return nil }
        let sealed = name.hasSuffix(".ndjson")
        guard sealed || name.hasSuffix(".active") else { return nil }
        let digits = name.dropFirst(8).prefix { $0.isNumber }
        guard let number = UInt64(digits) else { return nil }
        return (number, sealed)
    }

    private func recover() throws(JournalError) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        var found: [(UInt64, String, Bool)] = []
        for name in names {
            if let (number, isSealed) = Self.number(of: name) { found.append((number, name, isSealed)) }
        }
        for (number, name, isSealed) in found.sorted(by: { $0.0 < $1.0 }) {
            lastNumber = max(lastNumber, number)
            var path = directory + "/" + name
            if !isSealed {
                let kept = try Self.cutTornTail(path)
                if kept == 0 {
                    unlink(path)
                    continue
                }
                let sealedPath = directory + "/" + Self.name(number, sealed: true)
                if rename(path, sealedPath) != 0 { throw .cannotUse(path: path, errno: errno) }
                path = sealedPath
            }
            var info = stat()
            guard stat(path, &info) == 0 else { throw .cannotUse(path: path, errno: errno) }
            if info.st_size == 0 {
                unlink(path)
                continue
            }
            sealed.append(Segment(number: number, path: path, bytes: Int(info.st_size)))
        }
        FileSystem.syncDirectory(directory)
    }

    /// Cuts `path` back to its last newline (what a crash left of an
    /// unacknowledged group), fsyncs it, and returns the bytes kept.
    static func cutTornTail(_ path: String) throws(JournalError) -> Int {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        if fd < 0 { throw .cannotUse(path: path, errno: errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .cannotUse(path: path, errno: errno) }
        var end = Int(info.st_size)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var keep = 0
        search: while end > 0 {
            let start = max(0, end - chunk.count)
            let count = end - start
            let read = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(start)) }
            guard read == count else { throw .cannotUse(path: path, errno: errno) }
            for index in stride(from: count - 1, through: 0, by: -1) where chunk[index] == 0x0A {
                keep = start + index + 1
                break search
            }
            end = start
        }
        if keep != Int(info.st_size) {
            guard ftruncate(fd, off_t(keep)) == 0 else { throw .cannotUse(path: path, errno: errno) }
        }
        guard fsync(fd) == 0 else { throw .cannotUse(path: path, errno: errno) }
        return keep
    }

    /// Bytes journaled and not consumed yet, and queued.
    package var backlogBytes: Int {
        condition.lock()
        defer { condition.unlock() }
        return backlogLocked
    }

    private var backlogLocked: Int {
        sealed.reduce(0) { $0 + $1.bytes } + (active?.bytes ?? 0) + queuedBytes
    }

    /// Whether the backlog is at or over `maxBacklog`.
    package var isBacklogged: Bool { backlogBytes >= maxBacklog }

    /// Queues `bytes` (whole lines) for the next group; `done` is called, on
    /// the writer's thread or this one, once they are durable or cannot be.
    package func append(_ bytes: [UInt8], done: @escaping @Sendable (AppendResult) -> Void) {
        condition.lock()
        if closed {
            condition.unlock()
            done(.closed)
            return
        }
        if backlogLocked + bytes.count > maxBacklog {
            condition.unlock()
            done(.backlogged)
            return
        }
        queue.append((bytes, done))
        queuedBytes += bytes.count
        let hook = pressure()
        condition.broadcast()
        condition.unlock()
        hook?()
    }

    /// The pressure hook, once, when the backlog passes half its limit (under the lock).
    private func pressure() -> (@Sendable () -> Void)? {
        guard !pressureSignalled, backlogLocked * 2 >= maxBacklog else { return nil }
        pressureSignalled = true
        return pressureHook
    }

    private func writeLoop() {
        while true {
            condition.lock()
            while queue.isEmpty && !closed { condition.wait() }
            if queue.isEmpty && closed {
                writerDone = true
                condition.broadcast()
                condition.unlock()
                return
            }
            condition.unlock()
            if commitInterval > .zero { Thread.sleep(forTimeInterval: Double(commitInterval.nanoseconds) / 1e9) }
            condition.lock()
            let group = queue
            queue = []
            writing = true
            var failure: String?
            if active == nil { failure = openSegmentLocked() }
            let segment = active
            condition.unlock()

            var written = 0
            if failure == nil {
                failure = diskShortfall(needing: group.reduce(0) { $0 + $1.bytes.count })
            }
            if failure == nil, let segment {
                (written, failure) = Self.write(group.map(\.bytes), fd: segment.fd, at: segment.bytes, path: segment.path)
                if failure != nil {
                    // Nothing of a failed group stays: the segment goes back to where the group began.
                    if ftruncate(segment.fd, off_t(segment.bytes)) != 0 || fsync(segment.fd) != 0 {
                        failure! += "; and the segment could not be cut back: " + String(cString: strerror(errno))
                    }
                    written = 0
                }
            }

            condition.lock()
            queuedBytes -= group.reduce(0) { $0 + $1.bytes.count }
            writing = false
            if failure == nil, active != nil {
                active!.bytes += written
                if active!.bytes >= segmentBytes { sealLocked() }
            } else if failure != nil, let current = active, current.bytes == 0 {
                // An empty segment that could not take the group: let the next group try a fresh one.
                close(current.fd)
                unlink(current.path)
                active = nil
            }
            condition.broadcast()
            condition.unlock()
            let result: AppendResult = failure.map { .failed($0) } ?? .durable
            for request in group { request.done(result) }
        }
    }

    /// Why `bytes` more would leave less than `diskReserve` free on the journal's
    /// file system, or nil (also when statvfs cannot tell).
    private func diskShortfall(needing bytes: Int) -> String? {
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else { return nil }
        let free = Int(clamping: UInt64(info.f_bavail) &* UInt64(info.f_frsize))
        guard free < bytes + diskReserve else { return nil }
        return "the journal's disk is full: \(free) bytes free, \(bytes) to write, and \(diskReserve) are kept for the epochs"
    }

    private static func write(_ parts: [[UInt8]], fd: Int32, at offset: Int, path: String) -> (Int, String?) {
        var position = offset
        for part in parts {
            var done = 0
            while done < part.count {
                let n = part.withUnsafeBytes { pwrite(fd, $0.baseAddress! + done, part.count - done, off_t(position)) }
                if n < 0 {
                    if errno == EINTR { continue }
                    return (position - offset, "cannot write \(path): \(String(cString: strerror(errno)))")
                }
                done += n
                position += n
            }
        }
        if fdatasync(fd) != 0 { return (position - offset, "cannot fsync \(path): \(String(cString: strerror(errno)))") }
        return (position - offset, nil)
    }

    /// Creates the next segment (its name fsynced into the directory); an error message, or nil.
    private func openSegmentLocked() -> String? {
        let clock = UInt64(max(0, Date().timeIntervalSince1970 * 1e6))
        let number = max(lastNumber + 1, clock)
        let path = directory + "/" + Self.name(number, sealed: false)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        if fd < 0 { return "cannot create \(path): \(String(cString: strerror(errno)))" }
        lastNumber = number
        FileSystem.syncDirectory(directory)
        active = (number, fd, path, 0)
        return nil
    }

    /// Seals the active segment when it holds anything (its data is fsynced by every group).
    private func sealLocked() {
        guard let segment = active, segment.bytes > 0 else { return }
        close(segment.fd)
        active = nil
        let sealedPath = directory + "/" + Self.name(segment.number, sealed: true)
        if rename(segment.path, sealedPath) == 0 {
            FileSystem.syncDirectory(directory)
            sealed.append(Segment(number: segment.number, path: sealedPath, bytes: segment.bytes))
        } else {
            // It stays `.active`; the next start seals it. Its lines are kept in the backlog's count.
            sealed.append(Segment(number: segment.number, path: segment.path, bytes: segment.bytes))
        }
    }

    /// Seals the active segment (after the group being written) and returns
    /// every sealed segment not consumed yet, oldest first.
    package func sealForEpoch() -> [Segment] {
        condition.lock()
        defer { condition.unlock() }
        while writing { condition.wait() }
        sealLocked()
        return sealed
    }

    /// Deletes `segments` (read by an epoch that is committed) and fsyncs the directory.
    package func consumed(_ segments: [Segment]) {
        let paths = Set(segments.map(\.path))
        condition.lock()
        sealed.removeAll { paths.contains($0.path) }
        if backlogLocked * 2 < maxBacklog { pressureSignalled = false }
        condition.unlock()
        for path in paths.sorted() { unlink(path) }
        FileSystem.syncDirectory(directory)
    }

    /// Stops taking appends (they are answered `.closed`), lets the writer
    /// finish what is queued, and seals the active segment.
    package func closeForShutdown() {
        condition.lock()
        closed = true
        condition.broadcast()
        while !writerDone || writing { condition.wait() }
        sealLocked()
        condition.unlock()
    }
}

/// Why the journal cannot be used.
package enum JournalError: Error, Equatable, CustomStringConvertible {
    /// Another `sluice serve` holds the journal (exit 75).
    case locked(path: String)
    /// The directory or a segment cannot be created, read or written (exit 73).
    case cannotUse(path: String, errno: Int32)

    package var exitStatus: Int32 {
        switch self {
        case .locked: return ExitStatus.tryAgain
        case .cannotUse: return ExitStatus.cannotCreate
        }
    }

    package var description: String {
        switch self {
        case let .locked(path):
            return "--journal \(path) is in use by another sluice serve (its .lock is held): one server per journal"
        case let .cannotUse(path, code):
            return "cannot use \(path) for the journal: \(String(cString: strerror(code)))"
        }
    }
}
