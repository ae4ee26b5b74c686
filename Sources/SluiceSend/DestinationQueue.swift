import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Sluice

/// One destination's work: its finished files, cut into request-sized batches
/// of the records the ledger does not have yet, handed to the senders one at a
/// time; what they report comes back here, into the ledger (fsynced) and the
/// counts, and a file whose every record is acknowledged is moved, kept or
/// deleted as `after_send` says. An actor: the ledger is written by one at a time.
actor DestinationQueue {
    struct Batch: Sendable {
        let file: SendFile
        let range: Range<Int>
        /// The file's own gzip bytes, when the batch is the whole file (sent as they are).
        let gzipped: [UInt8]?
    }

    /// The output's name (the ledger's, the stats'): the destination's, or `DEST.KIND` for a side output.
    let name: String
    /// The destination's name, `{dest}` of the template.
    let dest: String
    let root: String
    let template: PathTemplate
    let api: any ProviderAPI
    let afterSend: SendSettings.AfterSend
    private let ledger: SendLedger
    /// `--validate`: the answers are checked, nothing is acknowledged or moved.
    let checkOnly: Bool
    /// The secrets, taken out of every send-rejects line (a provider's answer may quote one).
    let redactor: Redactor
    private(set) var stats = SendStats()
    private(set) var failure: SendFailure?
    private var paths: [String] = []
    private var batches: [Batch] = []
    /// Per file taken up: batches not finished yet.
    private var open: [String: (file: SendFile, batches: Int)] = [:]

    init(name: String, dest: String, root: String, template: PathTemplate, api: any ProviderAPI, afterSend: SendSettings.AfterSend,
         ledger: SendLedger, checkOnly: Bool = false, redactor: Redactor = Redactor()) {
        self.checkOnly = checkOnly
        self.redactor = redactor
        self.name = name
        self.dest = dest
        self.root = root
        self.template = template
        self.api = api
        self.afterSend = afterSend
        self.ledger = ledger
    }

    /// Finds the finished files not taken up yet (again and again with `--watch`); false when there are none.
    @discardableResult
    func scan() -> Bool {
        let known = Set(paths).union(open.keys)
        let found = FinishedFiles.list(root: root, template: template, dest: dest).filter { !known.contains($0) }
        paths += found
        for path in found {
            if let size = (try? FileManager.default.attributesOfItem(atPath: root + "/" + path))?[.size] as? Int {
                stats.fileBytes += size
            }
        }
        return !paths.isEmpty
    }

    func fail(_ failure: SendFailure) {
        if self.failure == nil { self.failure = failure }
    }

    /// The next batch to send, or nil when there is none (or sending stopped).
    func next(stopping: Bool) -> Batch? {
        while batches.isEmpty {
            guard failure == nil, !stopping, !paths.isEmpty else { return nil }
            take(paths.removeFirst())
        }
        guard failure == nil, !stopping else { return nil }
        return batches.removeFirst()
    }

    /// Reads a file and queues its batches (or finishes it, when the ledger has it all).
    private func take(_ path: String) {
        var info = stat()
        guard stat(root + "/" + path, &info) == 0 else { return }  // moved by another sender in between
        let identity = SendFile.identity(info)
        if ledger.isDone(path: path, identity: identity) && !checkOnly {
            // Sent by an earlier run: kept (`after_send: keep`), or a crash came before its move.
            if afterSend != .keep { finish(path: path, identity: identity, size: Int(info.st_size)) }
            return
        }
        switch SendFile.read(root: root, path: path) {
        case .failure(let failure):
            // Gone in between (another sender moved it): nothing to do; otherwise stop.
            if FileManager.default.fileExists(atPath: root + "/" + path) { fail(failure) }
        case .success(let file):
            stats.records += file.count
            let pending = checkOnly ? (file.count > 0 ? [0..<file.count] : [])
                : ledger.pending(path: path, identity: file.identity, count: file.count)
            stats.alreadyAcknowledged += file.count - pending.reduce(0) { $0 + $1.count }
            let ranges = pending.flatMap { Batches.cut($0, of: file, api: api) }
            if ranges.isEmpty {
                if checkOnly { return }
                finish(path: path, identity: file.identity, size: file.compressed.count)
                return
            }
            let whole = ranges.count == 1 && ranges[0] == 0..<file.count
            for range in ranges { batches.append(Batch(file: file, range: range, gzipped: whole ? file.oneMember : nil)) }
            open[path] = (file, ranges.count)
        }
    }

    func recordRequest(bytes: Int, seconds: Double) {
        stats.requests += 1
        stats.bytes += bytes
        stats.recordLatency(seconds)
    }

    func recordRetry() { stats.retried += 1 }

    /// The provider acknowledged `range` of a file, refusing `refused` (indexes in the file): the
    /// refused records go to the send-rejects, then the ledger, fsynced, before this returns.
    func acknowledge(_ file: SendFile, _ range: Range<Int>, status: Int, refused: [(index: Int, reason: String)]) -> Bool {
        do {
            if !refused.isEmpty {
                try SendRejects.write(root: root, destination: name, file: file, first: range.lowerBound, status: status,
                                      refused: refused, redactor: redactor)
            }
            if !checkOnly { try ledger.acknowledge(file, range) }
        } catch {
            fail(error)
            return false
        }
        stats.sent += range.count - refused.count
        stats.refused += refused.count
        return true
    }

    /// Records the provider refused out of a batch it took nothing of (`acceptsPartially` false):
    /// to the send-rejects, then each acknowledged in the ledger.
    func refuse(_ file: SendFile, status: Int, _ refused: [(index: Int, reason: String)]) -> Bool {
        do {
            try SendRejects.write(root: root, destination: name, file: file, first: refused.map(\.index).min() ?? 0,
                                  status: status, refused: refused, redactor: redactor)
            for range in RangeSet.merged(refused.map { $0.index..<($0.index + 1) }) where !checkOnly {
                try ledger.acknowledge(file, range)
            }
        } catch {
            fail(error)
            return false
        }
        stats.refused += refused.count
        return true
    }

    /// A batch's sender is done with it, acknowledged or not; the last one of a file finishes the file.
    func finished(_ batch: Batch) {
        guard var entry = open[batch.file.path] else { return }
        entry.batches -= 1
        open[batch.file.path] = entry.batches == 0 ? nil : entry
        guard entry.batches == 0, !checkOnly else { return }
        let file = batch.file
        if ledger.pending(path: file.path, identity: file.identity, count: file.count).isEmpty {
            finish(path: file.path, identity: file.identity, size: file.compressed.count)
        }
    }

    /// Every record of the file is acknowledged: `done` in the ledger, then `after_send`, then `gone`.
    private func finish(path relative: String, identity: String, size: Int) {
        do {
            let path = root + "/" + relative
            if !ledger.isDone(path: relative, identity: identity) { try ledger.markDone(path: relative, identity: identity) }
            switch afterSend {
            case .keep:
                break
            case .move:
                try Durable.move(path, to: root + "/sent/" + relative)
                try ledger.markGone(path: relative, identity: identity)
            case .delete:
                try Durable.remove(path)
                try ledger.markGone(path: relative, identity: identity)
            }
            stats.filesDone += 1
            stats.fileBytesDone += size
        } catch {
            fail(error)
        }
    }
}
