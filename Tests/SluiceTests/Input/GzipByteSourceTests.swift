#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
@testable import Sluice
import SluiceTestSupport

/// No line of a gzip member reaches the reader's caller as a line before the
/// member's CRC-32 and length are checked, whether the member is held, checked
/// ahead in a regular file, or held in a temporary file on a pipe.
@Suite struct GzipByteSourceTests {
    enum How: CaseIterable {
        /// A regular file, members held whole (the default hold is larger than them).
        case fileHeld
        /// A regular file whose members outgrow a 4 KiB hold: checked ahead with pread.
        case fileCheckedAhead
        /// A pipe whose members outgrow a 4 KiB hold: held in a temporary file.
        case pipeSpilled
        /// A regular file read with the sizes of one of 1,000 merged inputs
        /// (64 KiB reads and hold): members up to 64 KiB held, larger ones checked ahead.
        case fileMergedWithMany
    }

    /// The lines read as "N:text", "N:DAMAGED text", and the error at the end, if any.
    /// `run`: the reads pause (before each refill and each read of the file), served by it.
    private func read(_ bytes: [UInt8], _ how: How, run: StopAfter? = nil) throws -> (lines: [String], error: InputError?) {
        let directory = TemporaryDirectory()
        let upstream: FileByteSource
        var writer: Thread?
        switch how {
        case .fileHeld, .fileCheckedAhead, .fileMergedWithMany:
            let path = directory.write("in.gz", bytes)
            upstream = try FileByteSource.open(path, pacing: run?.pacing)
        case .pipeSpilled:
            // The reader may close its end before the writer is done (damage ends the input).
            _ = signal(SIGPIPE, SIG_IGN)
            var fds: [Int32] = [0, 0]
            #expect(pipe(&fds) == 0)
            let writeEnd = fds[1]
            writer = Thread {
                var written = 0
                while written < bytes.count {
                    let n = bytes.withUnsafeBytes { write(writeEnd, $0.baseAddress! + written, bytes.count - written) }
                    if n <= 0 { break }
                    written += n
                }
                close(writeEnd)
            }
            writer!.start()
            upstream = FileByteSource(path: "pipe", fd: fds[0], ownsDescriptor: true, pacing: run?.pacing)
        }
        let buffers = switch how {
        case .fileHeld: InputBuffers.single
        case .fileCheckedAhead, .pipeSpilled: InputBuffers(readBytes: LineReader.readSize, fileHoldBytes: 4096, pipeHoldBytes: 4096)
        case .fileMergedWithMany: InputBuffers.forOpenInputs(1000)
        }
        let source = GzipByteSource(upstream: upstream, buffers: buffers)
        let reader = LineReader(path: "in.gz", source: source, maxLineBytes: 1 << 20, readSize: buffers.readBytes, pacing: run?.pacing)
        var lines: [String] = []
        do {
            while let line = try reader.nextServing(run) {
                switch line {
                case let .line(buffer, number): lines.append("\(number):" + String(decoding: buffer, as: UTF8.self))
                case let .damaged(buffer, number): lines.append("\(number):DAMAGED " + String(decoding: buffer, as: UTF8.self))
                case let .tooLong(_, length, number): lines.append("\(number):TOO LONG \(length)")
                case let .cutShort(buffer, number): lines.append("\(number):CUT " + String(decoding: buffer, as: UTF8.self))
                case .paused: Issue.record("a pause not served")
                }
            }
            return (lines, nil)
        } catch let error as InputError {
            return (lines, error)
        }
    }

    private func member(_ prefix: String, _ count: Int) -> [UInt8] {
        TestGzip.compress(Array((1...count).map { "{\"\(prefix)\":\($0)}\n" }.joined().utf8))
    }

    private func lines(_ prefix: String, _ range: ClosedRange<Int>, damaged: Bool = false, from first: Int) -> [String] {
        range.enumerated().map { "\(first + $0.offset):" + (damaged ? "DAMAGED " : "") + "{\"\(prefix)\":\($0.element)}" }
    }

    @Test(arguments: How.allCases)
    func intactMembersAreReadWholeHoweverTheyAreChecked(how: How) throws {
        let (got, error) = try read(member("a", 2000) + member("b", 3) + member("c", 1500), how)
        #expect(error == nil)
        #expect(got == lines("a", 1...2000, from: 1) + lines("b", 1...3, from: 2001) + lines("c", 1...1500, from: 2004))
    }

