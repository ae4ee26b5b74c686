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

    @Test func aPartThatVanishedSinceTheListingIsSkippedNotAnError() throws {
        let directory = TemporaryDirectory()
        directory.write("out/a/x.ndjson.gz.part", threeMembers)
        let options = PartFileRecovery.Options(directory: directory.file("out"))
        let listed = try PartFileRecovery.partFiles(options)
        #expect(listed == [directory.file("out/a/x.ndjson.gz.part")])
        // The live run that wrote it renames it between the listing and the open.
        #expect(rename(directory.file("out/a/x.ndjson.gz.part"), directory.file("out/a/x.ndjson.gz")) == 0)
        #expect(PartFileRecoverer(path: listed[0], options: options).recover() == nil)
        #expect(directory.files() == ["out/a/x.ndjson.gz"])
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
        // A cut in the last member's trailer (its 8 bytes of CRC and length) leaves its record whole.
        let cutRecordIsWhole = cut <= 8
        #expect(TestGzip.decompressFile(directory.file("out/a/x.ndjson.gz")) == records[0] + records[1] + (cutRecordIsWhole ? records[2] : []))
        #expect(contents(directory, "out/.quarantine/a/x.ndjson.gz.part") == damaged)
        let kept = TestGzip.compress(records[0]).count + TestGzip.compress(records[1]).count
        #expect(report.files[0].line.contains("\(kept) of \(damaged.count) bytes kept"))
        #expect(report.files[0].line.contains("2 gzip members, 2 lines"))
        #expect(report.files[0].line.contains("and 1 line (8 bytes) from the member cut short") == cutRecordIsWhole)
    }

    /// Many records in one member, the file cut in its middle: what a crash
    /// leaves while deflate writes out a large member between two flushes.
    @Test(arguments: [0.3, 0.5, 0.9])
    func aMemberCutMidWriteKeepsEveryWholeLineBeforeTheCutAndNoHalfLine(fraction: Double) throws {
        let directory = TemporaryDirectory()
        var lines: [UInt8] = []
        for index in 0..<20_000 { lines += Array("{\"i\":\(index),\"pad\":\"\(index &* 2_654_435_761 % 1_000_003)\"}\n".utf8) }
        let first = TestGzip.compress(records[0])
        let second = TestGzip.compress(lines)
        let damaged = first + second.prefix(Int(Double(second.count) * fraction))
        directory.write("out/x.ndjson.gz.part", damaged)
        let report = recover(directory)
        #expect(report.files.map(\.action) == [.salvaged])
        #expect(report.exitStatus == 0)
        #expect(directory.files() == ["out/.quarantine/x.ndjson.gz.part", "out/x.ndjson.gz"])
        let kept = try #require(TestGzip.decompressFile(directory.file("out/x.ndjson.gz")))
        #expect(kept.starts(with: records[0]))
        let salvaged = Array(kept.dropFirst(records[0].count))
        // Whole lines, in order, from the start of the cut member; the half line after them is not there.
        #expect(lines.starts(with: salvaged))
        #expect(salvaged.last == 0x0A)
        let scan = try #require(report.files[0].scan)
        let salvagedLines = salvaged.filter { $0 == 0x0A }.count
        #expect(scan.cutLines == salvagedLines && scan.cutLineBytes == salvaged.count)
        // Roughly the share of the member that was on disk (deflate's output is about even here).
        #expect(Double(salvagedLines) > 20_000 * (fraction - 0.2))
        // The dropped tail is a strict prefix of the next line: every whole line was kept.
        let next = lines[salvaged.count...].prefix { $0 != 0x0A }.count + 1
        #expect(scan.cutTailBytes < next)
        let line = report.files[0].line
        #expect(line.contains("1 gzip member, 1 lines, \(first.count) of \(damaged.count) bytes kept, and \(salvagedLines) lines (\(salvaged.count) bytes) from the member cut short"), "\(line)")
        if scan.cutTailBytes > 0 { #expect(line.contains("dropped: \(scan.cutTailBytes) bytes of a last line cut short"), "\(line)") }
    }

    /// ext4 after a power loss: the file is as long as was written, but its
    /// last blocks read back as zeros. The lines before them are salvaged.
    @Test(arguments: [1, 4096, 100_000])
    func aMemberCutShortAndFollowedByZerosKeepsItsWholeLines(zeros: Int) throws {
        let directory = TemporaryDirectory()
        var lines: [UInt8] = []
        for index in 0..<20_000 { lines += Array("{\"i\":\(index),\"pad\":\"\(index &* 2_654_435_761 % 1_000_003)\"}\n".utf8) }
        let first = TestGzip.compress(records[0])
        let second = TestGzip.compress(lines)
        let damaged = first + second.prefix(second.count / 2) + [UInt8](repeating: 0, count: zeros)
        directory.write("out/x.ndjson.gz.part", damaged)
        let report = recover(directory)
        #expect(report.files.map(\.action) == [.salvaged])
        let kept = try #require(TestGzip.decompressFile(directory.file("out/x.ndjson.gz")))
        #expect(kept.starts(with: records[0]))
        let salvaged = Array(kept.dropFirst(records[0].count))
        #expect(lines.starts(with: salvaged) && salvaged.last == 0x0A)
        #expect(salvaged.filter { $0 == 0x0A }.count > 5_000)
        #expect(report.files[0].line.contains("followed by \(zeros) zero bytes"), "\(report.files[0].line)")
    }

    @Test func aSingleMemberCutShortIsSalvagedNotQuarantined() throws {
        let directory = TemporaryDirectory()
        let member = TestGzip.compress(records.flatMap { $0 })
        directory.write("out/x.ndjson.gz.part", Array(member.dropLast(4)))
        let report = recover(directory)
        #expect(report.files.map(\.action) == [.salvaged])
        #expect(report.exitStatus == 0)
        #expect(TestGzip.decompressFile(directory.file("out/x.ndjson.gz")) == records.flatMap { $0 })
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

    @Test func aStagingDirectoryInsideIsLeftToItsNextAttempt() throws {
        let directory = TemporaryDirectory()
        directory.write("out/a/x.ndjson.gz.part", threeMembers)
        directory.write("out/.staging/3/.sluice-staging", "")
        directory.write("out/.staging/3/a/y.ndjson.gz.part", threeMembers)
        let report = recover(directory)
        #expect(report.files.map(\.path) == [directory.file("out/a/x.ndjson.gz.part")])
        #expect(directory.files().contains("out/.staging/3/a/y.ndjson.gz.part"))
    }

    @Test func aMissingDirectoryIsExit66() {
        let directory = TemporaryDirectory()
        #expect(recover(directory).exitStatus == 66)
    }
}
