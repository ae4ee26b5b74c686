import Foundation
/// The accounting as a Prometheus text exposition, for node_exporter's
/// textfile collector (`--metrics FILE`, written atomically: a temp file and a
/// rename, so the collector never reads half a file).
///
/// Every name starts with `sluice_`; counters end in `_total`, levels are
/// gauges with their unit last (`_bytes`, `_seconds`, `_devices`); reasons,
/// destinations and stages are labels, each from a set the pipeline bounds
/// (never an input's name: hourly logs would make a series each). The same
/// numbers as `--stats`.
public enum PrometheusTextfile {
    /// How the run ended, for the final write: `nil` while it is running.
    public struct Outcome: Sendable {
        public var exitStatus: Int32
        public init(exitStatus: Int32) { self.exitStatus = exitStatus }
    }

    public static func render(_ summary: RunSummary, outcome: Outcome? = nil) -> String {
        var out = PrometheusExposition()
        out.metric("sluice_build_info", .gauge, "Always 1; the version of the sluice that wrote this file.",
                   [([("version", summary.process?.version ?? SluiceVersion.text)], 1)])
        out.metric("sluice_lines_in_total", .counter, "Non-blank input lines read.", [([], summary.linesIn)])
        out.metric("sluice_lines_emitted_total", .counter, "Lines that reached at least one destination.", [([], summary.emitted)])
        out.metric("sluice_lines_merged_total", .counter, "Lines folded into another event by a stage.", [([], summary.merged)])
        out.metric("sluice_lines_rejected_total", .counter, "Lines rejected, by reason.",
                   summary.rejected.sorted { $0.key < $1.key }.map { ([("reason", $0.key.rawValue)], $0.value) })
        out.metric("sluice_lines_dropped_total", .counter, "Lines dropped by a rule, by reason.",
                   summary.dropped.sorted { $0.key < $1.key }.map { ([("reason", $0.key.rawValue)], $0.value) })
        if summary.usesState {
            out.metric("sluice_lines_carried_in_total", .counter, "Lines an earlier run carried to the --state file, restored at the start.",
                       [([], summary.carriedIn)])
            out.metric("sluice_lines_carried_total", .counter, "Lines a stage held at the end, carried to the --state file.",
                       [([], summary.carried)])
        }
        out.metric("sluice_lines_in_flight", .gauge, "Lines held by a stage, not settled yet (0 once a run has finished).",
                   [([], summary.inFlight)])
        out.metric("sluice_blank_lines_total", .counter, "Blank lines skipped (not in lines_in).", [([], summary.blankLines)])

        let destinations = summary.destinations
        func perDestination(_ value: (RunSummary.DestinationCounts) -> Int) -> [([(String, String)], Int)] {
            destinations.map { ([("destination", $0.name), ("type", $0.type)], value($0)) }
        }
        func perDestinationReason(_ pairs: (RunSummary.DestinationCounts) -> [(String, Int)], label: String) -> [([(String, String)], Int)] {
            destinations.flatMap { d in pairs(d).map { ([("destination", d.name), (label, $0.0)], $0.1) } }
        }
        out.metric("sluice_destination_events_total", .counter, "Events that reached the destination.", perDestination(\.events))
        out.metric("sluice_destination_records_total", .counter, "Records written to the destination.", perDestination(\.records))
        out.metric("sluice_destination_refused_total", .counter, "Events the destination refused, by reason.",
                   perDestinationReason({ $0.refused.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } }, label: "reason"))
        out.metric("sluice_destination_not_taken_total", .counter, "Events routed to the destination that it does not take, by reason.",
                   perDestinationReason({ $0.notTaken.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } }, label: "reason"))
        out.metric("sluice_destination_changes_total", .counter, "What the destination changed to fit its provider, by kind.",
                   perDestinationReason({ $0.changes.map { ($0.name, $0.value) } }, label: "change"))
        out.metric("sluice_destination_files_total", .counter, "Files completed and renamed.", perDestination(\.files))
        out.metric("sluice_destination_records_not_delivered_total", .counter,
                   "Records (side outputs' included) that did not reach a finished file: a write, fsync or rename failed.",
                   perDestination { $0.notDelivered + $0.outputs.reduce(0) { $0 + $1.notDelivered } })
        out.metric("sluice_destination_uncompressed_bytes_total", .counter, "Record bytes written.", perDestination(\.uncompressedBytes))
        out.metric("sluice_destination_compressed_bytes_total", .counter, "Gzip bytes written.", perDestination(\.compressedBytes))
        func perOutput(_ value: (RunSummary.OutputCounts) -> Int) -> [([(String, String)], Int)] {
            destinations.flatMap { d in d.outputs.map { ([("destination", d.name), ("output", $0.name)], value($0)) } }
        }
        out.metric("sluice_destination_output_records_total", .counter,
                   "Records written to a destination's side output (profiles, groups, user mappings).", perOutput(\.records))
        out.metric("sluice_destination_output_files_total", .counter, "Files of a side output completed and renamed.", perOutput(\.files))
        out.metric("sluice_destination_output_uncompressed_bytes_total", .counter, "Record bytes written to a side output.",
                   perOutput(\.uncompressedBytes))
        out.metric("sluice_destination_output_compressed_bytes_total", .counter, "Gzip bytes written to a side output.",
                   perOutput(\.compressedBytes))
        out.metric("sluice_reject_files_total", .counter, "Rejects files completed and renamed.", [([], summary.rejectFiles)])
        out.metric("sluice_reject_records_not_delivered_total", .counter,
                   "Reject records that did not reach a finished rejects file: a write, fsync or rename failed.",
                   [([], summary.rejectRecordsNotDelivered)])

        let gauges = summary.stages.map { StageRegistry.type(key: $0.name)?.gauges ?? [] }
        out.metric("sluice_stage_counter_total", .counter, "Each stage's own counters (its levels are gauges of their own).",
                   zip(summary.stages, gauges).flatMap { stage, gauges in
                       stage.counters.filter { counter in !gauges.contains { $0.counter == counter.name } }
                           .map { ([("stage", stage.name), ("counter", $0.name)], $0.value) }
                   })
        for gauge in StageRegistry.types.flatMap(\.gauges) {
            let samples = zip(summary.stages, gauges).compactMap { stage, gauges -> ([(String, String)], Int)? in
                guard gauges.contains(where: { $0.metric == gauge.metric }),
                      let counter = stage.counters.first(where: { $0.name == gauge.counter }) else { return nil }
                return ([("stage", stage.name)], counter.value)
            }
            if !samples.isEmpty { out.metric("sluice_stage_" + gauge.metric, .gauge, gauge.help, samples) }
        }
        var grouped: [([(String, String)], Int)] = []
        func flatten(_ group: CounterGroup, stage: String, path: String) {
            let name = path.isEmpty ? group.name : path + "/" + group.name
            for counter in group.counters { grouped.append(([("stage", stage), ("group", name), ("counter", counter.name)], counter.value)) }
            for nested in group.groups { flatten(nested, stage: stage, path: name) }
        }
        for (index, stage) in summary.stages.enumerated() where index < summary.stageGroups.count {
            for group in summary.stageGroups[index] { flatten(group, stage: stage.name, path: "") }
        }
        out.metric("sluice_stage_group_counter_total", .counter,
                   "A stage's nested counters (the plan's per-event counts), by group path (`events/NAME`).", grouped)
        // The inputs added up, unlabelled: their names (an hourly log each) are in --stats.
        out.metric("sluice_inputs", .gauge, "Inputs the run reads (files, stdin).", [([], summary.inputs.count)])
        out.metric("sluice_input_lines_total", .counter, "Lines read from the inputs.",
                   [([], summary.inputs.reduce(0) { $0 + Int($1.lines) })])
        out.metric("sluice_input_bytes_total", .counter, "Bytes read from the inputs (compressed bytes for gzip).",
                   [([], summary.inputs.reduce(0) { $0 + $1.bytes })])
        out.metric("sluice_input_errors_total", .counter, "Inputs that stopped early (a corrupt gzip, a read error).",
                   [([], summary.inputs.filter { $0.error != nil }.count)])
        if let reorder = summary.reorder {
            out.metric("sluice_reorder_held_lines", .gauge, "Lines the merge of several inputs holds in its reorder buffer (part of in_flight).",
                       [([], reorder.held)])
            out.metric("sluice_reorder_let_out_full_total", .counter, "Lines let out before their turn because the reorder buffer was full.",
                       [([], reorder.letOutFull)])
            out.metric("sluice_reorder_out_of_order_total", .counter, "Events let out behind a later one (later than the reorder window).",
                       [([], reorder.outOfOrder)])
        }
        if let order = summary.order, order.mode == .exact {
            out.metric("sluice_order_held_lines", .gauge, "Events exact order holds to sort (part of in_flight).", [([], order.held)])
            out.metric("sluice_order_spilled_runs_total", .counter, "Sorted runs exact order spilled to disk.", [([], order.spilledRuns)])
            out.metric("sluice_order_spilled_bytes_total", .counter, "Bytes of the sorted runs exact order spilled to disk (gzip).",
                       [([], order.spilledBytes)])
            out.metric("sluice_order_pending_lines", .gauge, "Events left pending in the --state file for the next run to order.",
                       [([], order.pending)])
        }
        out.metric("sluice_run_elapsed_seconds", .gauge, "Seconds since the run started.", [([], summary.elapsedSeconds)])
        out.metric("sluice_run_finished", .gauge, "1 once the run has ended (then sluice_run_exit_code is set), 0 while it runs.",
                   [([], outcome == nil ? 0 : 1)])
        if let outcome {
            out.metric("sluice_run_exit_code", .gauge, "The run's exit status.", [([], Int(outcome.exitStatus))])
        }
        if let process = summary.process {
            out.metric("sluice_run_start_timestamp_seconds", .gauge, "When the run started (Unix time).", [([], process.startedAt)])
            if let ended = process.endedAt {
                out.metric("sluice_run_end_timestamp_seconds", .gauge, "When the run ended (Unix time).", [([], ended)])
            }
            if let last = process.lastSuccessAt {
                out.metric("sluice_last_success_timestamp_seconds", .gauge,
                           "When the last run that exited 0 ended (Unix time), carried from run to run in this file.", [([], last)])
            }
        }
        return out.text
    }
}

