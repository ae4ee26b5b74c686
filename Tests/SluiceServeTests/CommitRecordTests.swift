import Foundation
import Sluice
@testable import SluiceServe
import SluiceTestSupport
import Testing

@Suite struct CommitRecordTests {
    @Test func aRecordReadsBackAsWrittenAndACutOneIsNotARecord() throws {
        let record = CommitRecord(staging: "/s", out: "/o", state: "/st", stateTemporary: "/st.tmp-9", segments: ["/j/1", "/j/2"],
                                  files: ["a/b.gz", "c.gz"])
        #expect(CommitRecord(text: record.text) == record)
        #expect(CommitRecord(text: String(record.text.dropLast(5))) == nil)
        let directory = TemporaryDirectory()
        try record.write(to: directory.file("commit"))
        #expect(try CommitRecord.read(directory.file("commit")) == record)
        #expect(try CommitRecord.read(directory.file("none")) == nil)
    }

    @Test func rollingForwardMovesWhatIsNotInPlacePutsTheStateInPlaceAndDropsTheSegments() throws {
        let directory = TemporaryDirectory()
        let fm = FileManager.default
        for path in ["staging/d/2026", "out/d/2026", "j"] { try fm.createDirectory(atPath: directory.file(path), withIntermediateDirectories: true) }
        // One file was moved before the crash, one was not.
        _ = directory.write("out/d/2026/a-0000.gz", [1])
        _ = directory.write("staging/d/2026/b-0000.gz", [2])
        _ = directory.write("state.tmp-42", [3])
        _ = directory.write("state", [0])
        let segment = directory.write("j/segment-1.ndjson", [4])
        let record = CommitRecord(staging: directory.file("staging"), out: directory.file("out"), state: directory.file("state"),
                                  stateTemporary: directory.file("state.tmp-42"), segments: [segment],
                                  files: ["d/2026/a-0000.gz", "d/2026/b-0000.gz"])
        #expect(try record.rollForward() == 1)
        #expect(fm.contents(atPath: directory.file("out/d/2026/b-0000.gz")) == Data([2]))
        #expect(fm.contents(atPath: directory.file("out/d/2026/a-0000.gz")) == Data([1]))
        #expect(fm.contents(atPath: directory.file("state")) == Data([3]))
        #expect(!fm.fileExists(atPath: directory.file("state.tmp-42")))
        #expect(!fm.fileExists(atPath: segment))
        #expect(!fm.fileExists(atPath: directory.file("staging")))
        // Rolling forward again (a crash before the record was removed) changes nothing.
        #expect(try record.rollForward() == 0)
        #expect(fm.contents(atPath: directory.file("state")) == Data([3]))
    }

    @Test func aFileNeitherStagedNorInPlaceStopsTheRollForward() throws {
        let directory = TemporaryDirectory()
        let record = CommitRecord(staging: directory.file("staging"), out: directory.file("out"), state: nil, stateTemporary: nil,
                                  segments: [], files: ["gone.gz"])
        #expect(throws: CommitError.self) { try record.rollForward() }
    }
}
