import SluiceJSON

/// A destination's records kept in memory (`sluice test`): each batch is
/// appended, in order, under the destination's name to the run's `MemoryOutputs`.
///
/// The batching before it is the one `sluice run` uses, so a test runs the
/// same code up to this last step. No files: no age limit, nothing to rotate.
final class MemorySink: OutputSink {
    private let name: String
    private let memory: MemoryOutputs
    /// Record bytes handed to memory so far.
    private var bytesWritten = 0

    init(name: String, memory: MemoryOutputs) {
        self.name = name
        self.memory = memory
    }

    func write(_ buffer: inout ByteBuffer, records: Int, key: String) {
        memory.append(name, buffer.array)
        bytesWritten += buffer.count
        buffer.removeAll()
    }

    var report: CompressionWorker.Report {
        CompressionWorker.Report(fileCount: 0, uncompressedBytes: bytesWritten, compressedBytes: 0, finishedRecords: nil)
    }
}
