import SluiceJSON

/// Why a `--stats` file cannot be merged.
public enum StatsFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file is not the JSON `sluice run --stats` writes: not JSON, a key
    /// missing or of the wrong kind, or a key this sluice does not know (a
    /// file from another version: merging it would drop counts without a word).
    case notStats(path: String, detail: String)
    /// The file is the `--stats` of `sluice send` (`"command": "send"`): what was
    /// sent to the providers, not a run's accounting.
    case sendStats(path: String)

    public var description: String {
        switch self {
        case let .notStats(path, detail): return "\(path) is not a sluice run --stats file: \(detail)"
        case let .sendStats(path):
            return "\(path) is the --stats file of sluice send (what was sent to the providers), not of sluice run: "
                + "stats merge adds up the --stats files of sluice run"
        }
    }
}

extension RunSummary {
    /// Reads back the JSON `json` wrote (`sluice run --stats FILE`), for `sluice stats merge`.
    ///
    /// Every key is checked: the totals against their per-reason counts, and
    /// `in_flight` and `balanced` against the totals, so a file edited by hand
    /// or cut short is refused rather than merged. A stage's numbers are its
    /// counters and its objects its nested groups, in the order they were written.
    public init(statsJSON bytes: [UInt8], path: String) throws(StatsFileError) {
        var shard: String?
        try self.init(statsJSON: bytes, path: path, shard: &shard)
    }

    /// As `init(statsJSON:path:)`, and `shard` is set to the shard the run was
    /// (`"shard"`: `sluice run --shard` or `SLUICE_SHARD`), nil for a run without one.
    public init(statsJSON bytes: [UInt8], path: String, shard: inout String?) throws(StatsFileError) {
        let document: JSONDocument
        do {
            document = try JSONDocument.parse(bytes)
        } catch {
            throw .notStats(path: path, detail: "not JSON (\(error.message))")
        }
        let reader = StatsJSONReader(document: document, path: path)
        if document.kind(0) == .object, let command = document.member("command"), document.string(command) == "send" {
            throw .sendStats(path: path)
        }
        self.init()
        var written = (rejected: 0, dropped: 0, inFlight: 0, balanced: false, notDelivered: 0)
        var seen = Set<String>()
        var runProcess = RunProcess(startedAt: 0)
        for (key, value) in try reader.members(of: 0, "the file") {
            seen.insert(key)
            switch key {
            case "lines_in": linesIn = try reader.int(value, key)
            case "emitted": emitted = try reader.int(value, key)
            case "merged": merged = try reader.int(value, key)
            case "rejected": written.rejected = try reader.int(value, key)
            case "dropped": written.dropped = try reader.int(value, key)
            case "carried_in": carriedIn = try reader.int(value, key)
            case "carried": carried = try reader.int(value, key)
            case "blank_lines": blankLines = try reader.int(value, key)
            case "in_flight": written.inFlight = try reader.int(value, key)
            case "balanced": written.balanced = try reader.bool(value, key)
            case "records_not_delivered": written.notDelivered = try reader.int(value, key)
            case "rejected_by_reason":
                for (name, count) in try reader.counts(value, key) { rejected[RejectReason(name), default: 0] += count }
            case "dropped_by_reason":
                for (name, count) in try reader.counts(value, key) { dropped[DropReason(name), default: 0] += count }
            case "stages":
                for (index, node) in try reader.elements(of: value, key).enumerated() {
                    let (name, counters, groups) = try reader.stage(node, "stages[\(index)]")
                    stages.append((name, counters))
                    stageGroups.append(groups)
                }
            case "destinations":
                for (index, node) in try reader.elements(of: value, key).enumerated() {
                    destinations.append(try reader.destination(node, "destinations[\(index)]"))
                }
            case "inputs":
                for (index, node) in try reader.elements(of: value, key).enumerated() {
                    inputs.append(try reader.input(node, "inputs[\(index)]"))
                }
            case "state":
                usesState = true
                state = try reader.state(value, key)
            case "reject_files": rejectFiles = try reader.int(value, key)
            case "reject_records_not_delivered": rejectRecordsNotDelivered = try reader.int(value, key)
            case "files":
                // Paths as they were on disk at the end of that run.
                filesRoot = ""
                for (index, node) in try reader.elements(of: value, key).enumerated() {
                    files.append(try reader.finishedFile(node, "files[\(index)]"))
                }
            case "files_not_listed": filesNotListed = try reader.int(value, key)
            case "reorder": reorder = try reader.reorder(value, key)
            case "order": order = try reader.order(value, key)
            case "stdout_closed_early": stdoutClosedEarly = try reader.bool(value, key)
            case "elapsed_seconds": elapsedSeconds = try reader.double(value, key)
            case "error": error = try reader.string(value, key)
            case "shard": shard = try reader.string(value, key)
            case "version": runProcess.version = try reader.string(value, key)
            case "exit_code": runProcess.exitCode = Int32(clamping: try reader.int(value, key))
            case "started_at": runProcess.startedAt = try reader.time(value, key)
            case "ended_at": runProcess.endedAt = try reader.time(value, key)
            case "last_success_at": runProcess.lastSuccessAt = try reader.time(value, key)
            default: throw reader.problem("unknown key '\(key)' (written by another version of sluice?)")
            }
        }
        let required = ["lines_in", "emitted", "merged", "rejected", "dropped", "carried_in", "carried", "blank_lines",
                        "in_flight", "balanced", "rejected_by_reason", "dropped_by_reason", "stages", "destinations",
                        "inputs", "reject_files", "stdout_closed_early", "elapsed_seconds"]
        if let missing = required.first(where: { !seen.contains($0) }) { throw reader.problem("no '\(missing)'") }
        if seen.contains("version") {
            guard seen.contains("started_at") else { throw reader.problem("no 'started_at'") }
            process = runProcess
        }
        if written.rejected != rejectedTotal {
            throw reader.problem("'rejected' is \(written.rejected) but rejected_by_reason adds up to \(rejectedTotal)")
        }
        if written.dropped != droppedTotal {
            throw reader.problem("'dropped' is \(written.dropped) but dropped_by_reason adds up to \(droppedTotal)")
        }
        if written.notDelivered != recordsNotDelivered {
            throw reader.problem("'records_not_delivered' is \(written.notDelivered) but the destinations' add up to \(recordsNotDelivered)")
        }
        if written.inFlight != inFlight || written.balanced != isBalanced {
            throw reader.problem("'in_flight' \(written.inFlight) and 'balanced' \(written.balanced) do not follow from its counts (in flight: \(inFlight))")
        }
    }
}

