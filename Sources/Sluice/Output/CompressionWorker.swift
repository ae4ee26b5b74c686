import Foundation
import SluiceJSON

/// One destination's files, opened, fed, flushed, rotated and closed on a
/// thread of their own; their blocks are deflated on the run's shared
/// `CompressionPool`, so every destination's deflate runs on every core,
/// beside the parser.
///
/// The runner hands it whole batches of records (never single events) through
/// a bounded queue: a slow disk or compressor pushes back on the reader instead
/// of growing memory. Records of one file stay in the order they were sent, so
/// the output is the same as a single-threaded run's. The worker also owns the
/// wall-clock timers: `flush_interval` (end a gzip member and fdatasync, so
/// finished data on disk is never older than that) and `max_age` rotation,
/// which fire even when input is idle.
///
/// After a write error the worker renames nothing more: every file it still
/// has open is left as `.part` (its data up to the error is in whole gzip
/// members), because records sent to it after the error were discarded.
///
/// Sendable: `files` and `nextSeq` are touched only by the worker thread;
/// `report`, `finished` and `failureValue` only under `failureLock` (finisher
/// threads update them), `spares` only under `sparesLock`; commands and their
/// buffers reach the worker through `queue`; the rest are `let`s set in `init`.
final class CompressionWorker: @unchecked Sendable {
    enum Command {
        case write(key: String, data: ByteBuffer, records: Int)
        /// Close the file of this key; the next write opens the next `{seq}`.
        case rotate(key: String)
        /// Close and rename every open file (SIGHUP); the next writes open new ones.
        case rotateAll
        /// Close every open file, rename them, and stop the thread.
        case finish
    }

    /// What the worker did so far: files renamed, bytes written to open and closed files.
    struct Report: Sendable {
        var fileCount = 0
        var uncompressedBytes = 0
        var compressedBytes = 0
        /// Records in the files finished (renamed); nil for an output without files (stdout, memory).
        var finishedRecords: Int? = 0
    }

    private struct OpenFile {
        var writer: GzipFileWriter
        var openedAt: UInt64
        var lastFlush: UInt64
        /// Whether its path is relative to `root` (not an absolute template).
        var underRoot: Bool
        var records = 0
        /// The file's compressed bytes already added to the report.
        var countedCompressed = 0
    }

    let name: String
    /// The side output of destination `name` these files are (`profiles`), nil for its events and the rejects.
    let output: String?
    private let root: String
    /// A second root whose names `{seq}` skips as well (`sluice serve`: `--out`
    /// while the files are written under the staging directory), nil for none.
    private let takenRoot: String?
    private let level: Int32
    private let pool: CompressionPool
    private let maxAgeNanos: UInt64?
    private let flushIntervalNanos: UInt64
    private let queue: WorkQueue<Command>
    private let done = DispatchSemaphore(value: 0)
    private let finisher: FileFinisher
    private let openParts: OpenPartFiles
    /// Guards `failureValue`, `report` and `finished`, which finisher threads update.
    private let failureLock = NSLock()
    /// Chunk buffers the worker is done with, for the reader to fill again.
    private var spares: [ByteBuffer] = []
    private let sparesLock = NSLock()
    /// As many as can be in flight for one file (the queue, one being
    /// compressed, one being filled), so buffers are rarely freed or made anew.
    private let maxSpares: Int
    /// The blocks its files are deflated in, and how many of a file may be in the pool (`OutputBudget`).
    private let blockSize: Int
    private let blocksInFlight: Int?
    private var failureValue: OutputError?
    private var finished = FinishedFileList()

    // Owned by the worker thread.
    private var files: [String: OpenFile] = [:]
    private var nextSeq: [String: Int] = [:]
    // Guarded by `failureLock`.
    private var report = Report()

