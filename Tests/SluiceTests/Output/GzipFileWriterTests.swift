import Foundation
import Testing
@testable import Sluice
import SluiceTestSupport

@Suite struct GzipFileWriterTests {
    @Test func aFileIsPartUntilClosedThenRenamedAndGunzips() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("a/b/out.ndjson.gz")
        let writer = try GzipFileWriter(path: path, level: 6)
        try Array("one\n".utf8).withUnsafeBytes { try writer.write($0) }
        #expect(FileSystem.exists(path + ".part"))
        #expect(!FileSystem.exists(path))
        try writer.close()
        #expect(!FileSystem.exists(path + ".part"))
        #expect(TestGzip.decompressFile(path) == Array("one\n".utf8))
    }

    @Test func eachFlushEndsAMemberSoAPartFileGunzipsUpToIt() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("out.gz")
        let writer = try GzipFileWriter(path: path, level: 6)
        try Array("first\n".utf8).withUnsafeBytes { try writer.write($0) }
        try writer.endMember()
        try Array("second\n".utf8).withUnsafeBytes { try writer.write($0) }
        try writer.endMember()
        // Read the .part as a crash would leave it.
        let part = Array(FileManager.default.contents(atPath: path + ".part")!)
        #expect(TestGzip.decompress(part) == Array("first\nsecond\n".utf8))
        writer.abandon()
    }

    @Test func anExistingPartFileIsNeverOverwritten() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("x.gz")
        directory.write("x.gz.part", "keep")
        #expect(throws: OutputError.self) { try GzipFileWriter(path: path, level: 6) }
    }

    @Test func finishingNeverOverwritesAFileThatTookTheNameMeanwhile() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("x-0000.gz")
        let writer = try GzipFileWriter(path: path, level: 6) { directory.file("x-000\($0).gz") }
        try Array("mine\n".utf8).withUnsafeBytes { try writer.write($0) }
        // Another run (or destination) finished a file of the same name while this one was open,
        // and a third writer has the next name open as `.part`.
        directory.write("x-0000.gz", "theirs")
        directory.write("x-0001.gz.part", "open elsewhere")
        try writer.close()
        #expect(writer.path == directory.file("x-0002.gz"))
        #expect(directory.files() == ["x-0000.gz", "x-0001.gz.part", "x-0002.gz"])
        #expect(FileManager.default.contents(atPath: path) == Data("theirs".utf8))
        #expect(TestGzip.decompressFile(directory.file("x-0002.gz")) == Array("mine\n".utf8))
    }

    @Test func withoutAnotherNameATakenNameFailsAndTheFileStaysPart() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("x.gz")
        let writer = try GzipFileWriter(path: path, level: 6)
        try Array("mine\n".utf8).withUnsafeBytes { try writer.write($0) }
        directory.write("x.gz", "theirs")
        #expect(throws: OutputError.writeFailed(path: path, errno: EEXIST)) { try writer.close() }
        writer.abandon()
        #expect(FileManager.default.contents(atPath: path) == Data("theirs".utf8))
        #expect(TestGzip.decompressFile(path + ".part") == Array("mine\n".utf8))
    }

    @Test func largeInputsRoundTrip() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("big.gz")
        var data: [UInt8] = []
        for index in 0..<200_000 { data.append(contentsOf: "{\"i\":\(index),\"pad\":\"\(index * 7919 % 1000)\"}\n".utf8) }
        let writer = try GzipFileWriter(path: path, level: 1)
        try data.withUnsafeBytes { try writer.write($0) }
        try writer.close()
        #expect(TestGzip.decompressFile(path) == data)
        #expect(writer.compressedBytes < data.count / 3)
    }
}
