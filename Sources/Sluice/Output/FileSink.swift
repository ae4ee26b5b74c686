import SluiceJSON

/// A destination's gzip files: each batch goes to the destination's
/// compression thread (`CompressionWorker`), which writes `.part` files and
/// renames them when they are closed.
///
/// Commands reach the worker in the order they are sent, so records sent
/// before a rotation stay in the old file and records after go to the new
/// one: none is lost or doubled. A failure on the worker's thread (disk full)
/// surfaces here at the next hand-over.
final class FileSink: OutputSink {
    private let template: PathTemplate
    private let worker: CompressionWorker

    init(template: PathTemplate, worker: CompressionWorker) {
        self.template = template
        self.worker = worker
    }

    var writesFiles: Bool { true }

    func key(dest: String, time: EventTime) -> String { template.key(dest: dest, time: time) }

    func spareBuffer() -> ByteBuffer? { worker.spareBuffer() }

    func write(_ buffer: inout ByteBuffer, records: Int, key: String) {
        worker.send(.write(key: key, data: buffer, records: records))
        // The worker owns the filled buffer now; the next one comes from its spares (or is made).
        buffer = ByteBuffer(capacity: 16)
    }

    func rotate(key: String) { worker.send(.rotate(key: key)) }

    func rotateAll() { worker.send(.rotateAll) }

    var failure: OutputError? { worker.failure }

    func finish() throws -> CompressionWorker.Report {
        let report = worker.finish()
        if let error = worker.failure { throw error }
        return report
    }

    var report: CompressionWorker.Report { worker.snapshot }

    var finishedFiles: FinishedFileList { worker.finishedFiles }
}