/// Reads the values of one `--stats` document by node index, naming the key
/// at fault in its errors.
private struct StatsJSONReader {
    let document: JSONDocument
    let path: String

    func problem(_ detail: String) -> StatsFileError { .notStats(path: path, detail: detail) }

    /// An RFC 3339 time (`started_at`), as seconds since the epoch.
    func time(_ node: Int, _ key: String) throws(StatsFileError) -> Double {
        let text = try string(node, key)
        guard let seconds = RunProcess.seconds(rfc3339: text) else { throw problem("'\(key)' is not an RFC 3339 time: \(text)") }
        return seconds
    }

    func members(of node: Int, _ what: String) throws(StatsFileError) -> [(key: String, value: Int)] {
        guard document.kind(node) == .object else { throw problem("\(what) is not an object") }
        var result: [(key: String, value: Int)] = []
        for member in document.members(of: node) {
            // (Keys are strings and never repeated: the parser refuses anything else.)
            result.append((document.string(member.key) ?? "", member.value))
        }
        return result
    }

    func elements(of node: Int, _ what: String) throws(StatsFileError) -> [Int] {
        guard document.kind(node) == .array else { throw problem("'\(what)' is not an array") }
        return document.elements(of: node)
    }

    /// A count: a non-negative integer.
    func int(_ node: Int, _ what: String) throws(StatsFileError) -> Int {
        guard document.kind(node) == .number, let value = Int(String(decoding: document.rawBytes(node), as: UTF8.self)), value >= 0 else {
            throw problem("'\(what)' is not a count")
        }
        return value
    }

    func double(_ node: Int, _ what: String) throws(StatsFileError) -> Double {
        guard document.kind(node) == .number, let value = Double(String(decoding: document.rawBytes(node), as: UTF8.self)) else {
            throw problem("'\(what)' is not a number")
        }
        return value
    }

    func bool(_ node: Int, _ what: String) throws(StatsFileError) -> Bool {
        switch document.kind(node) {
        case .true: return true
        case .false: return false
        default: throw problem("'\(what)' is not true or false")
        }
    }

    func string(_ node: Int, _ what: String) throws(StatsFileError) -> String {
        guard let value = document.string(node) else { throw problem("'\(what)' is not a string") }
        return value
    }

    /// An object of counts (`rejected_by_reason`), in its order.
    func counts(_ node: Int, _ what: String) throws(StatsFileError) -> [(name: String, value: Int)] {
        var result: [(name: String, value: Int)] = []
        for (key, value) in try members(of: node, "'\(what)'") { result.append((key, try int(value, "\(what).\(key)"))) }
        return result
    }

