import Foundation
@testable import Sluice
import Testing

/// Reading `--stats` JSON back and merging shards' stats (`sluice stats merge`).
@Suite struct StatsMergeTests {
    /// A finished run's summary with something in every part of the shape.
    private func shard(lines: Int, devicesHighWater: Int, input: String, elapsed: Double, hits: [(String, Int)]) -> RunSummary {
        var summary = RunSummary()
        summary.linesIn = lines
        summary.carriedIn = 2
        summary.emitted = lines - 10
        summary.merged = 3
        summary.rejected = [.invalidJSON: 4, RejectReason("orphan_stop"): 1]
        summary.dropped = [DropReason("duplicate"): 2]
        summary.carried = 2
        summary.blankLines = 1
        summary.usesState = true
        summary.state = .init(loadedBytes: 100, loadSeconds: elapsed / 10, savedBytes: 120, saveSeconds: elapsed / 20)
        var archive = RunSummary.DestinationCounts(name: "archive", type: "ndjson")
        archive.events = lines - 10
        archive.records = lines - 9
        archive.refused = ["invalid_distinct_id": 1]
        archive.changes = [("renamed", 5), ("truncated", 1)]
        archive.files = 1
        archive.uncompressedBytes = 1000 * lines
        archive.compressedBytes = 90 * lines
        summary.destinations = [archive]
        summary.stages = [("session", [("started_first_seen", lines / 10), ("devices", lines / 10), ("devices_high_water", devicesHighWater)])]
        summary.stageGroups = [[CounterGroup(name: "hits_by_path", counters: [], groups: hits.map {
            CounterGroup(name: $0.0, counters: [("properties.*", $0.1)])
        })]]
        summary.inputs = [RunSummary.InputCounts(path: input, lines: Int64(lines + 1), bytes: 300 * lines)]
        summary.rejectFiles = 1
        summary.elapsedSeconds = elapsed
        return summary
    }

    private func read(_ summary: RunSummary, path: String = "s.json") throws -> RunSummary {
        try RunSummary(statsJSON: Array(summary.json.utf8), path: path)
    }

    /// `sluice serve`'s totals over its epochs: counts added, high-water marks the highest,
    /// and no list that would grow with every epoch (inputs, files), nor a process's times.
    @Test func epochTotalsAddCountsKeepTheHighestMarkAndDropTheLists() {
        let first = shard(lines: 100, devicesHighWater: 80, input: "segment-1.ndjson", elapsed: 1, hits: [("email", 3)])
        var second = shard(lines: 50, devicesHighWater: 30, input: "segment-2.ndjson", elapsed: 2, hits: [("email", 1)])
        second.process = RunProcess(startedAt: 1)
        let once = RunSummary.total(nil, adding: first)
        #expect(once.linesIn == 100 && once.inputs.isEmpty && once.files.isEmpty && once.process == nil)
        let total = RunSummary.total(once, adding: second)
        #expect(total.linesIn == 150)
        #expect(total.emitted == 130)
        #expect(total.carriedIn == 4 && total.carried == 4)
        #expect(total.rejected[.invalidJSON] == 8)
        #expect(total.destinations[0].records == 91 + 41)
        #expect(total.stages[0].counters.first { $0.name == "devices_high_water" }?.value == 80)
        #expect(total.inputs.isEmpty && total.files.isEmpty && total.process == nil)
        #expect(total.inFlight == 0)
    }

    @Test func statsJSONReadBackWritesTheSameText() throws {
        var summary = shard(lines: 1000, devicesHighWater: 80, input: "a.ndjson", elapsed: 1.25, hits: [("email", 3), ("phone", 1)])
        summary.inputs[0].error = "corrupt gzip data in a.ndjson at compressed byte 12: bad"
        summary.error = "corrupt gzip data in a.ndjson at compressed byte 12: bad"
        summary.destinations[0].toStdout = true
        #expect(try read(summary).json == summary.json)
        let plain = RunSummary()
        #expect(try read(plain).json == plain.json)
    }

    /// Why reading `text` as a stats file fails (nil if it does not).
    private func refusal(_ text: String) -> String? {
        do throws(StatsFileError) {
            _ = try RunSummary(statsJSON: Array(text.utf8), path: "s.json")
            return nil
        } catch {
            guard case let .notStats(path, detail) = error else { return nil }
            #expect(path == "s.json")
            return detail
        }
    }

