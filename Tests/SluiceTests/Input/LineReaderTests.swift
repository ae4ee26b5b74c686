#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import Sluice
import SluiceTestSupport

@Suite struct LineReaderTests {
    /// Reads every line of a file as (text, number), or "TOO LONG n" entries.
    private func lines(_ path: String, maxLineBytes: Int = 1 << 20, stop: StopAfter? = nil) throws -> [String] {
        let reader = try LineReader.open(path, maxLineBytes: maxLineBytes, pacing: stop?.pacing)
        var result: [String] = []
        while let line = try reader.nextServing(stop) {
            switch line {
            case let .line(buffer, number): result.append("\(number):" + String(decoding: buffer, as: UTF8.self))
            case let .tooLong(preview, length, number): result.append("\(number):TOO LONG \(length) \(preview.count)")
            case let .cutShort(buffer, number): result.append("\(number):CUT " + String(decoding: buffer, as: UTF8.self))
            case let .damaged(buffer, number): result.append("\(number):DAMAGED " + String(decoding: buffer, as: UTF8.self))
            case .paused: Issue.record("a pause not served")
            }
        }
        return result
    }

    @Test func crlfEndingsAndAFinalLineWithoutNewlineAreRead() throws {
        let directory = TemporaryDirectory()
        let path = directory.write("in.ndjson", "a\r\nb\n\nc")
        #expect(try lines(path) == ["1:a", "2:b", "3:", "4:c"])
    }

    @Test func linesSpanningManyReadsComeBackWhole() throws {
        let directory = TemporaryDirectory()
        let long = String(repeating: "x", count: 700_000)
        let path = directory.write("in.ndjson", "first\n" + long + "\nlast\n")
        let result = try lines(path)
        #expect(result.count == 3)
        #expect(result[1] == "2:" + long)
        #expect(result[2] == "3:last")
    }

    @Test func aLineOverTheLimitIsReportedWithAPreviewAndTheNextLineIsIntact() throws {
        let directory = TemporaryDirectory()
        // 5 MB line with a 1 KiB limit: the reader must stream past it, not hold it.
        let long = String(repeating: "y", count: 5_000_000)
        let path = directory.write("in.ndjson", "ok\n" + long + "\nafter\n")
        #expect(try lines(path, maxLineBytes: 1024) == ["1:ok", "2:TOO LONG 5000000 1024", "3:after"])
    }

    @Test func aByteOrderMarkAtTheStartOfAFileIsNotPartOfTheFirstLineAndOnlyThere() throws {
        let directory = TemporaryDirectory()
        let bom = "\u{FEFF}"
        #expect(try lines(directory.write("a.ndjson", bom + "{}\n" + bom + "{}\n")) == ["1:{}", "2:" + bom + "{}"])
        #expect(try lines(directory.write("b.ndjson", bom + "{}")) == ["1:{}"])
        #expect(try lines(directory.write("c.ndjson.gz", TestGzip.compress(Array((bom + "{}\n").utf8)))) == ["1:{}"])
    }

    @Test func aTooLongLastLineWithoutNewlineIsStillReported() throws {
        let directory = TemporaryDirectory()
        let path = directory.write("in.ndjson", "ok\n" + String(repeating: "z", count: 2000))
        #expect(try lines(path, maxLineBytes: 100) == ["1:ok", "2:TOO LONG 2000 1024"])
    }

    @Test func gzipInputsAreDetectedAndMultiMemberFilesReadWhole() throws {
        let directory = TemporaryDirectory()
        let path = directory.write("in.ndjson.gz", TestGzip.compress(Array("a\nb\n".utf8)) + TestGzip.compress(Array("c\n".utf8)))
        #expect(try lines(path) == ["1:a", "2:b", "3:c"])
    }

    @Test func corruptGzipIsAnErrorNamingTheFileAfterTheGoodLines() throws {
        let directory = TemporaryDirectory()
        var good = TestGzip.compress(Array("a\nb\n".utf8))
        let bad = TestGzip.compress(Array(String(repeating: "line\n", count: 1000).utf8))
        var broken = bad
        for index in 20..<40 { broken[index] ^= 0x5A }
        good += broken
        let path = directory.write("bad.ndjson.gz", good)
        let reader = try LineReader.open(path, maxLineBytes: 1 << 20)
        var seen: [String] = []
        do {
            while let line = try reader.next() {
                if case let .line(buffer, _) = line { seen.append(String(decoding: buffer, as: UTF8.self)) }
            }
            Issue.record("corrupt gzip was read without error")
        } catch let error as InputError {
            guard case let .corruptGzip(file, offset, _) = error else { Issue.record("wrong error \(error)"); return }
            #expect(file == path)
            #expect(offset > 0)
        }
        #expect(Array(seen.prefix(2)) == ["a", "b"])
    }

