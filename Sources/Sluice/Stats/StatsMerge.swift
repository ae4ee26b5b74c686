/// `sluice stats merge`: the `--stats` of several shard runs (one process per
/// partition of the devices) as the stats of one run.
///
/// - Counts are summed: lines, per reason, per destination (events, records,
///   refusals, changes, files, bytes), per stage counter, the state's bytes.
/// - A stage counter named `high_water` or `…_high_water` is a peak in one
///   process, not a count: the merge keeps the largest. So do
///   `elapsed_seconds` and the state's `load_seconds` and `save_seconds`
///   (shards run side by side: the job took at least as long as its slowest;
///   `stats merge --elapsed-seconds` gives the job's own wall time instead).
/// - `inputs` and `files` are the shards' lists one after another, in the files' order;
///   `reorder` (shards that merged several inputs) sums its counts, its window,
///   bound and high-water marks take the largest;
///   `order` sums its counts, its budget and high-water mark take the largest;
///   `stdout_closed_early` is true if it is in any shard.
/// - A shard's `error` is kept, prefixed with its file.
///
/// The shards must come from one pipeline: the same stages in the same order
/// and the same destinations, and each must be there once (`checkDistinct`:
/// no shard twice, no file twice); otherwise nothing is merged.
public enum StatsMerge {
    /// Why the merged stats do not describe a clean job (exit 65), each naming its file.
    public struct Problem: Sendable, CustomStringConvertible {
        public var path: String
        public var detail: String
        public var description: String { "\(path): \(detail)" }
    }

    /// The stats of one run made of `shards`; throws when they are not of one pipeline.
    public static func merge(_ shards: [(path: String, summary: RunSummary)]) throws(StatsMergeError) -> RunSummary {
        guard let first = shards.first else { return RunSummary() }
        var merged = first.summary
        // Times and exit codes are each shard's process's, not the job's.
        merged.process = nil
        merged.error = first.summary.error.map { "\(first.path): \($0)" }
        for (path, shard) in shards.dropFirst() {
            try checkSamePipeline(shard, path: path, as: first.summary, firstPath: first.path)
            merged.add(shard, path: path)
        }
        return merged
    }

    /// One `--stats` file as read: its shard (`"shard"`, nil for a run without
    /// `--shard`) and its bytes.
    public struct File: Sendable {
        public var path: String
        public var shard: String?
        public var bytes: [UInt8]

        public init(path: String, shard: String?, bytes: [UInt8]) {
            self.path = path
            self.shard = shard
            self.bytes = bytes
        }
    }

    /// Refuses stats that would count one run twice: two files of the same
    /// shard (a retried attempt's and the retry's, or one copied), or the same
    /// stats twice (byte for byte: one file given twice, or a copy of it).
    public static func checkDistinct(_ files: [File]) throws(StatsMergeError) {
        var byShard: [String: String] = [:]
        var byBytes: [[UInt8]: String] = [:]
        for file in files {
            if let first = byBytes[file.bytes] { throw .sameStats(first: first, second: file.path) }
            byBytes[file.bytes] = file.path
            if let shard = file.shard {
                if let first = byShard[shard] { throw .sameShard(shard: shard, first: first, second: file.path) }
                byShard[shard] = file.path
            }
        }
    }

    /// What is wrong with a shard's own stats: lines not all accounted for (a
    /// run that stopped on an error), or the error it stopped on.
    public static func problems(_ shards: [(path: String, summary: RunSummary)]) -> [Problem] {
        var problems: [Problem] = []
        for (path, shard) in shards {
            if shard.inFlight != 0 {
                problems.append(Problem(path: path, detail: "not balanced: lines_in \(shard.linesIn) + carried_in \(shard.carriedIn) = "
                    + "\(shard.linesIn + shard.carriedIn), but emitted \(shard.emitted) + merged \(shard.merged) + rejected \(shard.rejectedTotal) "
                    + "+ dropped \(shard.droppedTotal) + carried \(shard.carried) = \(shard.linesIn + shard.carriedIn - shard.inFlight) "
                    + "(\(shard.inFlight) in flight)"))
            }
            if shard.recordsNotDelivered > 0 || shard.rejectRecordsNotDelivered > 0 {
                problems.append(Problem(path: path, detail: "not balanced: \(shard.recordsNotDelivered) records and "
                    + "\(shard.rejectRecordsNotDelivered) reject records did not reach a finished file"))
            }
            if let error = shard.error { problems.append(Problem(path: path, detail: "the run stopped on an error: \(error)")) }
        }
        return problems
    }

