import Foundation
import Testing
@testable import Sluice
import SluiceTestSupport

@Suite struct DestinationOutputTests {
    private func record(_ index: Int) -> [UInt8] { Array("{\"i\":\(index)}\n".utf8) }

    private func output(_ directory: TemporaryDirectory, _ rotation: RotationPolicy, template: String = "{dest}/{date}/{dest}-{hour}-{seq}.ndjson.gz") throws -> DestinationOutput {
        let worker = CompressionWorker(name: "d", root: directory.path, level: 6, maxAge: rotation.maxAge, flushInterval: .seconds(60), finisher: FileFinisher(threads: 2))
        return DestinationOutput(name: "d", sink: FileSink(template: try PathTemplate(template), worker: worker), rotation: rotation)
    }

    @Test func maxEventsRotatesAtExactlyThatManyRecords() throws {
        let directory = TemporaryDirectory()
        var rotation = RotationPolicy()
        rotation.maxEvents = 3
        let out = try output(directory, rotation)
        let time = EventTime.parseISO8601("2026-11-20T08:00:00Z")!
        for index in 0..<8 { _ = try out.append(time: time) { $0.append(contentsOf: record(index)); return 1 } }
        let report = try out.finish()
        #expect(report.fileCount == 3)
        let files = directory.files()
        #expect(files == ["d/2026-11-20/d-08-0000.ndjson.gz", "d/2026-11-20/d-08-0001.ndjson.gz", "d/2026-11-20/d-08-0002.ndjson.gz"])
        let counts = files.map { TestGzip.decompressFile(directory.file($0))!.filter { $0 == 0x0A }.count }
        #expect(counts == [3, 3, 2])
        let all = files.flatMap { TestGzip.decompressFile(directory.file($0))! }
        #expect(all == (0..<8).flatMap(record))
    }

    @Test func maxBytesCountsUncompressedRecordBytes() throws {
        let directory = TemporaryDirectory()
        var rotation = RotationPolicy()
        rotation.maxBytes = 20  // each record is 8 bytes: two per file
        let out = try output(directory, rotation)
        let time = EventTime.parseISO8601("2026-11-20T08:00:00Z")!
        for index in 0..<5 { _ = try out.append(time: time) { $0.append(contentsOf: record(index)); return 1 } }
        #expect(try out.finish().fileCount == 3)
    }