    @Test(arguments: How.allCases)
    func aReaderThatPausesAtEveryReadResumesToTheSameLinesAndError(how: How) throws {
        let first = member("a", 10)
        var second = member("b", 2000)
        second[second.count - 8] ^= 0x01
        // Letters that do not repeat first, so the compressed bytes take several reads.
        let bytes = TestGzip.compress(letterLines(600, width: 999, seed: 9)) + first + second + member("c", 5)
        let run = StopAfter()
        let paced = try read(bytes, how, run: run)
        let straight = try read(bytes, how)
        #expect(paced.lines.count == 600 + 10 + 2000)
        #expect(paced.lines == straight.lines)
        guard case let .corruptGzip(_, offset, message)? = paced.error, case .corruptGzip(_, offset, message)? = straight.error else {
            Issue.record("not the same error: \(String(describing: paced.error)), \(String(describing: straight.error))")
            return
        }
        // Each refill paused for the outputs, and each read of the file (checks ahead included) for the signals.
        #expect(run.refillPauses > 1 && run.readPauses > 1)
    }

    @Test(arguments: How.allCases)
    func aMemberWhoseCRCDoesNotMatchHasEveryLineRejectedAndTheErrorNamesTheMember(how: How) throws {
        let first = member("a", 10)
        var second = member("b", 2000)
        // The CRC-32 in the trailer, not the data: every line inflates intact, and still none goes on.
        second[second.count - 8] ^= 0x01
        let (got, error) = try read(first + second + member("c", 5), how)
        #expect(got == lines("a", 1...10, from: 1) + lines("b", 1...2000, damaged: true, from: 11))
        guard case let .corruptGzip(_, offset, message) = try #require(error) else { Issue.record("wrong error"); return }
        #expect(offset == first.count)
        #expect(message.contains("fails its CRC-32 check"))
    }

    @Test(arguments: How.allCases)
    func garbageAfterTheLastMemberIsReportedAtItsFirstByte(how: How) throws {
        let first = member("a", 10)
        let (got, error) = try read(first + Array("not gzip at all\n".utf8), how)
        #expect(got == lines("a", 1...10, from: 1))
        guard case let .corruptGzip(_, offset, message) = try #require(error) else { Issue.record("wrong error"); return }
        #expect(offset == first.count, "the garbage starts at byte \(first.count)")
        #expect(message.contains("incorrect header check"), "\(message)")
    }

    @Test(arguments: How.allCases)
    func aFlippedBitInsideAMemberNeverDeliversAlteredLines(how: How) throws {
        let text = (1...3000).map { "{\"anonymousId\":\"dev-\($0)\"}\n" }.joined()
        let whole = TestGzip.compress(Array(text.utf8))
        for position in stride(from: 40, to: whole.count - 8, by: max(1, whole.count / 25)) {
            var flipped = whole
            flipped[position] ^= 0x10
            let (got, error) = try read(flipped, how)
            // One member, damaged: not one of its lines goes on, altered or not.
            #expect(got.allSatisfy { $0.contains(":DAMAGED ") }, "flipped byte \(position)")
            #expect(error != nil)
        }
    }

    @Test(arguments: How.allCases)
    func aTruncatedMemberRejectsItsLinesAndTheLineTheCutWentThrough(how: How) throws {
        let first = member("a", 10)
        let second = member("b", 3000)
        let cut = Array((first + second).prefix(first.count + second.count / 2))
        let (got, error) = try read(cut, how)
        #expect(Array(got.prefix(10)) == lines("a", 1...10, from: 1))
        let rest = got.dropFirst(10)
        #expect(!rest.isEmpty)
        #expect(rest.allSatisfy { $0.contains(":DAMAGED ") })
        // The last one is the line the cut went through: part of a line, accounted as damaged.
        #expect(rest.last.map { !$0.hasSuffix("}") } == true)
        guard case let .corruptGzip(_, offset, message) = try #require(error) else { Issue.record("wrong error"); return }
        #expect(offset == cut.count)
        #expect(message.contains("truncated"))
    }

    @Test func aLineFinishedAfterAStopStillWaitsForItsMembersCheck() throws {
        // Letters that do not repeat, so the second member takes more than one read.
        var state: UInt64 = 7
        func letters(_ count: Int) -> [UInt8] {
            (0..<count).map { _ in
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return UInt8(97 + (state >> 33) % 26)
            }
        }
        var first: [UInt8] = []
        for _ in 0..<100 { first += letters(999) + [0x0A] }
        first += letters(500)
        var second = letters(499) + [0x0A]
        for _ in 0..<600 { second += letters(999) + [0x0A] }
        var damaged = TestGzip.compress(second)
        damaged[damaged.count - 8] ^= 0x01
        let directory = TemporaryDirectory()
        let path = directory.write("in.gz", TestGzip.compress(first) + damaged)
        // The sniff, then one read of 256 KiB: the first member and the start of the second; then the stop.
        let stop = StopAfter(reads: 2)
        let reader = try LineReader.open(path, maxLineBytes: 1 << 20, pacing: stop.pacing)
        var kinds: [String] = []
        do {
            while let line = try reader.nextServing(stop) {
                switch line {
                case .line: kinds.append("line")
                case .damaged: kinds.append("damaged")
                default: kinds.append("other")
                }
            }
        } catch is InputError {}
        // The line the stop fell in ends in the damaged member: it is rejected, not delivered.
        #expect(Array(kinds.prefix(100)) == Array(repeating: "line", count: 100))
        #expect(kinds.count > 100 && kinds[100] == "damaged")
        #expect(!kinds.dropFirst(100).contains("line"))
    }

