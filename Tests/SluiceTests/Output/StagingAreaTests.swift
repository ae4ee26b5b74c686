import Foundation
import Logging
import Testing
@testable import Sluice
import SluiceTestSupport
#if canImport(Glibc)
import Glibc
#endif

@Suite struct StagingAreaTests {
    private let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    private func contents(_ path: String) -> String? {
        try? String(contentsOfFile: path, encoding: .utf8)
    }

    @Test func publishingMovesEveryFileToTheSamePathUnderOutAndRemovesTheStagingDirectory() throws {
        let directory = TemporaryDirectory()
        let staging = try StagingArea(directory: directory.file("staging"), outDirectory: directory.file("out"), logger: logger)
        directory.write("staging/a/2026-11-20/a-0000.ndjson.gz", "one")
        directory.write("staging/rejects/r-0000.ndjson.gz", "two")
        directory.write("out/a/2026-11-20/earlier.ndjson.gz", "kept")
        let publication = try staging.publish()
        #expect(publication.count == 2)
        #expect(contents(directory.file("out/a/2026-11-20/a-0000.ndjson.gz")) == "one")
        #expect(contents(directory.file("out/rejects/r-0000.ndjson.gz")) == "two")
        #expect(contents(directory.file("out/a/2026-11-20/earlier.ndjson.gz")) == "kept")
        staging.removeEmptyDirectory()
        #expect(!FileSystem.exists(directory.file("staging")))
    }

