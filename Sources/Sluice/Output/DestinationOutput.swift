import SluiceJSON

/// The runner's side of one output: batches of encoded records, one per open
/// file, rotated by record count, size and age, and handed to the output's
/// sink (files, stdout or memory) in large chunks.
///
/// Records are counted here, where they are appended, so rotation falls
/// between events and never waits for a compression thread. Where the
/// records go is the sink's part (`OutputSink`); this class is the same
/// for all, so the append path the fan-out takes for every event and
/// destination is one the compiler can inline whole. At most `maxOpenFiles`
/// files are open; a record for another one closes the least recently used.
final class DestinationOutput {
    /// Open files per destination before the least recently used one is closed.
    static let maxOpenFiles = 16

    let name: String
    let sink: any OutputSink
    private let rotation: RotationPolicy
    /// `max_age` in nanoseconds, for files only (nil: no age limit).
    private let maxAgeNanos: UInt64?
    /// The sink's `tracksEvents`, read once.
    private let tracksEvents: Bool
    @exclusivity(unchecked) private var batches: [String: RecordBatch] = [:]
    /// The hour of the last record's batch, and the batch: a stream's events come in runs of one hour.
    /// One of `batches`, which keeps it (reset when a batch leaves them).
    @exclusivity(unchecked) private var lastBucket: Int64 = .min
    @exclusivity(unchecked) private var lastBatch: Unretained<RecordBatch>?
    @exclusivity(unchecked) private var useCounter: UInt64 = 0

    init(name: String, sink: any OutputSink, rotation: RotationPolicy) {
        self.name = name
        self.sink = sink
        self.rotation = rotation
        maxAgeNanos = sink.writesFiles ? rotation.maxAge.map { UInt64(max($0.nanoseconds, 0)) } : nil
        tracksEvents = sink.tracksEvents
    }

    /// Appends the records `encode` writes for an event at `time`; returns how
    /// many it wrote. Writing none (a refusal) leaves nothing behind.
    /// `now`: the monotonic clock, if the caller read it already (the fan-out
    /// reads it once per event, not once per destination).
    @inline(__always)
    func append(time: EventTime, now clock: UInt64? = nil, encode: (inout ByteBuffer) -> Int) throws -> Int {
        try batch(for: time).with { batch in
            let written = try batch.append(rotation: rotation, maxAgeNanos: maxAgeNanos, clock: clock,
                                           spare: { sink.spareBuffer() }, encode: encode,
                                           startNewFile: { try send($0); rotate($0) })
            guard written.records > 0 else { return 0 }
            if tracksEvents { sink.eventAppended(end: batch.buffer.count, records: written.records) }
            if batch.isChunkFull { try send(batch) }
            return written.records
        }
    }

    /// Appends records made apart (a side output's, `SideRecords`): `count`
    /// records in `records`, for an event at `time`. When the records hold
    /// `weight` of a limit per file (`SideOutputKind.perFileLimit`) that they
    /// would take the current file past, they start the next file.
    func append(time: EventTime, now clock: UInt64?, records: ByteBuffer, count: Int, weight: Int = 0, limit: Int? = nil) throws -> Int {
        if let limit, weight > 0 {
            try batch(for: time).with { batch in
                if batch.weightInFile > 0 && batch.weightInFile + weight > limit {
                    try send(batch)
                    rotate(batch)
                }
            }
        }
        let written = try append(time: time, now: clock) { buffer in
            buffer.append(raw: records.bytes)
            return count
        }
        // After any rotation the append made: the weight is the new file's.
        batch(for: time).with { $0.weightInFile += weight }
        return written
    }

    /// Hands every pending record on (before the reader blocks, and at the
    /// end); throws the first error the sink met so far.
    func handOver() throws {
        for batch in batches.values where !batch.buffer.isEmpty {
            try send(batch)
        }
        if let error = sink.failure { throw error }
    }

    /// Writes what is pending, closes and renames every file; returns what was written.
    func finish() throws -> CompressionWorker.Report {
        var pendingError: Error?
        do { try handOver() } catch { pendingError = error }
        let report = try sink.finish()
        if let pendingError { throw pendingError }
        return report
    }

    /// What was written so far, for stats taken while running.
    var report: CompressionWorker.Report { sink.report }

    /// Closes and renames every open file after handing over what is pending
    /// (SIGHUP, the logrotate convention); the next records start new files.
    /// Without files, only what is pending is handed over.
    func rotateAll() throws {
        try handOver()
        guard sink.writesFiles else { return }
        sink.rotateAll()
        for batch in batches.values { batch.fileStarted() }
    }

    /// The batch for an event at `time`, kept in `batches` at least until the next call.
    private func batch(for time: EventTime) -> Unretained<RecordBatch> {
        let bucket = PathTemplate.hourBucket(time)
        if bucket == lastBucket, let batch = lastBatch { return batch }
        let key = sink.key(dest: name, time: time)
        useCounter += 1
        let batch: RecordBatch
        if let existing = batches[key] {
            batch = existing
        } else {
            if batches.count >= DestinationOutput.maxOpenFiles { evictLeastRecentlyUsed() }
            batch = RecordBatch(key: key)
            batches[key] = batch
        }
        batch.lastUsed = useCounter
        lastBucket = bucket
        lastBatch = Unretained(batch)
        return Unretained(batch)
    }

    private func evictLeastRecentlyUsed() {
        guard let oldest = batches.values.min(by: { $0.lastUsed < $1.lastUsed }) else { return }
        try? send(oldest)
        rotate(oldest)
        batches.removeValue(forKey: oldest.key)
        lastBucket = .min
        lastBatch = nil
    }

    private func rotate(_ batch: RecordBatch) {
        sink.rotate(key: batch.key)
        batch.fileStarted()
    }

    private func send(_ batch: RecordBatch) throws {
        guard !batch.buffer.isEmpty else { return }
        let records = batch.pendingRecords
        batch.pendingRecords = 0
        try sink.write(&batch.buffer, records: records, key: batch.key)
    }
}
