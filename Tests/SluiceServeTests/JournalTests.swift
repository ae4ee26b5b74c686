import Foundation
import Sluice
@testable import SluiceServe
import SluiceTestSupport
import Testing

/// Waits for the journal's answer to one append.
private func appendAndWait(_ journal: Journal, _ text: String) -> Journal.AppendResult {
    let semaphore = DispatchSemaphore(value: 0)
    let box = ResultBox()
    journal.append(Array(text.utf8)) { result in
        box.set(result)
        semaphore.signal()
    }
    semaphore.wait()
    return box.value!
}

private final class ResultBox: @unchecked Sendable {
    // Written once by the journal's thread before the semaphore is signalled, read after the wait.
    private let lock = NSLock()
    private var stored: Journal.AppendResult?
    func set(_ value: Journal.AppendResult) { lock.withLock { stored = value } }
    var value: Journal.AppendResult? { lock.withLock { stored } }
}

@Suite struct JournalTests {
    @Test func appendedLinesAreOnDiskInASealedSegmentOnceAcknowledged() throws {
        let directory = TemporaryDirectory()
        let journal = try Journal(directory: directory.file("j"), commitInterval: .zero)
        #expect(appendAndWait(journal, "{\"a\":1}\n") == .durable)
        #expect(appendAndWait(journal, "{\"a\":2}\n") == .durable)
        #expect(journal.backlogBytes == 16)
        let segments = journal.sealForEpoch()
        #expect(segments.count == 1)
        #expect(segments[0].path.hasSuffix(".ndjson"))
        #expect(String(decoding: FileManager.default.contents(atPath: segments[0].path)!, as: UTF8.self) == "{\"a\":1}\n{\"a\":2}\n")
        journal.consumed(segments)
        #expect(journal.backlogBytes == 0)
        #expect(!FileManager.default.fileExists(atPath: segments[0].path))
    }

    @Test func aGroupThatWouldEatIntoTheDiskReserveIsRefusedAndNothingOfItIsWritten() throws {
        let directory = TemporaryDirectory()
        // A reserve larger than any disk: no group fits (the tmpfs end-to-end test fills a real one).
        let journal = try Journal(directory: directory.file("j"), commitInterval: .zero, diskReserve: 1 << 60)
        guard case let .failed(message) = appendAndWait(journal, "{\"a\":1}\n") else {
            Issue.record("a group past the reserve was written")
            return
        }
        #expect(message.contains("the journal's disk is full"), "\(message)")
        #expect(message.contains("\(1 << 60) are kept for the epochs"))
        #expect(journal.sealForEpoch().isEmpty)
        #expect(journal.backlogBytes == 0)
    }

    @Test func aSegmentIsSealedBySizeAndNamesOnlyGrow() throws {
        let directory = TemporaryDirectory()
        let journal = try Journal(directory: directory.file("j"), segmentBytes: 5, commitInterval: .zero)
        for index in 0..<3 { #expect(appendAndWait(journal, "{\"n\":\(index)}\n") == .durable) }
        let segments = journal.sealForEpoch()
        #expect(segments.count == 3)
        #expect(segments.map(\.number) == segments.map(\.number).sorted())
        #expect(Set(segments.map(\.number)).count == 3)
    }

    @Test func aTornTailLeftByACrashIsCutBackToTheLastWholeLineAndSealed() throws {
        let directory = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("j"), withIntermediateDirectories: true)
        let torn = directory.file("j/" + Journal.name(5, sealed: false))
        try Data("{\"a\":1}\n{\"a\":2}\n{\"a\":".utf8).write(to: URL(fileURLWithPath: torn))
        let emptyTorn = directory.file("j/" + Journal.name(7, sealed: false))
        try Data("{\"b\":".utf8).write(to: URL(fileURLWithPath: emptyTorn))
        let journal = try Journal(directory: directory.file("j"), commitInterval: .zero)
        let segments = journal.sealForEpoch()
        #expect(segments.count == 1)
        #expect(String(decoding: FileManager.default.contents(atPath: segments[0].path)!, as: UTF8.self) == "{\"a\":1}\n{\"a\":2}\n")
        #expect(!FileManager.default.fileExists(atPath: emptyTorn))
        // New segments are numbered after what was found.
        #expect(appendAndWait(journal, "{\"c\":1}\n") == .durable)
        #expect(journal.sealForEpoch().last!.number > 7)
    }

    @Test func aSecondJournalOnTheSameDirectoryIsRefused() throws {
        let directory = TemporaryDirectory()
        let journal = try Journal(directory: directory.file("j"))
        #expect(throws: JournalError.locked(path: directory.file("j"))) { _ = try Journal(directory: directory.file("j")) }
        _ = journal
    }

    @Test func anAppendPastTheBacklogLimitIsAnsweredBackloggedAndAClosedJournalTakesNothing() throws {
        let directory = TemporaryDirectory()
        let journal = try Journal(directory: directory.file("j"), commitInterval: .zero, maxBacklog: 20)
        #expect(appendAndWait(journal, "{\"a\":\"0123456\"}\n") == .durable)
        #expect(appendAndWait(journal, "{\"a\":\"0123456\"}\n") == .backlogged)
        #expect(journal.isBacklogged == false)
        journal.closeForShutdown()
        #expect(appendAndWait(journal, "{}\n") == .closed)
        #expect(journal.sealForEpoch().count == 1)
    }
}
