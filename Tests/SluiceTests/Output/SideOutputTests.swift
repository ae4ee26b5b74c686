import Foundation
import Testing
@testable import Sluice
import SluiceJSON
import SluiceTestSupport

/// A destination's side outputs as outputs: files of their own, rotated by
/// their own limits, finished and listed with the others.
@Suite struct SideOutputTests {
    private func records(_ count: Int) -> ByteBuffer {
        let buffer = ByteBuffer()
        for index in 0..<count { buffer.append(contentsOf: Array("{\"i\":\(index)}\n".utf8)) }
        return buffer
    }

    @Test func recordsThatWouldTakeAFilePastItsPerFileLimitStartTheNextFile() throws {
        let directory = TemporaryDirectory()
        let worker = CompressionWorker(name: "amplitude", output: "groups", root: directory.path, level: 6, maxAge: nil,
                                       flushInterval: .seconds(60), finisher: FileFinisher(threads: 1))
        let output = DestinationOutput(name: "amplitude", sink: FileSink(template: try PathTemplate("g/{seq}.ndjson.gz"), worker: worker),
                                       rotation: RotationPolicy())
        let time = EventTime.parseISO8601("2026-11-20T08:00:00Z")!
        // 600 and 400 share a file (1000 of 1024); 30 more would pass the limit, and so on.
        for weight in [600, 400, 30, 1000, 1024] {
            _ = try output.append(time: time, now: nil, records: records(1), count: 1, weight: weight, limit: 1024)
        }
        #expect(try output.finish().fileCount == 4)
        let counts = directory.files().sorted().map { TestGzip.decompressFile(directory.file($0))!.filter { $0 == 0x0A }.count }
        #expect(counts == [2, 1, 1, 1])  // 600+400 | 30 | 1000 | 1024 (30+1000 would pass 1024)
        #expect(worker.finishedFiles.listed.allSatisfy { $0.destination == "amplitude" && $0.output == "groups" })
    }

    @Test func aRecordOverTheLimitAloneStillGetsAFileOfItsOwn() throws {
        let memory = MemoryOutputs()
        let output = DestinationOutput(name: "a", sink: MemorySink(name: "a.groups", memory: memory), rotation: RotationPolicy())
        let time = EventTime.parseISO8601("2026-11-20T08:00:00Z")!
        #expect(try output.append(time: time, now: nil, records: records(2), count: 2, weight: 5000, limit: 1024) == 2)
        try output.handOver()
        #expect(memory.records("a.groups").count == 2)
    }

    @Test func sideOutputsWriteFilesOfTheirOwnAlsoWhenTheirDestinationsEventsGoToStdout() throws {
        let directory = TemporaryDirectory()
        let configuration = try PipelineConfiguration.load(yaml: "version: 1\ndestinations:\n  mixpanel: {type: mixpanel, path: \"-\"}\n",
                                                           file: "p.yaml")
        var options = RunOptions()
        options.outDirectory = directory.file("out")
        let outputs = try OutputSet(configuration: configuration, options: options, openParts: OpenPartFiles())
        #expect(outputs.stdoutIndex == 0)
        #expect(outputs.sides[0].count == 2 && outputs.sides[0].allSatisfy { $0.sink is FileSink })
        let time = EventTime.parseISO8601("2026-11-20T08:00:00Z")!
        _ = try outputs.sides[0][0].append(time: time, now: nil, records: records(3), count: 3)
        try outputs.finish()
        #expect(directory.files() == ["out/mixpanel/profiles/2026-11-20/mixpanel-profiles-08-0000.ndjson.gz"])
        let listed = outputs.finishedFiles.listed
        #expect(listed.count == 1 && listed[0].output == "profiles" && listed[0].records == 3)
        #expect(outputs.report(destination: 0, side: 0).fileCount == 1 && outputs.report(destination: 0, side: 1).fileCount == 0)
    }

    @Test func sighupRotatesTheSideOutputsFilesWithTheRest() throws {
        let directory = TemporaryDirectory()
        let configuration = try PipelineConfiguration.load(yaml: "version: 1\ndestinations:\n  amplitude: {type: amplitude}\n", file: "p.yaml")
        var options = RunOptions()
        options.outDirectory = directory.file("out")
        let outputs = try OutputSet(configuration: configuration, options: options, openParts: OpenPartFiles())
        let time = EventTime.parseISO8601("2026-11-20T08:00:00Z")!
        _ = try outputs.sides[0][1].append(time: time, now: nil, records: records(1), count: 1)
        try outputs.rotateAll()
        _ = try outputs.sides[0][1].append(time: time, now: nil, records: records(1), count: 1)
        try outputs.finish()
        #expect(directory.files().sorted() == ["out/amplitude/user_mappings/2026-11-20/amplitude-user_mappings-08-0000.ndjson.gz",
                                               "out/amplitude/user_mappings/2026-11-20/amplitude-user_mappings-08-0001.ndjson.gz"])
    }
}
