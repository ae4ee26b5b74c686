import Foundation
import Testing
@testable import Sluice
import SluiceTestSupport
#if canImport(Glibc)
import Glibc
#endif

@Suite struct FileSystemTests {
    @Test func renamingWithoutReplacingMovesTheFileWhole() throws {
        let directory = TemporaryDirectory()
        let from = directory.write("a", "data")
        #expect(FileSystem.renameWithoutReplacing(from, to: directory.file("b")) == 0)
        #expect(!FileSystem.exists(from))
        #expect(try String(contentsOfFile: directory.file("b"), encoding: .utf8) == "data")
    }

    @Test func renamingWithoutReplacingLeavesATakenNameAndTheFileAsTheyAre() throws {
        let directory = TemporaryDirectory()
        let from = directory.write("a", "new")
        let to = directory.write("b", "old")
        #expect(FileSystem.renameWithoutReplacing(from, to: to) == EEXIST)
        #expect(try String(contentsOfFile: to, encoding: .utf8) == "old")
        #expect(try String(contentsOfFile: from, encoding: .utf8) == "new")
    }

    @Test func renamingWithoutReplacingReportsAMissingFile() {
        let directory = TemporaryDirectory()
        #expect(FileSystem.renameWithoutReplacing(directory.file("none"), to: directory.file("b")) == ENOENT)
    }

    @Test func makingDirectoriesSaysWhichItMadeOutermostFirst() throws {
        let directory = TemporaryDirectory()
        _ = directory.write("x/keep", "")
        var made: [String] = []
        try FileSystem.makeDirectories(directory.file("x/y/z"), made: &made)
        #expect(made == [directory.file("x/y"), directory.file("x/y/z")])
        #expect(FileSystem.isDirectory(directory.file("x/y/z")))
    }
}
