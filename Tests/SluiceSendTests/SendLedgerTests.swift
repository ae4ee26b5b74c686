import Foundation
import Sluice
@testable import SluiceSend
import SluiceTestSupport
import Testing

@Suite struct SendLedgerTests {
    private func file(_ path: String, records: Int, identity: String = "1-2-3") -> SendFile {
        SendFile(path: path, identity: identity, compressed: [],
                 text: Array((0..<records).map { "{\"n\":\($0)}\n" }.joined().utf8))
    }

    @Test func acknowledgedRangesSurviveReopeningAndOnlyTheRestIsPending() throws {
        let directory = TemporaryDirectory()
        let a = file("mixpanel/a.ndjson.gz", records: 10)
        do {
            let ledger = try SendLedger(directory: directory.path, destination: "mixpanel") { _, _ in true }
            try ledger.acknowledge(a, 0..<3)
            try ledger.acknowledge(a, 6..<8)
        }
        let reopened = try SendLedger(directory: directory.path, destination: "mixpanel") { _, _ in true }
        #expect(reopened.pending(path: a.path, identity: a.identity, count: 10) == [3..<6, 8..<10])
        // Another file under the same name (a new run wrote it after the first moved) starts from nothing.
        #expect(reopened.pending(path: a.path, identity: "9-9-9", count: 10) == [0..<10])
    }

    @Test func aLastLineCutByACrashIsNotAFact() throws {
        let directory = TemporaryDirectory()
        directory.write("mixpanel.ledger", "ack\tf\t1-2-3\t0\t5\nack\tf\t1-2-3\t5\t1")
        let ledger = try SendLedger(directory: directory.path, destination: "mixpanel") { _, _ in true }
        #expect(ledger.pending(path: "f", identity: "1-2-3", count: 20) == [5..<20])
        // Opening rewrote it without the torn line.
        let text = try String(contentsOfFile: directory.file("mixpanel.ledger"), encoding: .utf8)
        #expect(text == "ack\tf\t1-2-3\t0\t5\n")
    }

    @Test func factsAboutFilesNoLongerThereAreDroppedWhenOpened() throws {
        let directory = TemporaryDirectory()
        directory.write("mixpanel.ledger", "ack\tgone\t1-1-1\t0\t5\ndone\tgone\t1-1-1\nack\tkept\t2-2-2\t0\t5\ndone\tkept\t2-2-2\n"
            + "ack\tmoved\t3-3-3\t0\t5\ndone\tmoved\t3-3-3\ngone\tmoved\t3-3-3\n")
        let ledger = try SendLedger(directory: directory.path, destination: "mixpanel") { path, _ in path != "gone" }
        #expect(ledger.isDone(path: "kept", identity: "2-2-2"))
        #expect(!ledger.isDone(path: "gone", identity: "1-1-1"))
        #expect(!ledger.isDone(path: "moved", identity: "3-3-3"))
        let text = try String(contentsOfFile: directory.file("mixpanel.ledger"), encoding: .utf8)
        #expect(text == "ack\tkept\t2-2-2\t0\t5\ndone\tkept\t2-2-2\n")
    }

    @Test func aSecondSenderCannotOpenALedgerInUse() throws {
        let directory = TemporaryDirectory()
        let first = try SendLedger(directory: directory.path, destination: "mixpanel") { _, _ in true }
        #expect(throws: SendFailure.self) { _ = try SendLedger(directory: directory.path, destination: "mixpanel") { _, _ in true } }
        withExtendedLifetime(first) {}
    }

    @Test func rangesMergeAndComplement() {
        #expect(RangeSet.merged([5..<7, 0..<2, 2..<3, 6..<9]) == [0..<3, 5..<9])
        #expect(RangeSet.complement(of: [5..<7, 0..<2], in: 0..<10) == [2..<5, 7..<10])
        #expect(RangeSet.complement(of: [0..<10], in: 0..<10).isEmpty)
    }
}
