#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The runner's side of one output: batches of encoded records, one per open
/// file, rotated by record count and size, handed to the destination's
/// compression thread in large chunks (or written to stdout as plain NDJSON).
final class DestinationOutput {
    enum Target {
        case files(template: PathTemplate, worker: CompressionWorker)
        case stdout
        /// Kept in memory under the output's name (`sluice test`): one series, in order.
        case memory(MemoryOutputs)
    }

    /// A file being filled: its key (path with `{seq}` unfilled) and the records not yet handed over.
    private final class FileBatch {
        let key: String
        /// Made when the batch is first written to (see `append`).
        var buffer = ByteBuffer(capacity: 16)
        var recordsInFile = 0
        var bytesInFile = 0
        /// When the file's first record was appended (monotonic ns), for `max_age`.
        var openedAt: UInt64 = 0
        var lastUsed: UInt64 = 0

        init(key: String) { self.key = key }
    }

    /// Records are handed to the worker in chunks of about this size.
    static let chunkBytes = 128 * 1024
    /// Open files per destination before the least recently used one is closed.
    static let maxOpenFiles = 16

    let name: String
    private let target: Target
    private let rotation: RotationPolicy
    private var batches: [String: FileBatch] = [:]
    private var lastBucket: Int64 = .min
    private var lastBatch: FileBatch?
    private var useCounter: UInt64 = 0
    private(set) var records = 0
    private(set) var recordBytes = 0
    /// Set when stdout's reader went away (`| head`).
    private(set) var stdoutClosed = false

    /// What stdout's reader never got because it closed the pipe first: the
    /// runner takes it (`takeStdoutLoss`) and moves it out of `emitted`.
    struct StdoutLoss: Equatable {
        /// Events whose records were not (or only partly) written.
        var events = 0
        var records = 0
        /// Of those events, the ones no other destination took: lines that went nowhere.
        var lines = 0
    }

    /// The events in the stdout buffer not written yet: where each one's records end, how many, and
    /// whether another destination took the event too (set by the runner after the fan-out).
    private struct StdoutMark {
        var end: Int
        var records: Int
        var serial: Int
        var alone = true
    }
    private var stdoutMarks: [StdoutMark] = []
    private var stdoutSerial = 0
    /// The last event, when it was lost and counted as going nowhere (so `markLastEventShared` can correct that).
    private var lastLostAloneSerial: Int?
    private var stdoutLoss = StdoutLoss()
    /// Bytes stdout's reader was given.
    private(set) var stdoutBytesWritten = 0

    var isStdout: Bool {
        if case .stdout = target { return true }
        return false
    }

    /// `max_age` in nanoseconds, for files only (nil: no age limit).
    private let maxAgeNanos: UInt64?

    init(name: String, target: Target, rotation: RotationPolicy) {
        self.name = name
        self.target = target
        self.rotation = rotation
        if case .files = target, let maxAge = rotation.maxAge {
            maxAgeNanos = UInt64(max(maxAge.nanoseconds, 0))
        } else {
            maxAgeNanos = nil
        }
    }

    /// Appends the records `encode` writes for an event at `time`; returns how many it wrote.
    /// `now`: the monotonic clock, if the caller read it already (the fan-out
    /// reads it once per event, not once per destination).
    @inline(__always)
    func append(time: EventTime, now clock: UInt64? = nil, encode: (inout ByteBuffer) -> Int) throws -> Int {
        let batch = batch(for: time)
        // Room for a whole chunk, taken when a batch is written to, not kept by
        // idle ones: up to 16 keys per destination would otherwise hold 320 KiB each.
        if batch.buffer.capacity < DestinationOutput.chunkBytes {
            if case let .files(_, worker) = target, let spare = worker.spareBuffer() { batch.buffer = spare }
            batch.buffer.reserve(DestinationOutput.chunkBytes + 64 * 1024)
        }
        let before = batch.buffer.count
        let count = encode(&batch.buffer)
        guard count > 0 else {
            // A refusal must leave nothing behind.
            if batch.buffer.count > before { batch.buffer.removeSubrange(before...) }
            return 0
        }
        let added = batch.buffer.count - before
        // `max_age` is decided here too, not only by the worker's timer, so the
        // counts below start afresh with the file: the worker's timer (which
        // closes an idle file) fires no earlier than this, as its file opened
        // after this side's first record. A file it closed already makes the
        // rotate below a no-op, and still resets the counts.
        let now = maxAgeNanos == nil ? 0 : clock ?? Monotonic.nanoseconds()
        if batch.recordsInFile > 0 &&
            (batch.recordsInFile + count > rotation.maxEvents || batch.bytesInFile + added > rotation.maxBytes
                || maxAgeNanos.map { now &- batch.openedAt >= $0 } == true) {
            let tail = Array(batch.buffer.bytes[before...])
            batch.buffer.removeSubrange(before...)
            try send(batch)
            rotate(batch)
            if batch.buffer.capacity < DestinationOutput.chunkBytes { batch.buffer.reserve(DestinationOutput.chunkBytes) }
            batch.buffer.append(contentsOf: tail)
        }
        if batch.recordsInFile == 0 { batch.openedAt = now }
        batch.recordsInFile += count
        batch.bytesInFile += added
        records += count
        recordBytes += added
        if case .stdout = target {
            stdoutSerial += 1
            stdoutMarks.append(StdoutMark(end: batch.buffer.count, records: count, serial: stdoutSerial))
        }
        if batch.buffer.count >= DestinationOutput.chunkBytes { try send(batch) }
        return count
    }