    /// - Parameters:
    ///   - root: the `--out` directory relative paths are under.
    ///   - takenRoot: another directory whose names `{seq}` skips too (see the property).
    ///   - maxAge: rotate a file this long after it was opened (wall clock), nil for never.
    ///   - flushInterval: end a gzip member when the newest data is older than this.
    ///   - finisher: finishes closed files (fsync, rename) off this thread.
    ///   - openParts: where the `.part` files not yet renamed are listed.
    ///   - pool: the threads that deflate the files' blocks.
    ///   - queueDepth: chunks (128 KiB) that may wait for this thread. 32, not
    ///     8: with three destinations on two cores, the one with the most
    ///     output fell behind in bursts, its queue filled, and the reader
    ///     waited while the other compressors had nothing to do (full
    ///     pipeline 8.0 s -> 7.7 s wall for 4 MiB more per destination).
    init(name: String, output: String? = nil, root: String, takenRoot: String? = nil, level: Int, maxAge: Duration?, flushInterval: Duration,
         finisher: FileFinisher, openParts: OpenPartFiles = OpenPartFiles(), pool: CompressionPool = .shared,
         queueDepth: Int = 32, blockSize: Int = BlockGzipStream.defaultBlockSize, blocksInFlight: Int? = nil) {
        self.pool = pool
        self.finisher = finisher
        self.openParts = openParts
        self.name = name
        self.output = output
        self.root = root
        self.takenRoot = takenRoot
        self.level = Int32(level)
        self.maxAgeNanos = maxAge.map { UInt64($0.nanoseconds) }
        self.flushIntervalNanos = UInt64(max(flushInterval.nanoseconds, 1_000_000))
        self.queue = WorkQueue(capacity: queueDepth)
        self.maxSpares = queueDepth
        self.blockSize = blockSize
        self.blocksInFlight = blocksInFlight
        let thread = Thread { [self] in run() }
        thread.name = "sluice-gzip-\(name)" + (output.map { ".\($0)" } ?? "")
        thread.start()
    }

    /// The first error the worker hit, if any; once set, data sent to it is discarded.
    var failure: OutputError? {
        failureLock.lock()
        defer { failureLock.unlock() }
        return failureValue
    }

    /// A buffer for the next chunk: one the worker has written out, emptied, or
    /// nil (make one). Reusing them keeps the chunk buffers out of malloc: freed
    /// on another thread, they left glibc's heap 20 MB larger for three
    /// destinations (its mmap threshold rises after the first free).
    func spareBuffer() -> ByteBuffer? {
        sparesLock.lock()
        let spare = spares.popLast()
        sparesLock.unlock()
        spare?.removeAll()
        return spare
    }

    private func recycle(_ buffer: ByteBuffer) {
        sparesLock.lock()
        if spares.count < maxSpares { spares.append(buffer) }
        sparesLock.unlock()
    }

    /// Queues a command; blocks while the queue is full.
    func send(_ command: Command) {
        queue.put(command)
    }

    /// Closes and renames every file, stops the thread and returns what it wrote.
    func finish() -> Report {
        queue.put(.finish)
        done.wait()
        finisher.drain()
        return snapshot
    }

    /// What was written so far (safe from any thread).
    var snapshot: Report {
        failureLock.lock()
        defer { failureLock.unlock() }
        return report
    }

    /// The files finished (renamed) so far (safe from any thread).
    var finishedFiles: FinishedFileList {
        failureLock.lock()
        defer { failureLock.unlock() }
        return finished
    }

    private func fail(_ error: OutputError) {
        failureLock.lock()
        if failureValue == nil { failureValue = error }
        failureLock.unlock()
    }

    private func run() {
        while true {
            let command = queue.take(deadlineNanos: nextDeadline())
            if let command {
                switch command {
                case let .write(key, data, records):
                    write(key: key, data: data, records: records)
                    recycle(data)
                case let .rotate(key): close(key: key)
                case .rotateAll:
                    for key in files.keys.sorted() { close(key: key) }
                case .finish:
                    for key in files.keys.sorted() { close(key: key) }
                    done.signal()
                    return
                }
            }
            runTimers(now: Monotonic.nanoseconds())
        }
    }

    private func write(key: String, data: ByteBuffer, records: Int) {
        guard failure == nil else { return }
        do {
            if files[key] == nil { try open(key: key) }
            let writer = files[key]!.writer
            files[key]!.records += records
            try writer.write(data.bytes)
            count(uncompressed: data.count, compressedOf: key)
        } catch {
            files.removeValue(forKey: key)?.writer.abandon()
            fail(error)
        }
    }

    /// Adds to the report the bytes handed in and the file's gzip bytes written since it was last counted.
    private func count(uncompressed: Int, compressedOf key: String) {
        guard let file = files[key] else { return }
        let compressed = file.writer.compressedBytes
        files[key]!.countedCompressed = compressed
        failureLock.lock()
        report.uncompressedBytes += uncompressed
        report.compressedBytes += compressed - file.countedCompressed
        failureLock.unlock()
    }

