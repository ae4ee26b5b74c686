import SluiceJSON

/// The accounting of a run: every non-blank input line ends in exactly one of
/// emitted, merged, rejected or dropped, so
/// `linesIn == emitted + merged + rejected + dropped` once the run has finished.
///
/// With `--state`, a line a stage still holds at the end (an open timer's
/// start) is `carried` to the state file instead of being let out, and the
/// next run counts it `carriedIn` and settles it like its own lines, so every
/// run balances as `linesIn + carriedIn == emitted + merged + rejected + dropped + carried`
/// and over a series of runs each line is settled exactly once.
public struct RunSummary: Sendable {
    public typealias InputCounts = Sluice.InputCounts
    public typealias ReorderCounts = Sluice.ReorderCounts
    public typealias OrderCounts = Sluice.OrderCounts

    public typealias DestinationCounts = Sluice.DestinationCounts
    public typealias OutputCounts = Sluice.OutputCounts


    public var linesIn = 0
    /// Lines an earlier run carried to the state file, restored at the start (`--state`).
    public var carriedIn = 0
    /// Lines the stages still held at the end, saved to the state file (`--state`).
    public var carried = 0
    /// Whether the run kept its state in a file (`--state`): the summary line then says what was carried.
    public var usesState = false
    /// The state file read at the start and written at the end (`--state`): sizes and times.
    public var state = StateCounts()

    public struct StateCounts: Sendable {
        public var loadedBytes = 0
        public var loadSeconds = 0.0
        public var savedBytes = 0
        public var saveSeconds = 0.0
        /// Devices the destinations' memories got back from the state file (`DeviceMemory`).
        public var restoredDevices = 0
    }
    /// Empty (or whitespace-only) lines: skipped, not counted in `linesIn`.
    public var blankLines = 0
    public var emitted = 0
    public var merged = 0
    public var rejected: [RejectReason: Int] = [:]
    public var dropped: [DropReason: Int] = [:]
    public var destinations: [DestinationCounts] = []
    /// Each stage's own counters, in pipeline order.
    public var stages: [(name: String, counters: [(name: String, value: Int)])] = []
    /// Each stage's nested counters (`Stage.counterGroups`), aligned with `stages`.
    public var stageGroups: [[CounterGroup]] = []
    public var inputs: [InputCounts] = []
    /// The merge of several inputs in event time, through the reorder buffer;
    /// nil when the inputs were read one after another.
    public var reorder: ReorderCounts?

    /// How the inputs were put in order (`--order`): exact (sorted, and what spilled), a window, or as read.
    public var order: OrderCounts?

    /// Rejects files completed and renamed.
    public var rejectFiles = 0
    /// Reject records that never reached a finished rejects file (a write, fsync or rename failed).
    public var rejectRecordsNotDelivered = 0
    /// The files finished (renamed), paths relative to `filesRoot` (`FinishedFile`),
    /// up to `FinishedFileList.maxListed` per output; `filesNotListed` counts the rest.
    public var files: [FinishedFile] = []
    public var filesNotListed = 0
    /// Where the files are when the run ends: `--out`, or the `--staging`
    /// directory of a run that did not move them into place.
    public var filesRoot = "out"
    /// The size of the inputs when all are regular files (progress, ETA); nil for pipes.
    public var inputBytesTotal: Int?
    /// Whether a reader closed stdout early (`| head`): input stopped there.
    public var stdoutClosedEarly = false
    public var elapsedSeconds = 0.0
    /// The run as a process (`sluice run`'s version, times, exit status); nil in a merge of shards.
    public var process: RunProcess?
    /// The error that stopped the run or failed an input, if any (the counts
    /// are of what was processed; a destination that failed to write stops at its error).
    public var error: String?

    public var rejectedTotal: Int { rejected.values.reduce(0, +) }
    public var droppedTotal: Int { dropped.values.reduce(0, +) }
    /// Lines read whose fate is not settled yet (held by a stage); 0 after a finished run.
    public var inFlight: Int { linesIn + carriedIn - emitted - merged - rejectedTotal - droppedTotal - carried }
    /// Records handed to a destination's files that never reached a finished
    /// file (each destination's and side output's `records_not_delivered`).
    public var recordsNotDelivered: Int {
        destinations.reduce(0) { $0 + $1.notDelivered + $1.outputs.reduce(0) { $0 + $1.notDelivered } }
    }
    /// Every line settled, and every record it became in a finished file (a reject record too).
    public var isBalanced: Bool { inFlight == 0 && recordsNotDelivered == 0 && rejectRecordsNotDelivered == 0 }

