import Testing
@testable import Sluice
import SluiceJSON
import SluiceTestSupport

@Suite struct EventTimeMergeTests {
    /// A track line at `08:MM:SS` (seconds after 08:00), named `name`.
    private func event(_ name: String, _ seconds: Int) -> String {
        let time = "2026-11-20T08:\(pad(seconds / 60)):\(pad(seconds % 60))Z"
        return #"{"type":"track","event":"\#(name)","anonymousId":"d","timestamp":"\#(time)"}"#
    }

    private func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    private func inputs(_ files: [[String]], in directory: TemporaryDirectory, maxLineBytes: Int = 1 << 20) -> [InputLines] {
        let reading = InputReading(maxLineBytes: maxLineBytes, scratch: JSONParseScratch())
        return files.enumerated().map { index, lines in
            let path = directory.write("in-\(index).ndjson", lines.map { $0 + "\n" }.joined())
            return InputLines(path: path, source: Int32(index), reading: reading)
        }
    }

    /// Every record the merge lets out gives (`InputFeed.drainedNames`).
    private func drain(_ merge: EventTimeMerge) throws -> [String] { try merge.drainedNames() }

    @Test func inputsEachInEventTimeOrderComeOutAsOneStreamInEventTimeOrder() throws {
        let directory = TemporaryDirectory()
        let files = [[event("a1", 1), event("a2", 4), event("a3", 9)],
                     [event("b1", 2), event("b2", 3), event("b3", 10)],
                     [event("c1", 5), event("c2", 6)]]
        let merge = EventTimeMerge(inputs(files, in: directory), window: .seconds(300), bufferBytes: 1 << 20)
        #expect(try drain(merge) == ["a1", "b1", "b2", "a2", "c1", "c2", "a3", "b3"])
        #expect(merge.counts.outOfOrder == 0 && merge.counts.letOutFull == 0 && merge.counts.held == 0)
    }

    @Test func windowZeroIsAPlainMergeOfTheInputsHeadsHoldingOneLineEach() throws {
        let directory = TemporaryDirectory()
        let files = [[event("a1", 1), event("a2", 4), event("a3", 9)], [event("b1", 2), event("b2", 3), event("b3", 10)]]
        let merge = EventTimeMerge(inputs(files, in: directory), window: .zero, bufferBytes: 1 << 20)
        #expect(try drain(merge) == ["a1", "b1", "b2", "a2", "a3", "b3"])
        #expect(merge.counts.heldHighWater <= 2)
    }

    @Test func equalTimesGoByInputOrderThenLineOrder() throws {
        let directory = TemporaryDirectory()
        let files = [[event("a1", 5), event("a2", 5)], [event("b1", 5), event("b2", 5)], [event("c1", 1), event("c2", 5)]]
        let merge = EventTimeMerge(inputs(files, in: directory), window: .seconds(60), bufferBytes: 1 << 20)
        #expect(try drain(merge) == ["c1", "a1", "a2", "b1", "b2", "c2"])
    }

    @Test func theOrderDoesNotDependOnHowTheSameLinesFallIntoFiles() throws {
        // One stream in time order, split two ways: the merge gives the stream back both times.
        let stream = (0..<40).map { event("e\($0)", $0 * 4) }
        let roundRobin = (0..<3).map { part in stream.indices.filter { $0 % 3 == part }.map { stream[$0] } }
        let halves = [Array(stream[..<20]), Array(stream[20...])]
        let expected = (0..<40).map { "e\($0)" }
        let directory = TemporaryDirectory(), other = TemporaryDirectory()
        #expect(try drain(EventTimeMerge(inputs(roundRobin, in: directory), window: .seconds(300), bufferBytes: 1 << 20)) == expected)
        #expect(try drain(EventTimeMerge(inputs(halves, in: other), window: .zero, bufferBytes: 1 << 20)) == expected)
    }