    @Test func aTakenNameMovesNothingAndNamesTheFile() throws {
        let directory = TemporaryDirectory()
        let staging = try StagingArea(directory: directory.file("staging"), outDirectory: directory.file("out"), logger: logger)
        directory.write("staging/a/0.gz", "new a")
        directory.write("staging/b/0.gz", "new b")
        directory.write("out/b/0.gz", "old b")
        #expect(throws: StagingError.nameTaken(path: directory.file("out/b/0.gz"), staged: directory.file("staging/b/0.gz"))) {
            try staging.publish()
        }
        #expect(!FileSystem.exists(directory.file("out/a")))
        #expect(contents(directory.file("out/b/0.gz")) == "old b")
        #expect(contents(directory.file("staging/a/0.gz")) == "new a")
        #expect(StagingError.nameTaken(path: "x", staged: "y").exitStatus == 73)
    }

    @Test func rollingBackMovesTheFilesBackAndRemovesTheDirectoriesItMade() throws {
        let directory = TemporaryDirectory()
        let staging = try StagingArea(directory: directory.file("staging"), outDirectory: directory.file("out"), logger: logger)
        directory.write("staging/a/b/0.gz", "data")
        let publication = try staging.publish()
        #expect(FileSystem.exists(directory.file("out/a/b/0.gz")))
        staging.rollBack(publication)
        #expect(directory.files() == ["staging/.sluice-staging", "staging/a/b/0.gz"])
        #expect(FileSystem.isDirectory(directory.file("out")) && !FileSystem.exists(directory.file("out/a")))
    }

    @Test func anUnfinishedFileMovesNothing() throws {
        let directory = TemporaryDirectory()
        let staging = try StagingArea(directory: directory.file("staging"), outDirectory: directory.file("out"), logger: logger)
        directory.write("staging/a/0.gz", "done")
        directory.write("staging/a/1.gz.part", "half")
        #expect(throws: StagingError.unfinished(path: directory.file("staging/a/1.gz.part"))) { try staging.publish() }
        #expect(!FileSystem.exists(directory.file("out/a")))
    }

    @Test func aSecondClaimOfADirectoryInUseIsRefusedWith75() throws {
        let directory = TemporaryDirectory()
        let first = try StagingArea(directory: directory.file("staging"), outDirectory: directory.file("out"), logger: logger)
        #expect(throws: StagingError.inUse(staging: directory.file("staging"))) {
            try StagingArea(directory: directory.file("staging"), outDirectory: directory.file("out"), logger: logger)
        }
        #expect(StagingError.inUse(staging: "").exitStatus == 75)
        withExtendedLifetime(first) {}
    }

    @Test func aDeadAttemptsFilesAreRemovedWhenTheDirectoryIsClaimedAgain() throws {
        let directory = TemporaryDirectory()
        var first: StagingArea? = try StagingArea(directory: directory.file("staging"), outDirectory: directory.file("out"), logger: logger)
        directory.write("staging/a/0.gz", "done")
        directory.write("staging/a/1.gz.part", "half")
        first = nil  // the lock goes, as with a process that died
        _ = try StagingArea(directory: directory.file("staging"), outDirectory: directory.file("out"), logger: logger)
        #expect(directory.files() == ["staging/.sluice-staging"])
        withExtendedLifetime(first) {}
    }

    @Test func aDirectoryWithFilesAndNoMarkerIsNotClaimed() throws {
        let directory = TemporaryDirectory()
        directory.write("staging/mine.txt", "keep")
        #expect(throws: StagingError.notStaging(staging: directory.file("staging"), holds: "mine.txt")) {
            try StagingArea(directory: directory.file("staging"), outDirectory: directory.file("out"), logger: logger)
        }
        #expect(directory.files() == ["staging/mine.txt"])
    }

    @Test func theStagingDirectoryMayNotBeOutOrHoldIt() throws {
        let directory = TemporaryDirectory()
        for (staging, out) in [("d", "d"), ("d", "d/out"), ("d/", "d/x/../out")] {
            #expect(throws: StagingError.holdsOut(staging: directory.file(staging), out: directory.file(out))) {
                try StagingArea(directory: directory.file(staging), outDirectory: directory.file(out), logger: logger)
            }
        }
        #expect(StagingError.holdsOut(staging: "", out: "").exitStatus == 64)
        // Inside --out is fine (a hidden folder keeps it out of globs).
        _ = try StagingArea(directory: directory.file("o/.staging/1"), outDirectory: directory.file("o"), logger: logger)
    }

    @Test(.enabled(if: TemporaryDirectory.otherFilesystem != nil, "needs /dev/shm on another filesystem than the temporary directory"))
    func aStagingDirectoryOnAnotherFilesystemIsRefused() throws {
        let directory = TemporaryDirectory()
        let staging = TemporaryDirectory.otherFilesystem! + "/sluice-test-staging-\(getpid())-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: staging) }
        #expect(throws: StagingError.otherFilesystem(staging: staging, out: directory.file("out"))) {
            try StagingArea(directory: staging, outDirectory: directory.file("out"), logger: logger)
        }
        #expect(StagingError.otherFilesystem(staging: "", out: "").exitStatus == 73)
    }

    @Test func aRunThatDiedWhileMovingLeavesItsListAndTheNextClaimRefusesWithoutRemovingAnything() throws {
        let directory = TemporaryDirectory()
        var first: StagingArea? = try StagingArea(directory: directory.file("staging"), outDirectory: directory.file("out"), logger: logger)
        directory.write("staging/a/0.gz", "zero")
        directory.write("staging/a/1.gz", "one")
        _ = try first!.publish()
        // As if it had died after the first move: the second file back under staging, the list kept.
        #expect(FileSystem.renameWithoutReplacing(directory.file("out/a/1.gz"), to: directory.file("staging/a/1.gz")) == 0)
        first = nil
        #expect(throws: StagingError.interruptedPublish(staging: directory.file("staging"), inPlace: 1, of: 2)) {
            try StagingArea(directory: directory.file("staging"), outDirectory: directory.file("out"), logger: logger)
        }
        #expect(directory.files() == ["out/a/0.gz", "staging/.sluice-staging", "staging/a/1.gz"])
        withExtendedLifetime(first) {}
    }

    @Test func aRolledBackPublicationLeavesNoListBehind() throws {
        let directory = TemporaryDirectory()
        var first: StagingArea? = try StagingArea(directory: directory.file("staging"), outDirectory: directory.file("out"), logger: logger)
        directory.write("staging/a/0.gz", "zero")
        first!.rollBack(try first!.publish())
        first = nil
        _ = try StagingArea(directory: directory.file("staging"), outDirectory: directory.file("out"), logger: logger)
        #expect(directory.files() == ["staging/.sluice-staging"])
        withExtendedLifetime(first) {}
    }
}