    /// One line for stderr at the end of a run (the logger adds `sluice: `).
    public var summaryLine: String {
        var parts = ["\(linesIn) lines in: \(emitted) emitted, \(merged) merged, \(rejectedTotal) rejected, \(droppedTotal) dropped"]
        if usesState { parts[0] += ", \(carried) carried to the state (\(carriedIn) carried in)" }
        if blankLines > 0 { parts.append("\(blankLines) blank skipped") }
        if recordsNotDelivered > 0 { parts.append("\(recordsNotDelivered) records not delivered (not in a finished file)") }
        if rejectRecordsNotDelivered > 0 {
            parts.append("\(rejectRecordsNotDelivered) reject records not delivered (not in a finished rejects file)")
        }
        func files(_ count: Int) -> String { "\(count) file\(count == 1 ? "" : "s")" }
        let outputs = destinations.map { destination in
            let sides = destination.outputs.filter { $0.records > 0 || $0.files > 0 }.map { "\($0.name) \($0.records) in \(files($0.files))" }
            return (destination.toStdout ? "\(destination.name) \(destination.records) records to stdout"
                : "\(destination.name) \(destination.records) records in \(files(destination.files))")
                + Self.refusals(destination.refused)
                + (sides.isEmpty ? "" : " (" + sides.joined(separator: ", ") + ")")
        }
        if !outputs.isEmpty { parts.append(outputs.joined(separator: ", ")) }
        if let order, order.mode == .exact {
            var text = "exact order"
            if order.method == .window {
                text += ", merged through a \(order.windowMilliseconds / 1000)s window"
            } else if order.spilledRuns > 0 {
                text += ", \(order.spilledRuns) sorted run\(order.spilledRuns == 1 ? "" : "s") spilled (\(order.spilledLines) lines, \(order.spilledBytes) bytes)"
            } else {
                text += ", sorted in memory"
            }
            if usesState && (order.pending > 0 || order.carriedIn > 0) {
                text += ", \(order.pending) left pending in the state (\(order.carriedIn) pending in)"
            }
            parts.append(text)
        }
        if elapsedSeconds > 0 {
            parts.append(String(format3(elapsedSeconds)) + "s, \(Int(Double(linesIn) / max(elapsedSeconds, 1e-9))) lines/s")
        }
        return parts.joined(separator: "; ")
    }

    /// A destination's refused events for the summary line, with the reason most of them had
    /// (` [4 refused: missing_app_instance_id]`, `…, +2 other reasons`); nothing when none was.
    static func refusals(_ refused: [String: Int]) -> String {
        let total = refused.values.reduce(0, +)
        guard total > 0, let top = refused.max(by: { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }) else {
            return ""
        }
        let others = refused.count - 1
        let more = others == 0 ? "" : " \(top.value), +\(others) other reason\(others == 1 ? "" : "s")"
        return " [\(total) refused: \(top.key)\(more)]"
    }

