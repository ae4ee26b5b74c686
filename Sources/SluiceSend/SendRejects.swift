import Foundation
import Sluice
import SluiceJSON

/// The records a provider refused (a 400 naming them, or a record too large for
/// any request), with its reason: `OUT/send-rejects/NAME/PATH` beside the
/// file they came from, one gzip file per refusing batch, named by the batch's
/// first record, written whole (temporary file, fsync, rename) before the
/// ledger acknowledges the batch. A rerun after a crash writes the same file again.
/// Every line is scrubbed of the destinations' secrets first (a provider's 400
/// may quote the write key it was given): `[redacted]` in their place.
///
/// ```json
/// {"destination":"mixpanel","file":"mixpanel/2026-11-20/mixpanel-08-0000.ndjson.gz","index":17,"status":400,
///  "reason":"properties.time: 'properties.time' is invalid","record":{"event":"Tap","properties":{…}}}
/// ```
enum SendRejects {
    static func write(root: String, destination: String, file: SendFile, first: Int, status: Int,
                      refused: [(index: Int, reason: String)], redactor: Redactor = Redactor()) throws(SendFailure) {
        var text: [UInt8] = []
        for (index, reason) in refused.sorted(by: { $0.index < $1.index }) {
            text += Array("{\"destination\":".utf8)
            JSONString.appendQuoted(destination, to: &text)
            text += Array(",\"file\":".utf8)
            JSONString.appendQuoted(file.path, to: &text)
            text += Array(",\"index\":\(index),\"status\":\(status),\"reason\":".utf8)
            JSONString.appendQuoted(reason, to: &text)
            text += Array(",\"record\":".utf8)
            let record = file.record(index)
            // A record is JSON as `sluice run` wrote it; one that is not is kept as text.
            if (try? JSONDocument.parse(Array(record))) != nil {
                text += record
            } else {
                JSONString.appendQuoted(record, to: &text)
            }
            text += Array("}\n".utf8)
        }
        if redactor.finds(in: text) { text = Array(redactor.scrub(String(decoding: text, as: UTF8.self)).utf8) }
        let stem = file.path.hasSuffix(".ndjson.gz") ? String(file.path.dropLast(10)) : file.path
        let path = root + "/send-rejects/" + destination + "/" + stem + "-from-\(first).ndjson.gz"
        let body = GzipDeflater.member(of: text[...], level: 6)
        do {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            try Durable.write(body, to: path)
        } catch let failure as SendFailure {
            throw failure
        } catch {
            throw .io("cannot write \(path): \(error.localizedDescription)")
        }
    }
}