    private func open(key: String) throws(OutputError) {
        var seq = nextSeq[key] ?? 0
        if nextSeq.count >= CompressionWorker.maxRememberedKeys {
            // Long runs see a new key every hour: forget the ones not open. A
            // forgotten key costs a few stat(2) calls to find its next free number again.
            nextSeq = nextSeq.filter { files[$0.key] != nil }
        }
        while true {
            // Never overwrite: skip numbers an earlier run (or a crashed one) already used.
            var path = resolve(PathTemplate.path(key: key, seq: seq))
            while FileSystem.exists(path) || FileSystem.exists(path + ".part") || takenUnderSecondRoot(key: key, seq: seq) {
                seq += 1
                path = resolve(PathTemplate.path(key: key, seq: seq))
            }
            // If the name is taken by the time the file is finished (another
            // destination or run writing the same files), the next free number is used.
            let first = seq
            let writer: GzipFileWriter
            do {
                writer = try GzipFileWriter(path: path, level: level, pool: pool, blockSize: blockSize,
                                            blocksInFlight: blocksInFlight) { [root] attempt in
                    let candidate = PathTemplate.path(key: key, seq: first + attempt)
                    return candidate.hasPrefix("/") ? candidate : root + "/" + candidate
                }
            } catch .cannotCreate(let part, EEXIST) where part == path + ".part" {
                // Another writer created this `.part` since the check: take the next number.
                seq += 1
                continue
            }
            nextSeq[key] = seq + 1
            let now = Monotonic.nanoseconds()
            openParts.insert(writer.partPath)
            files[key] = OpenFile(writer: writer, openedAt: now, lastFlush: now, underRoot: !key.hasPrefix("/"))
            return
        }
    }

    /// How many keys' next `{seq}` are remembered before the closed ones are forgotten.
    static let maxRememberedKeys = 256

    private func takenUnderSecondRoot(key: String, seq: Int) -> Bool {
        guard let takenRoot, !key.hasPrefix("/") else { return false }
        return FileSystem.exists(takenRoot + "/" + PathTemplate.path(key: key, seq: seq))
    }

    private func resolve(_ path: String) -> String {
        path.hasPrefix("/") ? path : root + "/" + path
    }

    /// Ends the file's last member here, then hands it to the finisher for fsync and rename.
    /// After a failure the file is only ended and left as `.part`: it may lack records.
    private func close(key: String) {
        guard let file = files[key] else { return }
        let writer = file.writer
        do {
            try writer.endMember()
            count(uncompressed: 0, compressedOf: key)
            files.removeValue(forKey: key)
        } catch {
            files.removeValue(forKey: key)
            writer.abandon()
            fail(error)
            return
        }
        if failure != nil {
            writer.abandon()
            return
        }
        let records = file.records
        let prefix = file.underRoot ? root.utf8.count + 1 : 0
        finisher.submit(writer) { [self] result in
            switch result {
            case .success:
                openParts.remove(writer.partPath)
                // The name is known only now: another file may have taken the one asked for.
                let done = FinishedFile(destination: name, output: output, path: String(writer.path.utf8.dropFirst(prefix))!,
                                        records: records, uncompressedBytes: writer.uncompressedBytes,
                                        compressedBytes: writer.compressedBytes)
                failureLock.lock()
                report.fileCount += 1
                report.finishedRecords! += records
                finished.append(done)
                failureLock.unlock()
            case .failure(let error):
                fail(error)
            }
        }
    }

    private func nextDeadline() -> UInt64? {
        var deadline: UInt64?
        for file in files.values {
            var candidate = file.lastFlush + flushIntervalNanos
            if let maxAge = maxAgeNanos { candidate = min(candidate, file.openedAt + maxAge) }
            deadline = min(deadline ?? candidate, candidate)
        }
        return deadline
    }

    private func runTimers(now: UInt64) {
        for key in files.keys.sorted() {
            guard let file = files[key] else { continue }
            if let maxAge = maxAgeNanos, now >= file.openedAt + maxAge {
                close(key: key)
            } else if now >= file.lastFlush + flushIntervalNanos {
                do {
                    try file.writer.checkLinked()
                    if try file.writer.endMember() {
                        try file.writer.syncData()
                    }
                    count(uncompressed: 0, compressedOf: key)
                    files[key]!.lastFlush = now
                } catch {
                    files.removeValue(forKey: key)?.writer.abandon()
                    fail(error)
                }
            }
        }
    }
}