/// Writes `--metrics FILE` every `--flush-interval` while the run goes on.
public final class MetricsFileReporter: RunReporter {
    public let path: String
    public let interval: Duration
    /// The run as a process (start, last success), put on every summary written.
    let process: RunProcess?

    public init(path: String, interval: Duration, process: RunProcess? = nil) {
        self.path = path
        self.interval = interval
        self.process = process
    }

    public func report(_ summary: RunSummary) throws {
        var summary = summary
        if summary.process == nil { summary.process = process }
        lock.lock()
        defer { lock.unlock() }
        guard !finished else { return }
        try AtomicFile.write(PrometheusTextfile.render(summary), to: path)
    }

    /// The last write, with the exit status; a report after it writes nothing.
    /// `atForcedExit`: from the signal thread of a process about to exit, which
    /// must not wait (for a write of the run's own, or for a FIFO's reader).
    public func finish(_ summary: RunSummary, exitStatus: Int32, atForcedExit: Bool = false,
                       stopWaiting: (() -> Bool)? = nil) throws(OutputError) {
        if atForcedExit {
            guard lock.lock(before: Date(timeIntervalSinceNow: 1)) else { return }
        } else {
            lock.lock()
        }
        defer { lock.unlock() }
        finished = true
        try AtomicFile.write(PrometheusTextfile.render(summary, outcome: .init(exitStatus: exitStatus)), to: path,
                             waitingForReader: !atForcedExit, stopWaiting: stopWaiting)
    }