    @Test(arguments: [
        ("[1]", "not JSON (the line is JSON but not an object)"),
        ("{\"lines_in\":1,\"stages\":{}}", "'stages' is not an array"),
        ("{\"lines_in\":1", "not JSON (unexpected end of input at byte 13)"),
        ("{\"lines_in\":-1}", "'lines_in' is not a count"),
        ("{\"lines_in\":1,\"lines_in\":1}", "not JSON (duplicate key at byte 14)"),
        ("{\"lines_in\":0}", "no 'emitted'"),
    ])
    func aFileThatIsNotStatsJSONIsRefusedSayingWhy(_ text: String, _ detail: String) {
        #expect(refusal(text) == detail)
    }

    @Test(arguments: [
        ("\"lines_in\":1000,", "\"lines_in\":1000,\"lines_out\":3,", "unknown key 'lines_out' (written by another version of sluice?)"),
        ("\"rejected\":5,", "\"rejected\":6,", "'rejected' is 6 but rejected_by_reason adds up to 5"),
        ("\"in_flight\":0,", "\"in_flight\":1,", "'in_flight' 1 and 'balanced' true do not follow from its counts (in flight: 0)"),
        ("\"balanced\":true,", "\"balanced\":false,", "'in_flight' 0 and 'balanced' false do not follow from its counts (in flight: 0)"),
        ("\"files\":1,", "\"files\":1,\"bytes_per_day\":2,", "unknown key 'destinations[0].bytes_per_day' (written by another version of sluice?)"),
    ])
    func aFileWhoseCountsDoNotHoldTogetherIsRefused(_ original: String, _ replacement: String, _ detail: String) {
        let text = shard(lines: 1000, devicesHighWater: 80, input: "a", elapsed: 1, hits: []).json
        #expect(text.contains(original))
        #expect(refusal(text) == nil)
        #expect(refusal(text.replacingOccurrences(of: original, with: replacement)) == detail)
    }

    @Test func countsAreSummedHighWaterMarksAndTimesTakeTheLargestAndInputsFollowOneAnother() throws {
        let a = shard(lines: 1000, devicesHighWater: 80, input: "a.ndjson", elapsed: 1.5, hits: [("email", 3)])
        let b = shard(lines: 500, devicesHighWater: 95, input: "b.ndjson", elapsed: 0.5, hits: [("phone", 2), ("email", 4)])
        let merged = try StatsMerge.merge([("a.json", try read(a)), ("b.json", try read(b))])
        #expect(merged.linesIn == 1500 && merged.emitted == 1480 && merged.merged == 6 && merged.blankLines == 2)
        #expect(merged.carriedIn == 4 && merged.carried == 4 && merged.isBalanced)
        #expect(merged.rejected == [.invalidJSON: 8, RejectReason("orphan_stop"): 2] && merged.dropped == [DropReason("duplicate"): 4])
        let archive = merged.destinations[0]
        #expect(archive.events == 1480 && archive.records == 1482 && archive.refused == ["invalid_distinct_id": 2])
        #expect(archive.changes.map { "\($0.name)=\($0.value)" } == ["renamed=10", "truncated=2"])
        #expect(archive.files == 2 && archive.uncompressedBytes == 1_500_000 && archive.compressedBytes == 135_000)
        #expect(merged.stages[0].counters.map { "\($0.name)=\($0.value)" } == ["started_first_seen=150", "devices=150", "devices_high_water=95"])
        let hits = merged.stageGroups[0][0].groups.map { "\($0.name)=\($0.counters[0].value)" }
        #expect(hits == ["email=7", "phone=2"])
        #expect(merged.inputs.map(\.path) == ["a.ndjson", "b.ndjson"])
        #expect(merged.rejectFiles == 2 && merged.elapsedSeconds == 1.5)
        #expect(merged.state.loadedBytes == 200 && merged.state.savedBytes == 240 && merged.state.loadSeconds == 0.15)
    }