    /// The event last appended (to stdout) was taken by another destination too:
    /// if stdout's reader never gets it, the line still went somewhere.
    func markLastEventShared() {
        if let last = stdoutMarks.indices.last, stdoutMarks[last].serial == stdoutSerial {
            stdoutMarks[last].alone = false
        } else if lastLostAloneSerial == stdoutSerial {
            stdoutLoss.lines -= 1
            lastLostAloneSerial = nil
        }
    }

    /// What stdout's reader missed since the last call.
    func takeStdoutLoss() -> StdoutLoss {
        defer { stdoutLoss = StdoutLoss() }
        return stdoutLoss
    }

    /// Counts the events of the stdout buffer from byte `written` on as lost (the reader closed the pipe).
    private func loseStdoutEvents(from written: Int) {
        for mark in stdoutMarks {
            // An event whose records were written in part is lost too: the reader stopped before its end.
            if mark.end > written {
                stdoutLoss.events += 1
                stdoutLoss.records += mark.records
                if mark.alone {
                    stdoutLoss.lines += 1
                    if mark.serial == stdoutSerial { lastLostAloneSerial = mark.serial }
                }
            }
        }
        stdoutMarks.removeAll(keepingCapacity: true)
    }

    /// Hands every pending record on (before the reader blocks, and at the end).
    func handOver() throws {
        for batch in batches.values where !batch.buffer.isEmpty {
            try send(batch)
        }
        if case let .files(_, worker) = target, let error = worker.failure { throw error }
    }

    /// Writes what is pending, closes and renames every file; returns the files written.
    func finish() throws -> CompressionWorker.Report {
        var pendingError: Error?
        do { try handOver() } catch { pendingError = error }
        switch target {
        case let .files(_, worker):
            let report = worker.finish()
            if let error = worker.failure { throw error }
            if let pendingError { throw pendingError }
            return report
        case .stdout:
            if let pendingError { throw pendingError }
            return CompressionWorker.Report(fileCount: 0, uncompressedBytes: stdoutBytesWritten, compressedBytes: 0)
        case .memory:
            if let pendingError { throw pendingError }
            return CompressionWorker.Report(fileCount: 0, uncompressedBytes: recordBytes, compressedBytes: 0)
        }
    }

    /// What was written so far, for stats taken while running.
    var report: CompressionWorker.Report {
        switch target {
        case let .files(_, worker): return worker.snapshot
        case .stdout: return CompressionWorker.Report(fileCount: 0, uncompressedBytes: stdoutBytesWritten, compressedBytes: 0)
        case .memory: return CompressionWorker.Report(fileCount: 0, uncompressedBytes: recordBytes, compressedBytes: 0)
        }
    }

    /// Closes and renames every open file after handing over what is pending
    /// (SIGHUP, the logrotate convention); the next records start new files.
    /// Records sent before stay in the old files, records after go to the
    /// new ones: the worker's queue keeps that order, so none is lost or doubled.
    func rotateAll() throws {
        try handOver()
        guard case let .files(_, worker) = target else { return }
        worker.send(.rotateAll)
        for batch in batches.values {
            batch.recordsInFile = 0
            batch.bytesInFile = 0
        }
    }

    private func batch(for time: EventTime) -> FileBatch {
        let bucket: Int64
        switch target {
        case .stdout, .memory: bucket = 0
        case .files: bucket = PathTemplate.hourBucket(time)
        }
        if bucket == lastBucket, let batch = lastBatch { return batch }
        let key: String
        switch target {
        case .stdout, .memory: key = "-"
        case let .files(template, _): key = template.key(dest: name, time: time)
        }
        useCounter += 1
        let batch: FileBatch
        if let existing = batches[key] {
            batch = existing
        } else {
            if batches.count >= DestinationOutput.maxOpenFiles { evictLeastRecentlyUsed() }
            batch = FileBatch(key: key)
            batches[key] = batch
        }
        batch.lastUsed = useCounter
        lastBucket = bucket
        lastBatch = batch
        return batch
    }

    private func evictLeastRecentlyUsed() {
        guard let oldest = batches.values.min(by: { $0.lastUsed < $1.lastUsed }) else { return }
        try? send(oldest)
        rotate(oldest)
        batches.removeValue(forKey: oldest.key)
        lastBucket = .min
        lastBatch = nil
    }

    private func rotate(_ batch: FileBatch) {
        if case let .files(_, worker) = target { worker.send(.rotate(key: batch.key)) }
        batch.recordsInFile = 0
        batch.bytesInFile = 0
    }

    private func send(_ batch: FileBatch) throws {
        guard !batch.buffer.isEmpty else { return }
        switch target {
        case let .files(_, worker):
            worker.send(.write(key: batch.key, data: batch.buffer))
            // The worker owns the filled buffer now; the next one comes from its spares (or is made).
            batch.buffer = ByteBuffer(capacity: 16)
        case let .memory(memory):
            memory.append(name, batch.buffer.array)
            batch.buffer.removeAll()
        case .stdout:
            defer { batch.buffer.removeAll() }
            if stdoutClosed {
                loseStdoutEvents(from: 0)
                return
            }
            let result = FileSystem.writeAll(STDOUT_FILENO, batch.buffer.bytes)
            stdoutBytesWritten += result.written
            switch result.errno {
            case 0: break
            case EPIPE: stdoutClosed = true
            default: throw OutputError.writeFailed(path: "<stdout>", errno: result.errno)
            }
            loseStdoutEvents(from: result.written)
        }
    }
}