    func stage(_ node: Int, _ what: String) throws(StatsFileError)
        -> (name: String, counters: [(name: String, value: Int)], groups: [CounterGroup]) {
        var name: String?
        var counters: [(name: String, value: Int)] = []
        var groups: [CounterGroup] = []
        for (key, value) in try members(of: node, what) {
            if key == "stage" {
                name = try string(value, "\(what).stage")
            } else if document.kind(value) == .object {
                groups.append(try group(value, named: key, "\(what).\(key)"))
            } else {
                counters.append((key, try int(value, "\(what).\(key)")))
            }
        }
        guard let name else { throw problem("\(what) has no 'stage'") }
        return (name, counters, groups)
    }

    /// A stage's nested counters: numbers are counters, objects are groups.
    func group(_ node: Int, named name: String, _ what: String) throws(StatsFileError) -> CounterGroup {
        var group = CounterGroup(name: name, counters: [])
        for (key, value) in try members(of: node, what) {
            if document.kind(value) == .object {
                group.groups.append(try self.group(value, named: key, "\(what).\(key)"))
            } else {
                group.counters.append((key, try int(value, "\(what).\(key)")))
            }
        }
        return group
    }

    func destination(_ node: Int, _ what: String) throws(StatsFileError) -> RunSummary.DestinationCounts {
        let members = try members(of: node, what)
        func value(_ key: String) throws(StatsFileError) -> Int {
            guard let found = members.first(where: { $0.key == key }) else { throw problem("\(what) has no '\(key)'") }
            return found.value
        }
        var counts = RunSummary.DestinationCounts(name: try string(try value("name"), "\(what).name"),
                                                  type: try string(try value("type"), "\(what).type"))
        for (key, node) in members {
            let field = "\(what).\(key)"
            switch key {
            case "name", "type": break
            case "events": counts.events = try int(node, field)
            case "records": counts.records = try int(node, field)
            case "refused_by_reason": counts.refused = Dictionary(try self.counts(node, field), uniquingKeysWith: +)
            case "not_taken_by_reason": counts.notTaken = Dictionary(try self.counts(node, field), uniquingKeysWith: +)
            case "changes": counts.changes = try self.counts(node, field)
            case "files": counts.files = try int(node, field)
            case "records_not_delivered": counts.notDelivered = try int(node, field)
            case "stdout": counts.toStdout = try bool(node, field)
            case "uncompressed_bytes": counts.uncompressedBytes = try int(node, field)
            case "compressed_bytes": counts.compressedBytes = try int(node, field)
            case "outputs":
                for (index, output) in try elements(of: node, field).enumerated() {
                    counts.outputs.append(try self.output(output, "\(field)[\(index)]"))
                }
            default: throw problem("unknown key '\(field)' (written by another version of sluice?)")
            }
        }
        return counts
    }

    /// A destination's side output (`"outputs"`): its name, records, files and bytes.
    func output(_ node: Int, _ what: String) throws(StatsFileError) -> RunSummary.OutputCounts {
        var counts: RunSummary.OutputCounts?
        var numbers = (records: 0, files: 0, uncompressed: 0, compressed: 0, notDelivered: 0)
        for (key, value) in try members(of: node, what) {
            let field = "\(what).\(key)"
            switch key {
            case "name": counts = RunSummary.OutputCounts(name: try string(value, field))
            case "records": numbers.records = try int(value, field)
            case "files": numbers.files = try int(value, field)
            case "records_not_delivered": numbers.notDelivered = try int(value, field)
            case "uncompressed_bytes": numbers.uncompressed = try int(value, field)
            case "compressed_bytes": numbers.compressed = try int(value, field)
            default: throw problem("unknown key '\(field)' (written by another version of sluice?)")
            }
        }
        guard var counts else { throw problem("\(what) has no 'name'") }
        counts.records = numbers.records
        counts.files = numbers.files
        counts.notDelivered = numbers.notDelivered
        counts.uncompressedBytes = numbers.uncompressed
        counts.compressedBytes = numbers.compressed
        return counts
    }

    func input(_ node: Int, _ what: String) throws(StatsFileError) -> RunSummary.InputCounts {
        var counts: RunSummary.InputCounts?
        var lines = 0, bytes = 0
        var error: String?
        for (key, value) in try members(of: node, what) {
            switch key {
            case "path": counts = RunSummary.InputCounts(path: try string(value, "\(what).path"))
            case "lines": lines = try int(value, "\(what).lines")
            case "bytes": bytes = try int(value, "\(what).bytes")
            case "error": error = try string(value, "\(what).error")
            default: throw problem("unknown key '\(what).\(key)' (written by another version of sluice?)")
            }
        }
        guard var counts else { throw problem("\(what) has no 'path'") }
        counts.lines = Int64(lines)
        counts.bytes = bytes
        counts.error = error
        return counts
    }

