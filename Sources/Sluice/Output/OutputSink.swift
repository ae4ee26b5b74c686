import SluiceJSON

/// Where a destination's batches of records end up: gzip files
/// (`FileSink`), stdout (`StdoutSink`) or memory (`MemorySink`).
///
/// The sink is asked only when a batch leaves its `DestinationOutput` (a
/// full chunk, a hand-over, a rotation) or when the stream moves to another
/// hour, not per record (only stdout hears where each event ends): appending
/// stays in `DestinationOutput`, where the compiler sees all of it. What a
/// sink does not do (stdout has no files to rotate, memory cannot fail) has a
/// default below.
protocol OutputSink: AnyObject {
    /// Whether the records go to files: only files have an age limit, and only
    /// closing them all (`rotateAll`) starts the rotation counts afresh.
    var writesFiles: Bool { get }

    /// Whether the sink is told where each event's records end (`eventAppended`): stdout, to know what a closed pipe lost.
    var tracksEvents: Bool { get }

    /// The file an event at `time` goes to, as a key (the path with `{seq}` unfilled); one key for all when there are no files.
    func key(dest: String, time: EventTime) -> String

    /// A used buffer to fill instead of allocating one, if the sink has one spare.
    func spareBuffer() -> ByteBuffer?

    /// Takes the batch's `records` for the file `key`, leaving `buffer` empty for the next ones.
    func write(_ buffer: inout ByteBuffer, records: Int, key: String) throws

    /// The last event's records end at byte `end` of the pending buffer (only when `tracksEvents`).
    func eventAppended(end: Int, records: Int)

    /// Closes the file `key` (its next records start a new one).
    func rotate(key: String)

    /// Closes every open file, in order after everything written before.
    func rotateAll()

    /// The first error met on the sink's own thread, if any.
    var failure: OutputError? { get }

    /// Ends the sink once everything was written; returns what was written, or throws its failure.
    func finish() throws -> CompressionWorker.Report

    /// What was written so far.
    var report: CompressionWorker.Report { get }

    /// The files finished so far (none for stdout and memory).
    var finishedFiles: FinishedFileList { get }
}

extension OutputSink {
    var writesFiles: Bool { false }
    var tracksEvents: Bool { false }
    func key(dest: String, time: EventTime) -> String { "-" }
    func spareBuffer() -> ByteBuffer? { nil }
    func eventAppended(end: Int, records: Int) {}
    func rotate(key: String) {}
    func rotateAll() {}
    var failure: OutputError? { nil }
    func finish() throws -> CompressionWorker.Report { report }
    var finishedFiles: FinishedFileList { FinishedFileList() }
}