    @Test func truncatedGzipIsAnError() throws {
        let directory = TemporaryDirectory()
        let whole = TestGzip.compress(Array(String(repeating: "line\n", count: 100).utf8))
        let path = directory.write("cut.gz", Array(whole.prefix(whole.count - 6)))
        let reader = try LineReader.open(path, maxLineBytes: 1 << 20)
        #expect(throws: InputError.self) {
            while try reader.next() != nil {}
        }
    }

    @Test func aMissingFileCannotBeOpened() {
        #expect(throws: InputError.self) { try LineReader.open("/nonexistent/file.ndjson", maxLineBytes: 100) }
    }

    @Test func aStopOnARegularFileFinishesTheLineBeingReadAndReadsNothingAfterIt() throws {
        let directory = TemporaryDirectory()
        let line = String(repeating: "x", count: 999) + "\n"
        let path = directory.write("in.ndjson", String(repeating: line, count: 600))
        // The gzip sniff reads 2 bytes, then one 256 KiB read, then the stop:
        // the line that read ended in is read to its end, and nothing more.
        let result = try lines(path, stop: StopAfter(reads: 2))
        let read = (2 + LineReader.readSize) / 1000 + 1
        #expect(result.count == read)
        #expect(result.allSatisfy { $0.hasSuffix(":" + String(repeating: "x", count: 999)) })
    }

    @Test func aStopOnAGzipFileFinishesTheLineBeingRead() throws {
        let directory = TemporaryDirectory()
        // Lines of letters that do not repeat, so the gzip data takes several reads.
        var state: UInt64 = 1
        var text: [UInt8] = []
        for _ in 0..<3000 {
            for _ in 0..<999 {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                text.append(UInt8(97 + (state >> 33) % 26))
            }
            text.append(0x0A)
        }
        // Members that end inside lines, as `cat`ted gzip files may: the stop finds a line half handed out.
        var gzip: [UInt8] = []
        for start in stride(from: 0, to: text.count, by: 100_003) {
            gzip += TestGzip.compress(Array(text[start..<min(start + 100_003, text.count)]))
        }
        let path = directory.write("in.ndjson.gz", gzip)
        let result = try lines(path, stop: StopAfter(reads: 3))
        #expect(!result.isEmpty && result.count < 3000)
        #expect(result.allSatisfy { $0.split(separator: ":", maxSplits: 1).last?.count == 999 })
    }

    @Test func aStopOnAPipeCutsThePartialLastLineShort() throws {
        let line = String(repeating: "x", count: 999) + "\n"
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        // 1.5 lines in the pipe, its write end left open: the reader has all a pipe can give.
        let bytes = Array((line + String(repeating: "x", count: 500)).utf8)
        #expect(bytes.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) } == bytes.count)
        defer { close(fds[1]) }
        let stop = StopAfter(reads: 1)
        let source = FileByteSource(path: "pipe", fd: fds[0], ownsDescriptor: true, pacing: stop.pacing)
        let reader = LineReader(path: "pipe", source: source, maxLineBytes: 1 << 20)
        var result: [String] = []
        while let got = try reader.nextServing(stop) {
            switch got {
            case let .line(buffer, number): result.append("\(number):" + String(decoding: buffer, as: UTF8.self))
            case let .cutShort(buffer, number): result.append("\(number):CUT \(buffer.count)")
            default: result.append("other")
            }
        }
        #expect(result == ["1:" + String(repeating: "x", count: 999), "2:CUT 500"])
    }

    @Test func aReaderThatPausesBeforeEveryRefillAndReadResumesToTheSameLines() throws {
        let directory = TemporaryDirectory()
        var text = ""
        for number in 1...3000 { text += "{\"n\":\(number)}" + String(repeating: "y", count: number % 700) + (number % 5 == 0 ? "\r\n" : "\n") }
        text += "last without newline"
        let path = directory.write("in.ndjson", text)
        let run = StopAfter()
        #expect(try lines(path, maxLineBytes: 600, stop: run) == lines(path, maxLineBytes: 600))
        // Each refill paused first, and each read(2): the sniff's, and every refill's but the first (it takes the two bytes sniffed).
        #expect(run.readPauses == run.refillPauses)
        #expect(run.refillPauses > 2)
    }

    @Test func aReadThatWouldWaitForAPipeReturnsFirstSayingSoAndResumesOnceDataCame() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let run = StopAfter()
        let reader = LineReader(path: "pipe", source: FileByteSource(path: "pipe", fd: fds[0], ownsDescriptor: true, pacing: run.pacing),
                                maxLineBytes: 1 << 20, pacing: run.pacing)
        // Nothing written yet: the reader returns rather than wait, and says what it would wait on.
        guard case .paused? = try reader.next() else { Issue.record("no pause"); return }
        #expect(run.pacing.due == .refill)
        guard case .paused? = try reader.next() else { Issue.record("no pause"); return }
        #expect(run.pacing.due == .read(fd: fds[0], mayBlock: true))
        let bytes = Array("a\nb\n".utf8)
        #expect(bytes.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) } == bytes.count)
        close(fds[1])
        var got: [String] = []
        while let line = try reader.nextServing(run) {
            if case let .line(buffer, number) = line { got.append("\(number):" + String(decoding: buffer, as: UTF8.self)) }
        }
        #expect(got == ["1:a", "2:b"])
    }

    @Test func aStopWhileSniffingTheFormatEndsTheInputCleanly() throws {
        let directory = TemporaryDirectory()
        let path = directory.write("in.ndjson", "{}\n")
        #expect(try lines(path, stop: StopAfter(reads: 0)).isEmpty)
    }

    /// Every line of a reader read 16 KiB at a time, and the memory its buffer took after each.
    private func residentAfterEachLine(_ text: String, maxLineBytes: Int) throws -> (lines: [String], resident: [Int], kept: Int) {
        let reader = LineReader(path: "t", source: MemoryByteSource(Array(text.utf8)), maxLineBytes: maxLineBytes, readSize: 16 * 1024)
        var lines: [String] = []
        var resident: [Int] = []
        while let line = try reader.next() {
            switch line {
            case let .line(buffer, number): lines.append("\(number):\(buffer.count)")
            case let .tooLong(_, length, number): lines.append("\(number):TOO LONG \(length)")
            default: lines.append("other")
            }
            resident.append(reader.residentBytes)
        }
        return (lines, resident, reader.keptBytes)
    }

    @Test func aLineBufferOfShortLinesTakesAboutTwoReads() throws {
        let (lines, resident, kept) = try residentAfterEachLine(String(repeating: String(repeating: "s", count: 499) + "\n", count: 2000),
                                                               maxLineBytes: 1 << 20)
        #expect(lines.count == 2000)
        #expect(resident.allSatisfy { $0 <= kept })
    }

    @Test func theLineBufferShrinksOnceAHugeLineIsRead() throws {
        let short = String(repeating: "s", count: 99) + "\n"
        let text = String(repeating: short, count: 500) + String(repeating: "h", count: 900_000) + "\n" + String(repeating: short, count: 2000)
        let (lines, resident, kept) = try residentAfterEachLine(text, maxLineBytes: 1 << 20)
        #expect(lines.count == 2501 && lines[500] == "501:900000" && lines[501] == "502:99")
        // The huge line took its pages; from the line after it on, the buffer is back to two reads.
        #expect(resident[500] >= 900_000)
        #expect(resident[501...].allSatisfy { $0 <= kept })
    }

    @Test func aTooLongLineStreamsPastWithoutKeepingItsPages() throws {
        let short = String(repeating: "s", count: 99) + "\n"
        let text = short + String(repeating: "y", count: 3_000_000) + "\n" + String(repeating: short, count: 1000)
        let (lines, resident, kept) = try residentAfterEachLine(text, maxLineBytes: 500_000)
        #expect(lines.count == 1002 && lines[1] == "2:TOO LONG 3000000")
        #expect(resident[1...].allSatisfy { $0 <= kept })
    }
}
