import Foundation
import Sluice
@testable import SluiceSend
import SluiceTestSupport
import Testing

@Suite struct DurableTests {
    @Test func aMoveMakesTheFoldersAndNeverReplacesAFileSentBefore() throws {
        let directory = TemporaryDirectory()
        for index in 0..<3 { _ = directory.write("out/d/f-\(index).ndjson.gz", "batch \(index)") }
        for index in 0..<3 {
            try Durable.move(directory.file("out/d/f-\(index).ndjson.gz"), to: directory.file("out/sent/d/f.ndjson.gz"))
        }
        let sent = try FileManager.default.contentsOfDirectory(atPath: directory.file("out/sent/d")).sorted()
        #expect(sent == ["f.1.ndjson.gz", "f.2.ndjson.gz", "f.ndjson.gz"])
        #expect(try String(contentsOfFile: directory.file("out/sent/d/f.ndjson.gz"), encoding: .utf8) == "batch 0")
        #expect(try String(contentsOfFile: directory.file("out/sent/d/f.2.ndjson.gz"), encoding: .utf8) == "batch 2")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("out/d")).isEmpty)
    }

    @Test func aWriteReplacesTheFileWhole() throws {
        let directory = TemporaryDirectory()
        let path = directory.write("rejects.gz", "old")
        try Durable.write(Array("new".utf8), to: path)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "new")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["rejects.gz"])
        #expect(throws: SendFailure.self) { try Durable.write([1], to: directory.file("missing/dir/x")) }
    }
}