    @Test func aLineWithinTheWindowBehindItsInputIsPutInPlace() throws {
        let directory = TemporaryDirectory()
        // a3 is 4 minutes behind a2 in its own input: within a 5-minute window.
        let files = [[event("a1", 0), event("a2", 300), event("a3", 60)], [event("b1", 30), event("b2", 120), event("b3", 400)]]
        let merge = EventTimeMerge(inputs(files, in: directory), window: .seconds(300), bufferBytes: 1 << 20)
        #expect(try drain(merge) == ["a1", "b1", "a3", "b2", "a2", "b3"])
        #expect(merge.counts.outOfOrder == 0)
    }

    @Test func aLineLaterThanTheWindowGoesOnAsItIsReadAndIsCountedOutOfOrder() throws {
        let directory = TemporaryDirectory()
        // a3 is 20 minutes behind a2; with a 1-minute window it comes out after b2 (08:10) was let out.
        let files = [[event("a1", 0), event("a2", 1500), event("a3", 300)],
                     [event("b1", 30), event("b2", 600), event("b3", 1600), event("b4", 1700)]]
        let merge = EventTimeMerge(inputs(files, in: directory), window: .seconds(60), bufferBytes: 1 << 20)
        let names = try drain(merge)
        #expect(names.sorted() == ["a1", "a2", "a3", "b1", "b2", "b3", "b4"], "nothing lost or doubled")
        #expect(names.firstIndex(of: "a3")! > names.firstIndex(of: "b2")!)
        #expect(merge.counts.outOfOrder == 1)
    }

