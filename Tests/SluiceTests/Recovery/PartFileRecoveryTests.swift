import Foundation
import Logging
import Testing
@testable import Sluice
import SluiceTestSupport

@Suite struct PartFileRecoveryTests {
    private let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
    private let records = (0..<3).map { Array("{\"n\":\($0)}\n".utf8) }

    /// Three members, one record each: what three flushes leave.
    private var threeMembers: [UInt8] { records.flatMap { TestGzip.compress($0) } }

    private func recover(_ directory: TemporaryDirectory, dryRun: Bool = false) -> RecoveryReport {
        var options = PartFileRecovery.Options(directory: directory.file("out"))
        options.dryRun = dryRun
        return PartFileRecovery.run(options, logger: logger)
    }

    private func contents(_ directory: TemporaryDirectory, _ name: String) -> [UInt8]? {
        FileManager.default.contents(atPath: directory.file(name)).map(Array.init)
    }

    @Test func aPartOfCompleteMembersIsRenamedToItsFinalName() throws {
        let directory = TemporaryDirectory()
        directory.write("out/a/x.ndjson.gz.part", threeMembers)
        let report = recover(directory)
        #expect(report.files.map(\.action) == [.renamed])
        #expect(report.files[0].scan?.members == 3 && report.files[0].scan?.lines == 3)
        #expect(report.exitStatus == 0)
        #expect(directory.files() == ["out/a/x.ndjson.gz"])
        #expect(contents(directory, "out/a/x.ndjson.gz") == threeMembers)
    }

    @Test(arguments: [1, 7, 20])
    func aTruncatedPartKeepsItsCompleteMembersAndTheOriginalIsQuarantined(cut: Int) throws {
        let directory = TemporaryDirectory()
        let damaged = Array(threeMembers.dropLast(cut))
        directory.write("out/a/x.ndjson.gz.part", damaged)
        let report = recover(directory)
        #expect(report.files.map(\.action) == [.salvaged])
        #expect(report.exitStatus == 0)
        #expect(directory.files() == ["out/.quarantine/a/x.ndjson.gz.part", "out/a/x.ndjson.gz"])
        #expect(TestGzip.decompressFile(directory.file("out/a/x.ndjson.gz")) == records[0] + records[1])
        #expect(contents(directory, "out/.quarantine/a/x.ndjson.gz.part") == damaged)
        let kept = TestGzip.compress(records[0]).count + TestGzip.compress(records[1]).count
        #expect(report.files[0].line.contains("\(kept) of \(damaged.count) bytes kept"))
        #expect(report.files[0].line.contains("2 gzip members, 2 lines"))
    }

    @Test func garbageAfterCompleteMembersIsCutLikeATruncation() throws {
        let directory = TemporaryDirectory()
        directory.write("out/x.gz.part", threeMembers + [UInt8](repeating: 0, count: 4096))
        let report = recover(directory)
        #expect(report.files.map(\.action) == [.salvaged])
        #expect(TestGzip.decompressFile(directory.file("out/x.gz")) == records.flatMap { $0 })
    }

    @Test func aPartWithNoCompleteMemberIsQuarantinedWhole() throws {
        let directory = TemporaryDirectory()
        directory.write("out/a/x.ndjson.gz.part", Array(threeMembers.prefix(10)))
        let report = recover(directory)
        #expect(report.files.map(\.action) == [.quarantined])
        #expect(report.exitStatus == 65)
        #expect(directory.files() == ["out/.quarantine/a/x.ndjson.gz.part"])
    }

    @Test func anEmptyPartIsRemoved() throws {
        let directory = TemporaryDirectory()
        directory.write("out/x.ndjson.gz.part", [])
        let report = recover(directory)
        #expect(report.files.map(\.action) == [.removed])
        #expect(report.exitStatus == 0)
        #expect(directory.files().isEmpty)
    }

    @Test func aPartWhoseFinalNameExistsNeverOverwritesIt() throws {
        let directory = TemporaryDirectory()
        directory.write("out/x.ndjson.gz", [1, 2, 3])
        directory.write("out/x.ndjson.gz.part", threeMembers)
        let report = recover(directory)
        #expect(report.files.map(\.action) == [.conflict])
        #expect(report.exitStatus == 65)
        #expect(contents(directory, "out/x.ndjson.gz") == [1, 2, 3])
        #expect(contents(directory, "out/.quarantine/x.ndjson.gz.part") == threeMembers)
    }

    @Test func aPartLinkedToItsFinalNameByACrashedFinishIsJustUnlinked() throws {
        let directory = TemporaryDirectory()
        // A run linked the `.part` to its final name and was killed before unlinking it.
        let final = directory.write("out/x.ndjson.gz", threeMembers)
        #expect(link(final, final + ".part") == 0)
        let report = recover(directory)
        #expect(report.files.map(\.action) == [.renamed])
        #expect(report.exitStatus == 0)
        #expect(directory.files() == ["out/x.ndjson.gz"])
        #expect(contents(directory, "out/x.ndjson.gz") == threeMembers)
    }

    @Test func aPartLockedByARunningWriterIsLeftAlone() throws {
        let directory = TemporaryDirectory()
        let path = directory.write("out/x.ndjson.gz.part", threeMembers)
        // A second open file description conflicts with recover's, as another process's would.
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        #expect(flock(fd, LOCK_EX) == 0)
        let report = recover(directory)
        #expect(report.files.map(\.action) == [.inUse])
        #expect(report.exitStatus == 75)
        #expect(directory.files() == ["out/x.ndjson.gz.part"])
    }

    @Test func aLiveWritersPartIsLockedUntilItIsRenamed() throws {
        let directory = TemporaryDirectory()
        let writer = try GzipFileWriter(path: directory.file("out/x.ndjson.gz"), level: 6)
        try [UInt8]("{}\n".utf8).withUnsafeBytes { try writer.write($0) }
        try writer.endMember()
        #expect(recover(directory).files.map(\.action) == [.inUse])
        try writer.close()
        #expect(recover(directory).files.isEmpty)
        #expect(directory.files() == ["out/x.ndjson.gz"])
    }

    @Test func aDryRunReportsAndChangesNothing() throws {
        let directory = TemporaryDirectory()
        directory.write("out/a.ndjson.gz.part", threeMembers)
        directory.write("out/b.ndjson.gz.part", Array(threeMembers.dropLast(3)))
        let before = directory.files()
        let report = recover(directory, dryRun: true)
        #expect(report.files.map(\.action) == [.renamed, .salvaged])
        #expect(report.files.allSatisfy { $0.line.hasPrefix("would be ") })
        #expect(directory.files() == before)
    }

    @Test func aSecondRunHasNothingToDoAndAnInterruptedOneIsFinished() throws {
        let directory = TemporaryDirectory()
        directory.write("out/a.ndjson.gz.part", Array(threeMembers.dropLast(3)))
        // What a recover killed half way leaves: its temp file.
        directory.write("out/a.ndjson.gz.recovering", [9, 9])
        #expect(recover(directory).files.map(\.action) == [.salvaged])
        let second = recover(directory)
        #expect(second.files.isEmpty)
        #expect(second.exitStatus == 0)
        #expect(second.summaryLine == "no .part files, nothing to do")
        #expect(directory.files() == ["out/.quarantine/a.ndjson.gz.part", "out/a.ndjson.gz"])
    }

    @Test func aMissingDirectoryIsExit66() {
        let directory = TemporaryDirectory()
        #expect(recover(directory).exitStatus == 66)
    }
}
