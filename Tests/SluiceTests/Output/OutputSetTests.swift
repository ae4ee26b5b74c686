import Foundation
import Testing
@testable import Sluice
import SluiceTestSupport

/// The run's outputs as a set: which kind each destination gets, `--stdout`
/// checked against the pipeline, and hand-over, rotation and finishing for all.
@Suite struct OutputSetTests {
    private func configuration(_ destinations: String) throws -> PipelineConfiguration {
        try PipelineConfiguration.load(yaml: "version: 1\ndestinations:\n" + destinations, file: "p.yaml")
    }

    private func record(_ index: Int) -> [UInt8] { Array("{\"i\":\(index)}\n".utf8) }

    private func append(_ output: DestinationOutput, _ index: Int, at stamp: String = "2026-11-20T08:00:00Z") throws {
        _ = try output.append(time: EventTime.parseISO8601(stamp)!) { $0.append(contentsOf: record(index)); return 1 }
    }

    @Test func inMemoryEveryOutputIsAMemoryOutputAndNoDirectoryIsMade() throws {
        let directory = TemporaryDirectory()
        var options = RunOptions()
        options.memoryOutputs = MemoryOutputs()
        options.outDirectory = directory.file("out")
        let outputs = try OutputSet(configuration: configuration("  a: {type: ndjson}\n  b: {type: ndjson, path: \"-\"}\n"),
                                    options: options, openParts: OpenPartFiles())
        #expect(outputs.destinations.map(\.name) == ["a", "b"])
        #expect(outputs.destinations.allSatisfy { $0.sink is MemorySink } && outputs.rejects.sink is MemorySink)
        #expect(outputs.stdout == nil && outputs.stdoutIndex == nil)
        try outputs.finish()
        #expect(!FileManager.default.fileExists(atPath: directory.file("out")))
    }

    @Test func pendingRecordsReachMemoryAtTheHandOverInOrder() throws {
        let memory = MemoryOutputs()
        var options = RunOptions()
        options.memoryOutputs = memory
        let outputs = try OutputSet(configuration: configuration("  a: {type: ndjson}\n"), options: options, openParts: OpenPartFiles())
        for index in 0..<3 { try append(outputs.destinations[0], index, at: index == 1 ? "2026-11-20T09:00:00Z" : "2026-11-20T08:00:00Z") }
        #expect(memory.bytes("a").isEmpty)
        try outputs.handOver()
        #expect(memory.bytes("a") == (0..<3).flatMap(record))
        try outputs.finish()
        #expect(outputs.report(destination: 0).uncompressedBytes == 3 * record(0).count)
    }

    @Test func theStdoutOptionPicksItsDestinationAndTheOthersWriteFiles() throws {
        let directory = TemporaryDirectory()
        var options = RunOptions()
        options.outDirectory = directory.file("out")
        options.stdoutDestination = "b"
        let outputs = try OutputSet(configuration: configuration("  a: {type: ndjson}\n  b: {type: ndjson}\n"),
                                    options: options, openParts: OpenPartFiles())
        #expect(outputs.stdoutIndex == 1 && outputs.stdout === outputs.destinations[1].sink)
        #expect(outputs.destinations[0].sink is FileSink && outputs.rejects.sink is FileSink)
        try outputs.finish()
    }

    @Test func aStdoutOptionNamingNoDestinationOrASecondStdoutIsAUsageError() throws {
        var options = RunOptions()
        options.memoryOutputs = MemoryOutputs()
        options.stdoutDestination = "missing"
        #expect(throws: UsageError.self) {
            try OutputSet(configuration: configuration("  a: {type: ndjson}\n"), options: options, openParts: OpenPartFiles())
        }
        options.stdoutDestination = "a"
        #expect(throws: UsageError.self) {
            try OutputSet(configuration: configuration("  a: {type: ndjson}\n  b: {type: ndjson, path: \"-\"}\n"),
                          options: options, openParts: OpenPartFiles())
        }
    }

    @Test func rotatingClosesEveryFileAndFinishingTwiceReportsTheSame() throws {
        let directory = TemporaryDirectory()
        var options = RunOptions()
        options.outDirectory = directory.file("out")
        let outputs = try OutputSet(configuration: configuration("  a: {type: ndjson}\n"), options: options, openParts: OpenPartFiles())
        try append(outputs.destinations[0], 0)
        try append(outputs.rejects, 1)
        try outputs.rotateAll()
        try append(outputs.destinations[0], 2)
        try outputs.finish()
        try outputs.finish()
        #expect(outputs.report(destination: 0).fileCount == 2 && outputs.rejectsReport.fileCount == 1)
        #expect(directory.files() == ["out/a/2026-11-20/a-08-0000.ndjson.gz", "out/a/2026-11-20/a-08-0001.ndjson.gz",
                                      "out/rejects/2026-11-20/rejects-0000.ndjson.gz"])
        #expect(TestGzip.decompressFile(directory.file("out/a/2026-11-20/a-08-0000.ndjson.gz")) == record(0))
        #expect(TestGzip.decompressFile(directory.file("out/a/2026-11-20/a-08-0001.ndjson.gz")) == record(2))
    }
}