    private static func checkSamePipeline(_ shard: RunSummary, path: String, as first: RunSummary, firstPath: String) throws(StatsMergeError) {
        let stages = shard.stages.map(\.name), firstStages = first.stages.map(\.name)
        if stages != firstStages {
            throw .differentPipelines(detail: "\(firstPath) has the stages [\(firstStages.joined(separator: ", "))], "
                + "\(path) [\(stages.joined(separator: ", "))]")
        }
        func described(_ destination: RunSummary.DestinationCounts) -> String {
            "\(destination.name) (\(destination.type)\(destination.toStdout ? ", stdout" : "")"
                + destination.outputs.map { ", \($0.name)" }.joined() + ")"
        }
        let destinations = shard.destinations.map(described)
        let firstDestinations = first.destinations.map(described)
        if destinations != firstDestinations {
            throw .differentPipelines(detail: "\(firstPath) has the destinations [\(firstDestinations.joined(separator: ", "))], "
                + "\(path) [\(destinations.joined(separator: ", "))]")
        }
    }

    /// Whether a stage counter is a peak (kept as the largest), not a count (summed).
    static func isHighWater(_ name: String) -> Bool {
        name == "high_water" || name.hasSuffix("_high_water")
    }
}

/// Shards that cannot be merged into one run's stats.
public enum StatsMergeError: Error, Sendable, Equatable, CustomStringConvertible {
    case differentPipelines(detail: String)
    /// Two files name the same shard (`"shard"`).
    case sameShard(shard: String, first: String, second: String)
    /// Two files hold the same stats, byte for byte.
    case sameStats(first: String, second: String)

    public var description: String {
        switch self {
        case let .differentPipelines(detail):
            return "the stats are not of one pipeline, so they do not add up to one run: \(detail)"
        case let .sameShard(shard, first, second):
            return "\(first) and \(second) are both the stats of shard \(shard): merged, its lines would count twice; "
                + "give each shard's --stats once"
        case let .sameStats(first, second):
            return first == second
                ? "\(first) is given twice: merged, its lines would count twice"
                : "\(first) and \(second) are the same stats (the same bytes): merged, their lines would count twice"
        }
    }
}

extension RunSummary {
    /// The stats of a series of runs of one pipeline in one process (`sluice
    /// serve`'s epochs): `next` added to `total` (nil for the first) as
    /// `stats merge` adds shards. The lists of inputs and files are left out
    /// (they would grow with every run), and so are a process's times and exit.
    public static func total(_ total: RunSummary?, adding next: RunSummary) -> RunSummary {
        var sum = next
        if var earlier = total {
            earlier.add(next, path: "")
            sum = earlier
        }
        sum.inputs = []
        sum.files = []
        sum.process = nil
        sum.error = nil
        return sum
    }