    /// One write at a time (the run's thread, a forced exit's signal thread), through one temporary file.
    private let lock = NSLock()
    private var finished = false
}

/// `# HELP`, `# TYPE` and samples, in Prometheus's text format (version 0.0.4): the
/// `--metrics` textfile's and `sluice serve`'s `GET /metrics`.
public struct PrometheusExposition {
    public enum Kind: String { case counter, gauge }
    public private(set) var text = ""

    public init() {}

    public mutating func metric(_ name: String, _ kind: Kind, _ help: String, _ samples: [([(String, String)], Int)]) {
        metric(name, kind, help, samples.map { ($0.0, String($0.1)) })
    }

    public mutating func metric(_ name: String, _ kind: Kind, _ help: String, _ samples: [([(String, String)], Double)]) {
        metric(name, kind, help, samples.map { ($0.0, format3($0.1)) })
    }

    private mutating func metric(_ name: String, _ kind: Kind, _ help: String, _ samples: [([(String, String)], String)]) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(kind.rawValue)\n"
        for (labels, value) in samples { sample(name, labels, value) }
    }

    /// A histogram of one series: `cumulative[i]` observations at most `bounds[i]`, `count` in all
    /// (the `+Inf` bucket), adding up to `sum`.
    public mutating func histogram(_ name: String, _ help: String, labels: [(String, String)] = [], bounds: [Double],
                                   cumulative: [Int], count: Int, sum: Double) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) histogram\n"
        for (bound, observed) in zip(bounds, cumulative) { sample(name + "_bucket", labels + [("le", "\(bound)")], "\(observed)") }
        sample(name + "_bucket", labels + [("le", "+Inf")], "\(count)")
        sample(name + "_sum", labels, "\(sum)")
        sample(name + "_count", labels, "\(count)")
    }

    private mutating func sample(_ name: String, _ labels: [(String, String)], _ value: String) {
        text += name
        if !labels.isEmpty {
            text += "{" + labels.map { "\($0.0)=\"\(escape($0.1))\"" }.joined(separator: ",") + "}"
        }
        text += " \(value)\n"
    }

    /// Label values escape `\`, `"` and line feed, the three the format requires.
    /// Done on Unicode scalars, not `Character`s: a `"` followed by a combining
    /// mark, or the `\r\n` pair, is one `Character` and would slip through a
    /// comparison with `"` or `\n`.
    private func escape(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == 0x5C || $0 == 0x22 || $0 == 0x0A }) else { return value }
        var result = String.UnicodeScalarView()
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": result.append(contentsOf: "\\\\".unicodeScalars)
            case "\"": result.append(contentsOf: "\\\"".unicodeScalars)
            case "\n": result.append(contentsOf: "\\n".unicodeScalars)
            default: result.append(scalar)
            }
        }
        return String(result)
    }
}