    @Test func aLineCutByDamageAtAMemberBoundaryIsRejectedNotLost() throws {
        // The first member ends inside a line; the next member's header is garbage.
        let first = TestGzip.compress(Array("{\"a\":1}\n{\"a\":2".utf8))
        let (got, error) = try read(first + [0x1F, 0x8B, 0x99, 0x99, 0x99], .fileHeld)
        #expect(got == ["1:{\"a\":1}", "2:DAMAGED {\"a\":2"])
        #expect(error != nil)
    }

    /// Letters that do not repeat, so a member's compressed size is close to its own.
    private func letterLines(_ count: Int, width: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        var text: [UInt8] = []
        for _ in 0..<count {
            for _ in 0..<width {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                text.append(UInt8(97 + (state >> 33) % 26))
            }
            text.append(0x0A)
        }
        return text
    }

    @Test func aHoldGivesBackItsMemoryAfterAMemberLargerThanItIsCheckedAheadAndHandedOut() throws {
        // A 3 MB member (checked ahead past the 1 MiB hold), then a small one.
        let large = letterLines(3000, width: 999, seed: 3)
        let directory = TemporaryDirectory()
        let path = directory.write("in.gz", TestGzip.compress(large) + member("b", 100))
        let source = GzipByteSource(upstream: try FileByteSource.open(path))
        let reader = LineReader(path: path, source: source, maxLineBytes: 1 << 20)
        var count = 0
        var residentWhileHolding = 0
        while let line = try reader.next() {
            guard case .line = line else { Issue.record("line \(count + 1) not delivered"); break }
            count += 1
            residentWhileHolding = max(residentWhileHolding, source.holdResidentBytes)
        }
        #expect(count == 3100)
        #expect(residentWhileHolding == GzipByteSource.fileHoldBytes)
        #expect(source.holdResidentBytes <= GzipMemberHold.keptBytes)
    }

    /// Puts members of these sizes through a hold one after another; the memory its pages take after each.
    private func residentAfterMembers(_ sizes: [Int], limit: Int) throws -> [Int] {
        let hold = GzipMemberHold(memoryLimit: limit, path: "in.gz")
        var scratch = [UInt8](repeating: 0, count: limit)
        var resident: [Int] = []
        for size in sizes {
            let room = try #require(hold.room())
            let n = min(size, room.count)
            memset(room.baseAddress!, 0x61, n)
            hold.commit(n)
            // A member larger than the hold fills it: it is checked ahead, and the rest goes on without the hold.
            if size >= limit { #expect(hold.room() == nil) }
            #expect(hold.residentBytes >= n)
            while try scratch.withUnsafeMutableBytes({ try hold.handOut(into: $0) }) > 0 {}
            hold.clear()
            resident.append(hold.residentBytes)
        }
        return resident
    }

    @Test func aHoldGivesBackItsPagesWhenASmallMemberFollowsALargeOne() throws {
        let kept = GzipMemberHold.keptBytes
        let resident = try residentAfterMembers([1000, 900_000, 900_000, 1000, 5000], limit: 1 << 20)
        // Members of about the same large size keep the pages; a small one after them gives them back.
        #expect(resident[0] <= kept && resident[1] >= 900_000 && resident[2] >= 900_000)
        #expect(resident[3] <= kept && resident[4] <= kept)
    }

    @Test func aHoldGivesBackItsPagesAfterAMemberThatFilledIt() throws {
        let resident = try residentAfterMembers([3_000_000, 2_000_000], limit: 1 << 20)
        #expect(resident.allSatisfy { $0 <= GzipMemberHold.keptBytes })
    }

    @Test func aMemberLargerThanAMergedInputsHoldIsStillCheckedBeforeAnyLineGoesOn() throws {
        // 600 KB inflated: past the 64 KiB hold of one of 1,000 merged inputs.
        let text = letterLines(600, width: 999, seed: 5)
        var damaged = TestGzip.compress(text)
        damaged[damaged.count - 8] ^= 0x01
        var truncated = TestGzip.compress(text)
        truncated.removeLast(truncated.count / 2)
        for (bytes, what) in [(damaged, "CRC-32"), (truncated, "truncated")] {
            let (got, error) = try read(member("a", 10) + bytes, .fileMergedWithMany)
            #expect(Array(got.prefix(10)) == lines("a", 1...10, from: 1))
            #expect(got.count > 10 && got.dropFirst(10).allSatisfy { $0.contains(":DAMAGED ") }, "\(what)")
            guard case let .corruptGzip(_, _, message) = try #require(error) else { Issue.record("wrong error"); continue }
            #expect(message.contains(what))
        }
    }
}