    /// Adds a shard of the same pipeline (`StatsMerge.merge` checked it).
    fileprivate mutating func add(_ shard: RunSummary, path: String) {
        linesIn += shard.linesIn
        carriedIn += shard.carriedIn
        carried += shard.carried
        blankLines += shard.blankLines
        emitted += shard.emitted
        merged += shard.merged
        rejected.merge(shard.rejected, uniquingKeysWith: +)
        dropped.merge(shard.dropped, uniquingKeysWith: +)
        for index in destinations.indices { destinations[index].add(shard.destinations[index]) }
        for index in stages.indices {
            stages[index].counters = Self.adding(stages[index].counters, shard.stages[index].counters)
        }
        for index in stageGroups.indices where index < shard.stageGroups.count {
            stageGroups[index] = Self.adding(stageGroups[index], shard.stageGroups[index])
        }
        inputs += shard.inputs
        rejectFiles += shard.rejectFiles
        rejectRecordsNotDelivered += shard.rejectRecordsNotDelivered
        files += shard.files
        filesNotListed += shard.filesNotListed
        if let other = shard.reorder {
            var counts = reorder ?? other
            if reorder != nil {
                counts.inputs += other.inputs
                counts.windowMilliseconds = max(counts.windowMilliseconds, other.windowMilliseconds)
                counts.bufferBytes = max(counts.bufferBytes, other.bufferBytes)
                counts.held += other.held
                counts.heldHighWater = max(counts.heldHighWater, other.heldHighWater)
                counts.heldBytesHighWater = max(counts.heldBytesHighWater, other.heldBytesHighWater)
                counts.letOutFull += other.letOutFull
                counts.outOfOrder += other.outOfOrder
            }
            reorder = counts
        }
        if let other = shard.order {
            var counts = order ?? other
            if order != nil {
                // Shards ordered alike; one that fell back to another mode shows in its own stats.
                counts.inputs += other.inputs
                // A shard that sorted makes the job's method sort; its window the widest.
                if other.method == .sort { counts.method = .sort }
                counts.windowMilliseconds = max(counts.windowMilliseconds, other.windowMilliseconds)
                counts.surveyedLines += other.surveyedLines
                counts.budgetBytes = max(counts.budgetBytes, other.budgetBytes)
                counts.inOrderLines += other.inOrderLines
                counts.sortedInMemory += other.sortedInMemory
                counts.spilledRuns += other.spilledRuns
                counts.spilledLines += other.spilledLines
                counts.spilledBytes += other.spilledBytes
                counts.runMerges += other.runMerges
                counts.heldBytesHighWater = max(counts.heldBytesHighWater, other.heldBytesHighWater)
                counts.held += other.held
                counts.carriedIn += other.carriedIn
                counts.pending += other.pending
            }
            order = counts
        }
        stdoutClosedEarly = stdoutClosedEarly || shard.stdoutClosedEarly
        elapsedSeconds = max(elapsedSeconds, shard.elapsedSeconds)
        if shard.usesState {
            usesState = true
            state.loadedBytes += shard.state.loadedBytes
            state.savedBytes += shard.state.savedBytes
            state.restoredDevices += shard.state.restoredDevices
            state.loadSeconds = max(state.loadSeconds, shard.state.loadSeconds)
            state.saveSeconds = max(state.saveSeconds, shard.state.saveSeconds)
        }
        if let shardError = shard.error {
            let entry = "\(path): \(shardError)"
            error = error.map { $0 + "; " + entry } ?? entry
        }
    }

    /// Counters by name, in first-seen order: summed, or the larger for a high-water mark.
    fileprivate static func adding(_ counters: [(name: String, value: Int)], _ more: [(name: String, value: Int)]) -> [(name: String, value: Int)] {
        var result = counters
        for counter in more {
            if let index = result.firstIndex(where: { $0.name == counter.name }) {
                result[index].value = StatsMerge.isHighWater(counter.name)
                    ? max(result[index].value, counter.value) : result[index].value + counter.value
            } else {
                result.append(counter)
            }
        }
        return result
    }

    /// Groups by name, in first-seen order, their counters and nested groups added alike.
    fileprivate static func adding(_ groups: [CounterGroup], _ more: [CounterGroup]) -> [CounterGroup] {
        var result = groups
        for group in more {
            if let index = result.firstIndex(where: { $0.name == group.name }) {
                result[index].counters = adding(result[index].counters, group.counters)
                result[index].groups = adding(result[index].groups, group.groups)
            } else {
                result.append(group)
            }
        }
        return result
    }
}

extension RunSummary.DestinationCounts {
    fileprivate mutating func add(_ shard: Self) {
        events += shard.events
        records += shard.records
        refused.merge(shard.refused, uniquingKeysWith: +)
        notTaken.merge(shard.notTaken, uniquingKeysWith: +)
        changes = RunSummary.adding(changes, shard.changes)
        files += shard.files
        notDelivered += shard.notDelivered
        uncompressedBytes += shard.uncompressedBytes
        compressedBytes += shard.compressedBytes
        for index in outputs.indices {
            outputs[index].records += shard.outputs[index].records
            outputs[index].files += shard.outputs[index].files
            outputs[index].notDelivered += shard.outputs[index].notDelivered
            outputs[index].uncompressedBytes += shard.outputs[index].uncompressedBytes
            outputs[index].compressedBytes += shard.outputs[index].compressedBytes
        }
    }
}