    func reorder(_ node: Int, _ what: String) throws(StatsFileError) -> RunSummary.ReorderCounts {
        var counts = RunSummary.ReorderCounts(inputs: 0, windowMilliseconds: 0, bufferBytes: 0)
        for (key, value) in try members(of: node, what) {
            let field = "\(what).\(key)"
            switch key {
            case "inputs": counts.inputs = try int(value, field)
            case "window_ms": counts.windowMilliseconds = Int64(try int(value, field))
            case "buffer_bytes": counts.bufferBytes = try int(value, field)
            case "held": counts.held = try int(value, field)
            case "held_high_water": counts.heldHighWater = try int(value, field)
            case "held_bytes_high_water": counts.heldBytesHighWater = try int(value, field)
            case "let_out_full": counts.letOutFull = try int(value, field)
            case "out_of_order": counts.outOfOrder = try int(value, field)
            default: throw problem("unknown key '\(field)' (written by another version of sluice?)")
            }
        }
        return counts
    }

    func order(_ node: Int, _ what: String) throws(StatsFileError) -> RunSummary.OrderCounts {
        var counts = RunSummary.OrderCounts(mode: .asRead, inputs: 0, budgetBytes: 0)
        for (key, value) in try members(of: node, what) {
            let field = "\(what).\(key)"
            switch key {
            case "mode":
                let text = try string(value, field)
                guard let mode = RunSummary.OrderCounts.Mode(rawValue: text) else { throw problem("\(field) is \(text), not exact, window or as_read") }
                counts.mode = mode
            case "inputs": counts.inputs = try int(value, field)
            case "method":
                let text = try string(value, field)
                guard let method = RunSummary.OrderCounts.Method(rawValue: text) else { throw problem("\(field) is \(text), not window or sort") }
                counts.method = method
            case "window_ms": counts.windowMilliseconds = Int64(try int(value, field))
            case "surveyed_lines": counts.surveyedLines = try int(value, field)
            case "budget_bytes": counts.budgetBytes = try int(value, field)
            case "in_order_lines": counts.inOrderLines = try int(value, field)
            case "sorted_in_memory": counts.sortedInMemory = try int(value, field)
            case "spilled_runs": counts.spilledRuns = try int(value, field)
            case "spilled_lines": counts.spilledLines = try int(value, field)
            case "spilled_bytes": counts.spilledBytes = try int(value, field)
            case "run_merges": counts.runMerges = try int(value, field)
            case "held_bytes_high_water": counts.heldBytesHighWater = try int(value, field)
            case "held": counts.held = try int(value, field)
            case "carried_in": counts.carriedIn = try int(value, field)
            case "pending": counts.pending = try int(value, field)
            default: throw problem("unknown key '\(field)' (written by another version of sluice?)")
            }
        }
        return counts
    }

    func finishedFile(_ node: Int, _ what: String) throws(StatsFileError) -> FinishedFile {
        var file = FinishedFile(destination: "", path: "", records: 0, uncompressedBytes: 0, compressedBytes: 0)
        var seen = Set<String>()
        for (key, value) in try members(of: node, what) {
            let field = "\(what).\(key)"
            seen.insert(key)
            switch key {
            case "destination": file.destination = try string(value, field)
            case "output": file.output = try string(value, field)
            case "path": file.path = try string(value, field)
            case "records": file.records = try int(value, field)
            case "uncompressed_bytes": file.uncompressedBytes = try int(value, field)
            case "compressed_bytes": file.compressedBytes = try int(value, field)
            default: throw problem("unknown key '\(field)' (written by another version of sluice?)")
            }
        }
        for key in ["destination", "path", "records", "uncompressed_bytes", "compressed_bytes"] where !seen.contains(key) {
            throw problem("\(what) has no '\(key)'")
        }
        return file
    }

    func state(_ node: Int, _ what: String) throws(StatsFileError) -> RunSummary.StateCounts {
        var state = RunSummary.StateCounts()
        for (key, value) in try members(of: node, what) {
            let field = "\(what).\(key)"
            switch key {
            case "loaded_bytes": state.loadedBytes = try int(value, field)
            case "load_seconds": state.loadSeconds = try double(value, field)
            case "saved_bytes": state.savedBytes = try int(value, field)
            case "save_seconds": state.saveSeconds = try double(value, field)
            case "restored_devices": state.restoredDevices = try int(value, field)
            default: throw problem("unknown key '\(field)' (written by another version of sluice?)")
            }
        }
        return state
    }
}
