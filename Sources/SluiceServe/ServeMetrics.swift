import NIOConcurrencyHelpers
import Sluice

/// What `GET /metrics` says, in Prometheus's text format: requests by
/// status, messages journaled, body bytes received, request latency (from
/// the request's head to its answer: the journal's fsync included), the
/// journal's backlog, whether the server takes messages, and the epochs.
/// After them, the run's own metrics (`sluice run`'s `--metrics` names),
/// summed over the epochs committed since the server started.
package final class ServeMetrics: Sendable {
    /// The latency histogram's upper bounds, in seconds.
    static let bounds: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

    struct Counts {
        var requests: [Int: Int] = [:]
        var messages = 0
        var bytes = 0
        var latencyBuckets = [Int](repeating: 0, count: ServeMetrics.bounds.count)
        var latencyCount = 0
        var latencySum = 0.0
        var epochsCommitted = 0
        var epochsFailed = 0
        var refusedConnections = 0
        var timeouts = 0
        var bodyMemoryRefusals = 0
        /// The committed epochs' stats, added up.
        var run: RunSummary?
    }

    private let counts = NIOLockedValueBox(Counts())

    package init() {}

    /// One request answered with `status` after `seconds`, having read `bytes` of body and journaled `messages`.
    package func answered(status: Int, seconds: Double, bytes: Int, messages: Int) {
        counts.withLockedValue { counts in
            counts.requests[status, default: 0] += 1
            counts.bytes += bytes
            counts.messages += messages
            counts.latencyCount += 1
            counts.latencySum += seconds
            for (index, bound) in Self.bounds.enumerated() where seconds <= bound { counts.latencyBuckets[index] += 1 }
        }
    }

    /// A connection over `--max-connections`, answered 503.
    package func refusedConnection() { counts.withLockedValue { $0.refusedConnections += 1 } }

    /// A request that did not arrive whole within `--request-timeout`, answered 408.
    package func timedOut() { counts.withLockedValue { $0.timeouts += 1 } }

    /// A request refused because the bodies held at once were at `--max-body-memory` (answered 429).
    package func refusedForBodyMemory() { counts.withLockedValue { $0.bodyMemoryRefusals += 1 } }

    /// An epoch ended; a committed one's stats (`summary`) are added to the run's totals.
    package func epoch(committed: Bool, summary: RunSummary?) {
        counts.withLockedValue { counts in
            if committed { counts.epochsCommitted += 1 } else { counts.epochsFailed += 1 }
        }
        if committed, let summary { addRun(summary) }
    }

    /// An epoch's stats added to the run's totals: one that committed, or a
    /// failed one whose files were moved into place from its commit record.
    package func addRun(_ summary: RunSummary) {
        counts.withLockedValue { $0.run = RunSummary.total($0.run, adding: summary) }
    }

    /// The text of `GET /metrics`.
    package func render(backlogBytes: Int, accepting: Bool, connections: Int, bodyMemoryBytes: Int) -> String {
        let counts = counts.withLockedValue { $0 }
        var out = PrometheusExposition()
        out.metric("sluice_serve_requests_total", .counter, "Requests answered, by HTTP status.",
                   counts.requests.keys.sorted().map { ([("status", "\($0)")], counts.requests[$0]!) })
        out.metric("sluice_serve_messages_total", .counter, "Messages journaled (answered 200).", [([], counts.messages)])
        out.metric("sluice_serve_request_body_bytes_total", .counter, "Request body bytes received, as sent (gzip or not).",
                   [([], counts.bytes)])
        out.histogram("sluice_serve_request_duration_seconds", "From a request's head to its answer, the journal's fsync included.",
                      bounds: Self.bounds, cumulative: counts.latencyBuckets, count: counts.latencyCount, sum: counts.latencySum)
        out.metric("sluice_serve_journal_backlog_bytes", .gauge, "Journal bytes not yet run by a committed epoch.", [([], backlogBytes)])
        out.metric("sluice_serve_accepting", .gauge, "1 while messages are taken, 0 once stopping.", [([], accepting ? 1 : 0)])
        out.metric("sluice_serve_connections", .gauge, "Connections open.", [([], connections)])
        out.metric("sluice_serve_connections_refused_total", .counter, "Connections over --max-connections, answered 503 and closed.",
                   [([], counts.refusedConnections)])
        out.metric("sluice_serve_request_timeouts_total", .counter,
                   "Requests not whole within --request-timeout (slow clients), answered 408.", [([], counts.timeouts)])
        out.metric("sluice_serve_body_memory_bytes", .gauge, "Request body bytes held at once, across connections.",
                   [([], bodyMemoryBytes)])
        out.metric("sluice_serve_body_memory_refusals_total", .counter,
                   "Requests refused because the bodies held were at --max-body-memory (answered 429).", [([], counts.bodyMemoryRefusals)])
        out.metric("sluice_serve_epochs_total", .counter, "Epochs run over the journal, by result.",
                   [([("result", "committed")], counts.epochsCommitted), ([("result", "failed")], counts.epochsFailed)])
        // The run's metrics once an epoch has committed: the same names as `sluice run --metrics`.
        return out.text + (counts.run.map { PrometheusTextfile.render($0) } ?? "")
    }
}