    @Test func aLineRejectedAtInputKeepsItsPlaceAfterTheLineBeforeItInItsInput() throws {
        let directory = TemporaryDirectory()
        let files = [["not json", event("a1", 10), #"{"type":"track"}"#, event("a2", 50)],
                     [event("b1", 20), event("b2", 30), String(repeating: "x", count: 200), event("b3", 60)]]
        let merge = EventTimeMerge(inputs(files, in: directory, maxLineBytes: 100), window: .seconds(300), bufferBytes: 1 << 20)
        #expect(try drain(merge) == ["!invalid_json", "a1", "!missing_identity", "b1", "b2", "!line_too_long", "a2", "b3"])
    }

    @Test func aFullBufferLetsTheOldestOutEarlyCountedAndLosesNothing() throws {
        let directory = TemporaryDirectory()
        // One input far ahead of the other: a 10-hour window holds everything until the
        // byte bound, which here is about three lines.
        let early = (0..<20).map { event("a\($0)", $0) }
        let late = (0..<20).map { event("b\($0)", 3000 + $0) }
        let files = [late, early]
        // No line takes more than one with a three-character name.
        let oneLine = ReorderBuffer.footprint(of: try #require(try InputLines.decodedForTest(event("x00", 0))))
        let merge = EventTimeMerge(inputs(files, in: directory), window: .seconds(36_000), bufferBytes: 3 * oneLine)
        let names = try drain(merge)
        #expect(names.count == 40 && Set(names).count == 40)
        #expect(merge.counts.letOutFull > 0)
        #expect(merge.counts.heldBytesHighWater <= 4 * oneLine)
        #expect(merge.counts.held == 0)
    }

    @Test func stoppedWithoutDrainingItLetsOutWhatItHoldsAndReadsNothingMore() throws {
        let directory = TemporaryDirectory()
        let files = [[event("a1", 1), event("a2", 200), event("a3", 700), event("a4", 800)],
                     [event("b1", 100), event("b2", 300), event("b3", 900)]]
        let inputs = inputs(files, in: directory)
        let merge = EventTimeMerge(inputs, window: .seconds(60), bufferBytes: 1 << 20)
        guard case .event(let first)? = try merge.next() else { Issue.record("an event first"); return }
        #expect(first.nameString == "a1")
        let read = inputs.reduce(0) { $0 + $1.nonBlankLines }
        #expect(read == 3, "a1 goes on once b1 is read and a2 raised a's bound past it")
        merge.stop(drainRead: false)
        #expect(try drain(merge) == ["b1", "a2"], "what was read comes out; nothing more is read")
        #expect(inputs.allSatisfy { $0.finished })
    }

    @Test func anInputThatFailsEndsAloneAndTheOthersGoOn() throws {
        let directory = TemporaryDirectory()
        let reading = InputReading(maxLineBytes: 1 << 20, scratch: JSONParseScratch())
        let good = directory.write("good.ndjson", event("g1", 1) + "\n" + event("g2", 2) + "\n")
        var broken = TestGzip.compress(Array(String(repeating: event("x", 3) + "\n", count: 200).utf8))
        for index in 20..<40 { broken[index] ^= 0x5A }
        let bad = directory.write("bad.ndjson.gz", broken)
        let merge = EventTimeMerge([InputLines(path: bad, source: 0, reading: reading), InputLines(path: good, source: 1, reading: reading)],
                                   window: .seconds(60), bufferBytes: 1 << 20)
        var names: [String] = []
        var failures: [InputError] = []
        while true {
            do {
                guard let record = try merge.next() else { break }
                if case .event(let event) = record { names.append(event.nameString) }
            } catch let error as InputError {
                failures.append(error)
            }
        }
        #expect(failures.count == 1)
        #expect(names.filter { $0.hasPrefix("g") } == ["g1", "g2"])
        #expect(merge.inputs[0].error != nil && merge.inputs[1].error == nil)
    }

    /// Lines of one instant, as a merge holds them: any two, either way round, and five in any
    /// rotation or reversed, go in one order: the events by `EventOrder` (here by messageId),
    /// equal ones by key, then the rejected lines.
    @Test func anInstantsLinesGoInOneOrderWhateverOrderTheyWereHeldIn() throws {
        func held(_ id: String?, line: Int64) -> HeldLine {
            let key = MergeKey(time: 5, input: 0, line: line)
            guard let id else {
                return HeldLine(key: key, record: .rejected(RejectedLine(bytes: Array("x".utf8), origin: Origin(source: 0, line: line),
                                                                         rejection: Rejection(.invalidJSON, "x"), truncatedFrom: nil)))
            }
            let text = #"{"type":"track","event":"e","anonymousId":"d","messageId":"\#(id)","timestamp":"2026-11-20T08:00:00Z"}"#
            let event = try! Array(text.utf8).withUnsafeBufferPointer { try Event.decode($0, origin: Origin(source: 0, line: line)).get() }
            return HeldLine(key: key, record: .event(event))
        }
        func order(_ group: [HeldLine]) -> [Int64] {
            var sorted = group
            EventTimeMerge.sortInstant(&sorted)
            return sorted.reversed().map(\.key.line)
        }
        let lines = [held("b", line: 1), held("a", line: 2), held(nil, line: 3), held("a", line: 4), held(nil, line: 5)]
        // Two of them, both ways round.
        for first in lines.indices {
            for second in lines.indices where second != first {
                let pair = [lines[first], lines[second]]
                #expect(order(pair) == order(pair.reversed()))
            }
        }
        #expect(order([lines[0], lines[1]]) == [2, 1] && order([lines[2], lines[0]]) == [1, 3] && order([lines[3], lines[1]]) == [2, 4])
        // All five, in every rotation and reversed.
        for shift in lines.indices {
            let rotated = Array(lines[shift...] + lines[..<shift])
            #expect(order(rotated) == [2, 4, 1, 3, 5])
            #expect(order(rotated.reversed()) == [2, 4, 1, 3, 5])
        }
    }
}

extension InputLines {
    /// One line decoded as an input would decode it (for sizes in tests).
    static func decodedForTest(_ line: String) throws -> InputRecord? {
        let reading = InputReading(maxLineBytes: 1 << 20, scratch: JSONParseScratch())
        return try InputLines(bytes: Array((line + "\n").utf8), named: "t", source: 0, reading: reading).next()
    }
}
