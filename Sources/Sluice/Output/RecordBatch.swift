import SluiceJSON

/// The records of one output file not yet handed on, and how much that file
/// holds so far: what every output batches and rotates by.
///
/// A `DestinationOutput` keeps one batch per open file (keyed by the path
/// with `{seq}` unfilled); stdout and memory have one. A batch is handed on
/// whole (to its output's sink) when it reaches `chunkBytes`, at every
/// hand-over, and before its file is rotated, so the records of one event
/// never straddle two files.
final class RecordBatch {
    /// Records are handed on in chunks of about this size.
    static let chunkBytes = 128 * 1024

    let key: String
    /// Made when the batch is first written to (see `append`), not when it is made.
    @exclusivity(unchecked) var buffer = ByteBuffer(capacity: 16)
    /// Records in `buffer`, handed on with it (the file's record count).
    @exclusivity(unchecked) var pendingRecords = 0
    /// What the current file holds, handed on or not: the rotation limits count these.
    @exclusivity(unchecked) private(set) var recordsInFile = 0
    @exclusivity(unchecked) private(set) var bytesInFile = 0
    /// What the current file's records hold of a side output's `perFileLimit` (Amplitude's group properties).
    @exclusivity(unchecked) var weightInFile = 0
    /// When the file's first record was appended (monotonic ns), for `max_age`.
    @exclusivity(unchecked) private(set) var openedAt: UInt64 = 0
    /// A use stamp, so a file output can close the least recently used of its files.
    @exclusivity(unchecked) var lastUsed: UInt64 = 0

    init(key: String) { self.key = key }

    /// Appends the records `encode` writes for one event; returns how many and their bytes.
    ///
    /// A refusal (0 records) leaves nothing behind. When the records would
    /// take the file past a limit of `rotation`, they are held back while
    /// `startNewFile` hands the batch on and starts the next file (which must
    /// call `fileStarted`), then go first into the new one.
    /// - Parameters:
    ///   - spare: a buffer to fill instead of allocating one (the compression thread's spares).
    ///   - maxAgeNanos: `max_age`, or nil when the output has no age limit (then the clock is not read).
    ///   - clock: the monotonic clock, if the caller read it already (once per event, not per destination).
    @inline(__always)
    func append(rotation: RotationPolicy, maxAgeNanos: UInt64?, clock: UInt64?, spare: () -> ByteBuffer?,
                encode: (inout ByteBuffer) -> Int,
                startNewFile: (RecordBatch) throws -> Void) rethrows -> (records: Int, bytes: Int) {
        // Room for a whole chunk, taken when a batch is written to, not kept by
        // idle ones: up to 16 keys per destination would otherwise hold 320 KiB each.
        if buffer.capacity < RecordBatch.chunkBytes {
            if let spare = spare() { buffer = spare }
            buffer.reserve(RecordBatch.chunkBytes + 64 * 1024)
        }
        let before = buffer.count
        let count = encode(&buffer)
        guard count > 0 else {
            if buffer.count > before { buffer.removeSubrange(before...) }
            return (0, 0)
        }
        let added = buffer.count - before
        // `max_age` is decided here too, not only by the worker's timer, so the
        // counts below start afresh with the file: the worker's timer (which
        // closes an idle file) fires no earlier than this, as its file opened
        // after this side's first record. A file it closed already makes the
        // rotate below a no-op, and still resets the counts.
        let now = maxAgeNanos == nil ? 0 : clock ?? Monotonic.nanoseconds()
        if recordsInFile > 0 &&
            (recordsInFile + count > rotation.maxEvents || bytesInFile + added > rotation.maxBytes
                || maxAgeNanos.map { now &- openedAt >= $0 } == true) {
            let tail = Array(buffer.bytes[before...])
            buffer.removeSubrange(before...)
            try startNewFile(self)
            if buffer.capacity < RecordBatch.chunkBytes { buffer.reserve(RecordBatch.chunkBytes) }
            buffer.append(contentsOf: tail)
        }
        if recordsInFile == 0 { openedAt = now }
        pendingRecords += count
        recordsInFile += count
        bytesInFile += added
        return (count, added)
    }

    /// Whether the buffer has reached a chunk's size and is to be handed on.
    @inline(__always)
    var isChunkFull: Bool { buffer.count >= RecordBatch.chunkBytes }

    /// The file was closed (or is about to be): the next record starts a new one with the whole limits.
    func fileStarted() {
        recordsInFile = 0
        bytesInFile = 0
        weightInFile = 0
    }
}
