import Foundation
import Sluice
import SluiceJSON

/// What one destination's sending came to, for the summary line, `--stats`
/// and `--metrics`. Every record of a file `sluice send` took up is counted
/// once: `records = already_acknowledged + sent + refused + unsent`.
struct SendStats: Sendable {
    /// Records of the files taken up this run.
    var records = 0
    /// Of those, acknowledged by an earlier run (in the ledger), not sent again.
    var alreadyAcknowledged = 0
    /// Acknowledged by the provider in this run.
    var sent = 0
    /// Refused by the provider (in `send-rejects/`).
    var refused = 0
    /// Files every record of which is acknowledged.
    var filesDone = 0
    /// Requests made, retries among them, and the bytes of their bodies.
    var requests = 0
    var retried = 0
    var bytes = 0
    /// Compressed bytes of the files taken up, and of those whose records were all acknowledged (for the progress ETA).
    var fileBytes = 0
    var fileBytesDone = 0
    /// Seconds each request took, by upper bound (`latencyBounds`), and their sum and maximum.
    var latencyCounts = [Int](repeating: 0, count: SendStats.latencyBounds.count + 1)
    var latencySum = 0.0
    var latencyMax = 0.0

    static let latencyBounds: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]

    /// Records not acknowledged: sending stopped before them.
    var unsent: Int { records - alreadyAcknowledged - sent - refused }

    mutating func recordLatency(_ seconds: Double) {
        let bucket = SendStats.latencyBounds.firstIndex { seconds <= $0 } ?? SendStats.latencyBounds.count
        latencyCounts[bucket] += 1
        latencySum += seconds
        latencyMax = max(latencyMax, seconds)
    }

    /// The JSON object of one destination in `--stats`.
    func json() -> String {
        let mean = requests == 0 ? 0 : latencySum / Double(requests)
        return "{\"records\":\(records),\"already_acknowledged\":\(alreadyAcknowledged),\"sent\":\(sent),\"refused\":\(refused),"
            + "\"unsent\":\(unsent),\"files_done\":\(filesDone),\"requests\":\(requests),\"retried\":\(retried),"
            + "\"bytes_sent\":\(bytes),\"latency_seconds\":{\"mean\":\(Self.decimal(mean)),\"max\":\(Self.decimal(latencyMax))}}"
    }

    static func decimal(_ value: Double) -> String { String(format: "%.6f", value) }

    /// `--stats`: every destination's counts, and the exit code with its error.
    static func statsJSON(_ all: [(String, SendStats)], exitCode: Int32, error: String?) -> String {
        var text = "{\"command\":\"send\",\"exit_code\":\(exitCode),"
        if let error {
            var quoted: [UInt8] = []
            SluiceJSON.JSONString.appendQuoted(error, to: &quoted)
            text += "\"error\":" + String(decoding: quoted, as: UTF8.self) + ","
        }
        text += "\"destinations\":{"
        text += all.map { "\"\($0.0)\":\($0.1.json())" }.joined(separator: ",")
        return text + "}}\n"
    }

    /// `--metrics`: a Prometheus textfile.
    static func prometheus(_ all: [(String, SendStats)]) -> String {
        var text = ""
        func family(_ name: String, _ help: String, _ type: String, _ samples: [(String, String)]) {
            text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for (labels, value) in samples { text += "\(name){\(labels)} \(value)\n" }
        }
        family("sluice_send_records_total", "Records of the files taken up, by what became of them.", "counter", all.flatMap { name, s in
            [("already_acknowledged", s.alreadyAcknowledged), ("sent", s.sent), ("refused", s.refused), ("unsent", s.unsent)]
                .map { ("destination=\"\(name)\",outcome=\"\($0.0)\"", "\($0.1)") }
        })
        family("sluice_send_requests_total", "Requests made to the provider.", "counter",
               all.map { ("destination=\"\($0.0)\"", "\($0.1.requests)") })
        family("sluice_send_retries_total", "Requests made again after a 429, a 5xx, a timeout or a connection error.", "counter",
               all.map { ("destination=\"\($0.0)\"", "\($0.1.retried)") })
        family("sluice_send_bytes_total", "Request body bytes sent.", "counter", all.map { ("destination=\"\($0.0)\"", "\($0.1.bytes)") })
        family("sluice_send_files_done_total", "Files every record of which was acknowledged.", "counter",
               all.map { ("destination=\"\($0.0)\"", "\($0.1.filesDone)") })
        text += "# HELP sluice_send_request_duration_seconds How long requests took, to the whole response.\n"
        text += "# TYPE sluice_send_request_duration_seconds histogram\n"
        for (name, s) in all {
            var cumulative = 0
            for (index, bound) in (latencyBounds.map { "\($0)" } + ["+Inf"]).enumerated() {
                cumulative += s.latencyCounts[index]
                text += "sluice_send_request_duration_seconds_bucket{destination=\"\(name)\",le=\"\(bound)\"} \(cumulative)\n"
            }
            text += "sluice_send_request_duration_seconds_sum{destination=\"\(name)\"} \(decimal(s.latencySum))\n"
            text += "sluice_send_request_duration_seconds_count{destination=\"\(name)\"} \(s.requests)\n"
        }
        return text
    }
}