    /// The accounting as JSON (`--stats FILE`), keys in a fixed order.
    public var json: String {
        var out = JSONObjectWriter()
        if let process {
            out.field("version", process.version)
            if let exitCode = process.exitCode { out.field("exit_code", Int(exitCode)) }
            out.field("started_at", RunProcess.rfc3339(process.startedAt))
            if let endedAt = process.endedAt { out.field("ended_at", RunProcess.rfc3339(endedAt)) }
            if let last = process.lastSuccessAt { out.field("last_success_at", RunProcess.rfc3339(last)) }
        }
        out.field("lines_in", linesIn)
        out.field("emitted", emitted)
        out.field("merged", merged)
        out.field("rejected", rejectedTotal)
        out.field("dropped", droppedTotal)
        out.field("carried_in", carriedIn)
        out.field("carried", carried)
        out.field("blank_lines", blankLines)
        out.field("in_flight", inFlight)
        out.field("balanced", isBalanced)
        if recordsNotDelivered > 0 { out.field("records_not_delivered", recordsNotDelivered) }
        out.object("rejected_by_reason", rejected.sorted { $0.key < $1.key }.map { ($0.key.rawValue, $0.value) })
        out.object("dropped_by_reason", dropped.sorted { $0.key < $1.key }.map { ($0.key.rawValue, $0.value) })
        var destinationsJSON: [String] = []
        for destination in destinations {
            var d = JSONObjectWriter()
            d.field("name", destination.name)
            d.field("type", destination.type)
            d.field("events", destination.events)
            d.field("records", destination.records)
            d.object("refused_by_reason", destination.refused.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
            d.object("not_taken_by_reason", destination.notTaken.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
            d.object("changes", destination.changes.map { ($0.name, $0.value) })
            d.field("files", destination.files)
            if destination.notDelivered > 0 { d.field("records_not_delivered", destination.notDelivered) }
            if destination.toStdout { d.field("stdout", true) }
            d.field("uncompressed_bytes", destination.uncompressedBytes)
            d.field("compressed_bytes", destination.compressedBytes)
            if !destination.outputs.isEmpty {
                d.raw("outputs", "[" + destination.outputs.map { output in
                    var o = JSONObjectWriter()
                    o.field("name", output.name)
                    o.field("records", output.records)
                    o.field("files", output.files)
                    if output.notDelivered > 0 { o.field("records_not_delivered", output.notDelivered) }
                    o.field("uncompressed_bytes", output.uncompressedBytes)
                    o.field("compressed_bytes", output.compressedBytes)
                    return o.text
                }.joined(separator: ",") + "]")
            }
            destinationsJSON.append(d.text)
        }
        var stagesJSON: [String] = []
        for (index, stage) in stages.enumerated() {
            var s = JSONObjectWriter()
            s.field("stage", stage.name)
            for counter in stage.counters { s.field(counter.name, counter.value) }
            if index < stageGroups.count {
                for group in stageGroups[index] { s.group(group) }
            }
            stagesJSON.append(s.text)
        }
        out.raw("stages", "[" + stagesJSON.joined(separator: ",") + "]")
        out.raw("destinations", "[" + destinationsJSON.joined(separator: ",") + "]")
        var inputsJSON: [String] = []
        for input in inputs {
            var i = JSONObjectWriter()
            i.field("path", input.path)
            i.field("lines", Int(input.lines))
            i.field("bytes", input.bytes)
            if let error = input.error { i.field("error", error) }
            inputsJSON.append(i.text)
        }
        out.raw("inputs", "[" + inputsJSON.joined(separator: ",") + "]")
        if let reorder {
            var r = JSONObjectWriter()
            r.field("inputs", reorder.inputs)
            r.field("window_ms", Int(reorder.windowMilliseconds))
            r.field("buffer_bytes", reorder.bufferBytes)
            r.field("held", reorder.held)
            r.field("held_high_water", reorder.heldHighWater)
            r.field("held_bytes_high_water", reorder.heldBytesHighWater)
            r.field("let_out_full", reorder.letOutFull)
            r.field("out_of_order", reorder.outOfOrder)
            out.raw("reorder", r.text)
        }
        if let order {
            var o = JSONObjectWriter()
            o.field("mode", order.mode.rawValue)
            o.field("inputs", order.inputs)
            if order.mode == .exact {
                o.field("method", order.method.rawValue)
                o.field("window_ms", Int(order.windowMilliseconds))
                o.field("surveyed_lines", order.surveyedLines)
                o.field("budget_bytes", order.budgetBytes)
                o.field("in_order_lines", order.inOrderLines)
                o.field("sorted_in_memory", order.sortedInMemory)
                o.field("spilled_runs", order.spilledRuns)
                o.field("spilled_lines", order.spilledLines)
                o.field("spilled_bytes", order.spilledBytes)
                o.field("run_merges", order.runMerges)
                o.field("held_bytes_high_water", order.heldBytesHighWater)
                o.field("held", order.held)
                o.field("carried_in", order.carriedIn)
                o.field("pending", order.pending)
            }
            out.raw("order", o.text)
        }
        if usesState {
            var s = JSONObjectWriter()
            s.field("loaded_bytes", state.loadedBytes)
            s.raw("load_seconds", format3(state.loadSeconds))
            s.field("saved_bytes", state.savedBytes)
            s.raw("save_seconds", format3(state.saveSeconds))
            s.field("restored_devices", state.restoredDevices)
            out.raw("state", s.text)
        }
        out.field("reject_files", rejectFiles)
        if rejectRecordsNotDelivered > 0 { out.field("reject_records_not_delivered", rejectRecordsNotDelivered) }
        var filesJSON: [String] = []
        for file in files {
            var f = JSONObjectWriter()
            f.field("destination", file.destination)
            if let output = file.output { f.field("output", output) }
            f.field("path", file.path(under: filesRoot))
            f.field("records", file.records)
            f.field("uncompressed_bytes", file.uncompressedBytes)
            f.field("compressed_bytes", file.compressedBytes)
            filesJSON.append(f.text)
        }
        out.raw("files", "[" + filesJSON.joined(separator: ",") + "]")
        if filesNotListed > 0 { out.field("files_not_listed", filesNotListed) }
        out.field("stdout_closed_early", stdoutClosedEarly)
        out.raw("elapsed_seconds", format3(elapsedSeconds))
        if let error { out.field("error", error) }
        return out.text
    }
}

extension RunSummary {
    /// Lines whose only taker was stdout, whose reader closed it first (`FanOut.absorbStdoutLoss`):
    /// emitted no more, dropped `stdout_closed`.
    mutating func dropStdoutLoss(_ lines: Int) {
        guard lines > 0 else { return }
        emitted -= lines
        dropped[.stdoutClosed, default: 0] += lines
    }
}