    @Test func finishedFilesFollowOneAnotherAndReorderCountsAddUp() throws {
        var a = shard(lines: 1000, devicesHighWater: 80, input: "a.ndjson", elapsed: 1.5, hits: [("email", 3)])
        a.files = [FinishedFile(destination: "archive", path: "archive/a-0.ndjson.gz", records: 990, uncompressedBytes: 10, compressedBytes: 5)]
        a.filesRoot = "out-0"
        a.reorder = RunSummary.ReorderCounts(inputs: 2, windowMilliseconds: 300_000, bufferBytes: 1 << 28, held: 0, heldHighWater: 40,
                                             heldBytesHighWater: 9000, letOutFull: 1, outOfOrder: 2)
        var b = shard(lines: 500, devicesHighWater: 95, input: "b.ndjson", elapsed: 0.5, hits: [("phone", 2)])
        b.files = [FinishedFile(destination: "archive", path: "archive/b-1.ndjson.gz", records: 490, uncompressedBytes: 8, compressedBytes: 4)]
        b.filesRoot = "out-1"
        b.filesNotListed = 3
        b.reorder = RunSummary.ReorderCounts(inputs: 3, windowMilliseconds: 600_000, bufferBytes: 1 << 20, held: 0, heldHighWater: 70,
                                             heldBytesHighWater: 5000, letOutFull: 0, outOfOrder: 5)
        let merged = try StatsMerge.merge([("a.json", try read(a)), ("b.json", try read(b))])
        #expect(merged.files.map { $0.path(under: merged.filesRoot) } == ["out-0/archive/a-0.ndjson.gz", "out-1/archive/b-1.ndjson.gz"])
        #expect(merged.files.map(\.records) == [990, 490] && merged.filesNotListed == 3)
        let reorder = try #require(merged.reorder)
        #expect(reorder.inputs == 5 && reorder.windowMilliseconds == 600_000 && reorder.bufferBytes == 1 << 28)
        #expect(reorder.heldHighWater == 70 && reorder.heldBytesHighWater == 9000 && reorder.letOutFull == 1 && reorder.outOfOrder == 7)
        #expect(try read(merged).json == merged.json)
    }

    @Test func aShardsErrorIsKeptWithItsFileAndReportedAsAProblem() throws {
        var failed = shard(lines: 10, devicesHighWater: 1, input: "b", elapsed: 1, hits: [])
        failed.error = "write failed on out/archive/x.part: No space left on device"
        let shards = [("a.json", shard(lines: 10, devicesHighWater: 1, input: "a", elapsed: 1, hits: [])), ("b.json", failed)]
        #expect(try StatsMerge.merge(shards).error == "b.json: write failed on out/archive/x.part: No space left on device")
        #expect(StatsMerge.problems(shards).map(\.description) == ["b.json: the run stopped on an error: write failed on out/archive/x.part: No space left on device"])
    }

    @Test func aShardWhoseLinesDoNotAddUpIsNamedWithItsNumbers() {
        var open = shard(lines: 100, devicesHighWater: 1, input: "b", elapsed: 1, hits: [])
        open.emitted -= 3
        let problems = StatsMerge.problems([("a.json", shard(lines: 10, devicesHighWater: 1, input: "a", elapsed: 1, hits: [])), ("b.json", open)])
        #expect(problems.map(\.description) == [
            "b.json: not balanced: lines_in 100 + carried_in 2 = 102, but emitted 87 + merged 3 + rejected 5 + dropped 2 + carried 2 = 99 (3 in flight)",
        ])
    }

    @Test func statsOfAnotherPipelineAreNotMerged() throws {
        let a = shard(lines: 10, devicesHighWater: 1, input: "a", elapsed: 1, hits: [])
        var otherStages = a
        otherStages.stages = [("timed", [])]
        otherStages.stageGroups = [[]]
        #expect(throws: StatsMergeError.differentPipelines(detail: "a.json has the stages [session], b.json [timed]")) {
            try StatsMerge.merge([("a.json", a), ("b.json", otherStages)])
        }
        var otherDestinations = a
        otherDestinations.destinations[0].type = "segment"
        #expect(throws: StatsMergeError.differentPipelines(detail: "a.json has the destinations [archive (ndjson)], b.json [archive (segment)]")) {
            try StatsMerge.merge([("a.json", a), ("b.json", otherDestinations)])
        }
    }
}
