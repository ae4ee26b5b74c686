import Testing
@testable import Sluice

@Suite struct FinishedFileListTests {
    @Test func beyondTheLimitFilesAreCountedNotListed() {
        var list = FinishedFileList()
        let file = FinishedFile(destination: "a", path: "a/0.gz", records: 1, uncompressedBytes: 2, compressedBytes: 3)
        for _ in 0..<(FinishedFileList.maxListed + 5) { list.append(file) }
        #expect(list.listed.count == FinishedFileList.maxListed)
        #expect(list.notListed == 5)
    }

    @Test func aRelativePathIsUnderTheRootAndAnAbsoluteOneIsAsItIs() {
        let relative = FinishedFile(destination: "a", path: "a/0.gz", records: 0, uncompressedBytes: 0, compressedBytes: 0)
        let absolute = FinishedFile(destination: "a", path: "/data/a/0.gz", records: 0, uncompressedBytes: 0, compressedBytes: 0)
        #expect(relative.path(under: "out") == "out/a/0.gz")
        #expect(absolute.path(under: "out") == "/data/a/0.gz")
    }
}
