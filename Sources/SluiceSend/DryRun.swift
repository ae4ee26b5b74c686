import Foundation
import Logging
import Sluice

/// `--dry-run`: the requests sending would make now, one line each on stdout
/// (method, URL, file, records, bytes); no credentials are read, nothing is sent or changed.
enum DryRun {
    static func print(_ targets: [SendRun.Target], root: String, logger: Logger) -> Int32 {
        for target in targets {
            let ledger = LedgerFacts(path: root + "/.sluice-send/" + target.name + ".ledger")
            var requests = 0, records = 0
            for path in FinishedFiles.list(root: root, template: target.template, dest: target.dest) {
                guard case .success(let file) = SendFile.read(root: root, path: path) else {
                    logger.error("\(root)/\(path) is not a whole gzip file")
                    return ExitStatus.dataError
                }
                let pending = ledger.pending(path: path, identity: file.identity, count: file.count)
                for range in pending.flatMap({ Batches.cut($0, of: file, api: target.api) }) {
                    let bytes = file.starts[range.upperBound] - file.starts[range.lowerBound]
                    Swift.print("\(target.name) POST \(target.url) \(path) records \(range.lowerBound)..<\(range.upperBound) "
                        + "(\(range.count) records, \(bytes) bytes)")
                    requests += 1
                    records += range.count
                }
            }
            logger.info("send \(target.name) (dry run): \(requests) requests, \(records) records")
        }
        return ExitStatus.ok
    }
}