    /// Waits (bounded) until `name` exists under the directory.
    private func waitForFile(_ directory: TemporaryDirectory, _ name: String) -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while !FileManager.default.fileExists(atPath: directory.file(name)) {
            if ContinuousClock.now >= deadline { return false }
            Thread.sleep(forTimeInterval: 0.002)
        }
        return true
    }

    @Test(arguments: [false, true])
    func afterAnAgeRotationTheNextFileGetsTheWholeCountAndSizeLimit(bySize: Bool) throws {
        let directory = TemporaryDirectory()
        var rotation = RotationPolicy()
        if bySize { rotation.maxBytes = 3 * record(0).count } else { rotation.maxEvents = 3 }
        rotation.maxAge = .milliseconds(500)  // long enough that the three appends below never straddle it
        let out = try output(directory, rotation)
        let time = EventTime.parseISO8601("2026-11-20T08:00:00Z")!
        for index in 0..<2 { _ = try out.append(time: time) { $0.append(contentsOf: record(index)); return 1 } }
        try out.handOver()
        // Input idle: the worker's timer closes the file at max_age.
        #expect(waitForFile(directory, "d/2026-11-20/d-08-0000.ndjson.gz"))
        for index in 2..<5 { _ = try out.append(time: time) { $0.append(contentsOf: record(index)); return 1 } }
        _ = try out.finish()
        let files = directory.files()
        #expect(files == ["d/2026-11-20/d-08-0000.ndjson.gz", "d/2026-11-20/d-08-0001.ndjson.gz"])
        #expect(files.map { TestGzip.decompressFile(directory.file($0))! } == [record(0) + record(1), record(2) + record(3) + record(4)])
    }

    @Test func aFileOlderThanMaxAgeIsRotatedAtTheNextRecordEvenWhileRecordsKeepComing() throws {
        let directory = TemporaryDirectory()
        var rotation = RotationPolicy()
        rotation.maxAge = .milliseconds(30)
        let out = try output(directory, rotation)
        let time = EventTime.parseISO8601("2026-11-20T08:00:00Z")!
        _ = try out.append(time: time) { $0.append(contentsOf: record(0)); return 1 }
        let start = ContinuousClock.now
        while ContinuousClock.now - start < .milliseconds(40) { Thread.sleep(forTimeInterval: 0.005) }
        _ = try out.append(time: time) { $0.append(contentsOf: record(1)); return 1 }
        _ = try out.finish()
        let files = directory.files()
        #expect(files.map { TestGzip.decompressFile(directory.file($0))! } == [record(0), record(1)])
    }

    @Test func eventsOfDifferentHoursGoToTheirOwnFiles() throws {
        let directory = TemporaryDirectory()
        let out = try output(directory, RotationPolicy())
        for (index, stamp) in ["2026-11-20T08:10:00Z", "2026-11-20T09:00:00Z", "2026-11-20T08:59:00Z", "2026-11-21T00:00:00Z"].enumerated() {
            _ = try out.append(time: EventTime.parseISO8601(stamp)!) { $0.append(contentsOf: record(index)); return 1 }
        }
        _ = try out.finish()
        #expect(directory.files() == ["d/2026-11-20/d-08-0000.ndjson.gz", "d/2026-11-20/d-09-0000.ndjson.gz", "d/2026-11-21/d-00-0000.ndjson.gz"])
        #expect(TestGzip.decompressFile(directory.file("d/2026-11-20/d-08-0000.ndjson.gz")) == record(0) + record(2))
    }

    @Test func aSecondRunNeverOverwritesTheFirstRunsFiles() throws {
        let directory = TemporaryDirectory()
        let time = EventTime.parseISO8601("2026-11-20T08:00:00Z")!
        for run in 0..<2 {
            let out = try output(directory, RotationPolicy())
            _ = try out.append(time: time) { $0.append(contentsOf: record(run)); return 1 }
            _ = try out.finish()
        }
        #expect(directory.files() == ["d/2026-11-20/d-08-0000.ndjson.gz", "d/2026-11-20/d-08-0001.ndjson.gz"])
    }

    @Test func aFileFinishedUnderAnotherWritersNameTakesTheNextNumberInstead() throws {
        let directory = TemporaryDirectory()
        let out = try output(directory, RotationPolicy())
        let time = EventTime.parseISO8601("2026-11-20T08:00:00Z")!
        _ = try out.append(time: time) { $0.append(contentsOf: record(1)); return 1 }
        try out.handOver()
        let name = "d/2026-11-20/d-08-0000.ndjson.gz"
        // Wait (bounded) until the worker has the `.part` open, then let another writer finish that name.
        let deadline = ContinuousClock.now + .seconds(10)
        while !FileManager.default.fileExists(atPath: directory.file(name + ".part")) && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.001)
        }
        #expect(FileManager.default.fileExists(atPath: directory.file(name + ".part")))
        directory.write(name, "another run's file")
        #expect(try out.finish().fileCount == 1)
        #expect(directory.files() == [name, "d/2026-11-20/d-08-0001.ndjson.gz"])
        #expect(FileManager.default.contents(atPath: directory.file(name)) == Data("another run's file".utf8))
        #expect(TestGzip.decompressFile(directory.file("d/2026-11-20/d-08-0001.ndjson.gz")) == record(1))
    }

    @Test func aRefusalLeavesNoBytesBehind() throws {
        let directory = TemporaryDirectory()
        let out = try output(directory, RotationPolicy())
        let time = EventTime.parseISO8601("2026-11-20T08:00:00Z")!
        let written = try out.append(time: time) { $0.append(contentsOf: Array("half".utf8)); return 0 }
        #expect(written == 0)
        _ = try out.append(time: time) { $0.append(contentsOf: record(1)); return 1 }
        _ = try out.finish()
        #expect(TestGzip.decompressFile(directory.file("d/2026-11-20/d-08-0000.ndjson.gz")) == record(1))
    }

    @Test func nothingWrittenMeansNoFile() throws {
        let directory = TemporaryDirectory()
        let out = try output(directory, RotationPolicy())
        #expect(try out.finish().fileCount == 0)
        #expect(directory.files().isEmpty)
    }
}
