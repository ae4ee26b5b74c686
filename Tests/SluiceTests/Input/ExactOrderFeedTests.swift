import Foundation
import Testing
@testable import Sluice
import SluiceJSON
import SluiceTestSupport

@Suite struct ExactOrderFeedTests {
    /// A track line `milliseconds` after 2026-11-20T00:00:00Z (less than a day), named `name`, with optional extra members.
    private func event(_ name: String, _ milliseconds: Int, id: String? = nil, extra: String = "") -> String {
        let seconds = milliseconds / 1000
        let time = "2026-11-20T\(pad(seconds / 3600)):\(pad(seconds / 60 % 60)):\(pad(seconds % 60)).\(pad3(milliseconds % 1000))Z"
        let idMember = id.map { #","messageId":"\#($0)""# } ?? ""
        return #"{"type":"track","event":"\#(name)","anonymousId":"d","timestamp":"\#(time)"\#(idMember)\#(extra)}"#
    }

    private func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    private func pad3(_ value: Int) -> String { value < 10 ? "00\(value)" : value < 100 ? "0\(value)" : "\(value)" }

    private struct Made {
        var feed: ExactOrderFeed
        var spill: SpillDirectory
    }

    /// The feed over `files`; `sort` leaves out the window merge, `changed` is what the first read finds instead.
    private func feed(_ files: [[String]], in directory: TemporaryDirectory, budget: Int = 1 << 20,
                      carryFrom: Duration? = nil, carriedIn: [Event] = [], sort: Bool = false, changed: [[String]]? = nil,
                      pacing: ReadPacing? = nil, splitSurveyFrom: Int = SurveyHalf.smallestSplit) -> Made {
        let reading = InputReading(maxLineBytes: 1 << 20, pacing: pacing, scratch: JSONParseScratch())
        let paths = files.enumerated().map { index, lines in
            directory.write("in-\(index).ndjson", lines.map { $0 + "\n" }.joined())
        }
        let inputs = paths.enumerated().map { InputLines(path: $1, source: Int32($0), reading: reading) }
        let firstReads = changed.map { files in
            files.enumerated().map { index, lines in directory.write("first-\(index).ndjson", lines.map { $0 + "\n" }.joined()) }
        } ?? paths
        let spill = SpillDirectory(root: directory.file("tmp"))
        let feed = ExactOrderFeed(inputs, rereadable: paths.map { _ in true }, carriedIn: carriedIn, budgetBytes: budget,
                                  spill: spill, carryFrom: carryFrom, mergeReading: reading,
                                  reopen: { InputLines(path: firstReads[$0], source: Int32($0), reading: reading) },
                                  allowWindow: !sort, splitSurveyFrom: splitSurveyFrom)
        return Made(feed: feed, spill: spill)
    }

    /// Every record the feed gives (`InputFeed.drainedNames`).
    private func drain(_ feed: ExactOrderFeed) throws -> [String] { try feed.drainedNames() }

    @Test func inputsDisorderedByHoursComeOutInEventTimeOrder() throws {
        let directory = TemporaryDirectory()
        let files = [[event("a3", 3_000_000), event("a1", 1_000), event("a2", 2_000_000)],
                     [event("b2", 2_500_000), event("b0", 500)]]
        let made = feed(files, in: directory)
        #expect(try drain(made.feed) == ["b0", "a1", "a2", "b2", "a3"])
    }

    @Test func sameTimeEventsGoByLifecycleThenMessageIdThenBytesWhateverTheFiles() throws {
        let directory = TemporaryDirectory()
        let lines = [
            event("signed_out", 1000, id: "a"),
            event("flow", 1000, id: "z", extra: #","timed":"stop""#),
            event("tap", 1000, id: "m2"),
            event("tap", 1000, id: "m1"),
            event("flow", 1000, id: "y", extra: #","timed":"start""#),
            #"{"type":"session","action":"start","anonymousId":"d","timestamp":"2026-11-20T00:00:01.000Z","messageId":"zz"}"#,
            event("untagged", 1000),
        ]
        let expected = ["session", "flow", "untagged", "tap", "tap", "flow", "signed_out"]
        var random = TestRandom(state: 7)
        for trial in 0..<12 {
            var shuffled = lines
            for index in shuffled.indices.reversed() { shuffled.swapAt(index, random.below(index + 1)) }
            let count = 1 + trial % 4
            var files = [[String]](repeating: [], count: count)
            for line in shuffled { files[random.below(count)].append(line) }
            let trialDirectory = TemporaryDirectory()
            let made = feed(files.filter { !$0.isEmpty }, in: trialDirectory)
            var events: [Event] = []
            while let record = try made.feed.next() { if case .event(let event) = record { events.append(event) } }
            #expect(events.map(\.nameString) == expected)
            let ids = events.map { $0.document.member("messageId").flatMap($0.document.string) ?? "-" }
            #expect(ids == ["zz", "y", "-", "m1", "m2", "z", "a"])
            _ = trialDirectory
        }
        _ = directory
    }

    @Test func aRejectedLineGoesOutAsReadWhenSortedAndInItsPlaceWhenMergedThroughTheWindow() throws {
        let lines = [event("b", 2000), "not json", event("a", 1000)]
        let directory = TemporaryDirectory(), other = TemporaryDirectory()
        let sorted = feed([lines], in: directory, sort: true)
        #expect(try drain(sorted.feed) == ["!invalid_json", "a", "b"])
        #expect(sorted.feed.counts.method == .sort)
        // Through the window it takes its input's event before it: b's time, after the events of that time.
        let merged = feed([lines], in: other)
        #expect(try drain(merged.feed) == ["a", "b", "!invalid_json"])
        #expect(merged.feed.counts.method == .window && merged.feed.counts.windowMilliseconds == 1000)
    }

    @Test func oneFileInOrderGoesThroughAsReadWithEachInstantsLinesInEventOrder() throws {
        let directory = TemporaryDirectory()
        let lines = [event("a", 1000), event("c", 2000, id: "m2"), "not json", event("b", 2000, id: "m1"),
                     event("stop", 2000, id: "m0", extra: #","timed":"stop""#), event("d", 3000)]
        let made = feed([lines], in: directory)
        // At 2000: m1, m2, then the timer's stop, then the rejected line (it goes with the event before it).
        #expect(try drain(made.feed) == ["a", "b", "c", "stop", "!invalid_json", "d"])
        let counts = made.feed.counts
        #expect(counts.method == .window && counts.windowMilliseconds == 0 && counts.heldBytesHighWater == 0)
    }

    @Test func disorderThatFitsTheBudgetIsMergedThroughAWindowAsWideAsItHoldingLittle() throws {
        let directory = TemporaryDirectory()
        // Each file out of order by up to 30 s, in a day.
        var random = TestRandom(state: 12)
        let times = (0..<3000).map { $0 * 5_000 + random.below(30_000) }
        let files = (0..<3).map { file in times.indices.filter { $0 % 3 == file }.map { event("e\($0)", times[$0], id: "m\($0)") } }
        let made = feed(files, in: directory)
        let names = try drain(made.feed)
        #expect(names == times.indices.sorted { (times[$0], "m\($0)") < (times[$1], "m\($1)") }.map { "e\($0)" })
        let counts = made.feed.counts
        #expect(counts.method == .window && counts.windowMilliseconds <= 30_000 && counts.windowMilliseconds > 5_000)
        #expect(counts.heldBytesHighWater < 200 << 10, "a window's worth held, not the files")
        #expect(counts.spilledRuns == 0 && counts.surveyedLines == 3000)
    }

    @Test func anInOrderFileIsReadAgainRatherThanHeldAndNothingSpills() throws {
        let directory = TemporaryDirectory()
        let lines = (0..<500).map { event("e\($0)", $0 * 10) }
        let made = feed([lines], in: directory, budget: 64 << 10, sort: true)
        #expect(try drain(made.feed) == (0..<500).map { "e\($0)" })
        let counts = made.feed.counts
        #expect(counts.inOrderLines == 500 && counts.spilledRuns == 0 && counts.sortedInMemory == 0)
    }

    @Test func aSmallBudgetSpillsSortedRunsMergesThemAndRemovesThemAtTheEnd() throws {
        let directory = TemporaryDirectory()
        var random = TestRandom(state: 3)
        let times = (0..<6000).map { _ in random.below(10_000_000) }
        let padding = String(repeating: "x", count: 200)
        let lines = times.enumerated().map { event("e\($0.offset)", $0.element, id: "m\($0.offset)", extra: #","p":"\#(padding)""#) }
        let made = feed([lines.reversed(), []], in: directory, budget: 64 << 10)
        let names = try drain(made.feed)
        let expected = times.enumerated().sorted { ($0.element, "m\($0.offset)") < ($1.element, "m\($1.offset)") }.map { "e\($0.offset)" }
        #expect(names == expected)
        let counts = made.feed.counts
        #expect(counts.spilledRuns > ExactOrderFeed.mostRunsOpen)
        #expect(counts.runMerges >= 1)
        #expect(counts.spilledLines > 5000 && counts.spilledLines + counts.sortedInMemory + counts.inOrderLines == 6000)
        #expect(made.spill.path == nil)
        #expect(!directory.files().contains { $0.contains(SpillDirectory.prefix) && $0.hasSuffix(".gz") })
    }

    enum Way: CaseIterable {
        case windowMerge, oneFileInOrder, sortWithRunMerges, carry
    }

    @Test(arguments: Way.allCases)
    func readsThatPauseAndResumeGiveTheSameRecordsEveryWay(way: Way) throws {
        var random = TestRandom(state: 5)
        let padding = String(repeating: "x", count: 200)
        var files: [[String]]
        var budget = 1 << 20
        var carry: Duration?
        switch way {
        case .windowMerge:
            let times = (0..<3000).map { $0 * 5_000 + random.below(30_000) }
            files = (0..<3).map { file in times.indices.filter { $0 % 3 == file }.map { event("e\($0)", times[$0], id: "m\($0)") } }
            files[1].insert("not json", at: 7)
        case .oneFileInOrder:
            files = [(0..<3000).map { event("e\($0)", $0 / 3 * 1000, id: "m\(3000 - $0)") }]
        case .sortWithRunMerges:
            let times = (0..<6000).map { _ in random.below(10_000_000) }
            files = [times.enumerated().map { event("e\($0.offset)", $0.element, id: "m\($0.offset)", extra: #","p":"\#(padding)""#) }.reversed(), []]
            budget = 64 << 10
        case .carry:
            let times = (0..<5000).map { _ in random.below(10_000_000) }
            files = [times.enumerated().map { event("e\($0.offset)", $0.element, id: "m\($0.offset)") }]
            budget = 64 << 10
            carry = .seconds(3000)
        }
        let (first, second) = (TemporaryDirectory(), TemporaryDirectory())
        let straight = feed(files, in: first, budget: budget, carryFrom: carry, sort: way != .windowMerge && way != .oneFileInOrder)
        let expected = try drain(straight.feed)
        let run = StopAfter()
        let paced = feed(files, in: second, budget: budget, carryFrom: carry,
                         sort: way != .windowMerge && way != .oneFileInOrder, pacing: run.pacing)
        #expect(try paced.feed.drainedNames(serving: run) == expected)
        #expect(paced.feed.pending.map(\.nameString) == straight.feed.pending.map(\.nameString))
        #expect(paced.feed.counts.runMerges == straight.feed.counts.runMerges)
        if way == .sortWithRunMerges { #expect(straight.feed.counts.runMerges >= 1) }
        #expect(run.refillPauses > 0 && run.readPauses > 0)
        _ = (first, second)
    }

    @Test func aFileChangedBetweenItsTwoReadsFailsTheRun() throws {
        let directory = TemporaryDirectory()
        let lines = (0..<50).map { event("e\($0)", $0 * 10) }
        // The rejected last line comes out before the merge begins: the file is rewritten then.
        let made = feed([lines + ["not json"]], in: directory, sort: true)
        guard case .rejected? = try made.feed.next() else {
            Issue.record("the rejected line did not come first")
            return
        }
        var changed = lines
        changed[10] = event("changed", 100)
        let path = directory.write("in-0.ndjson", changed.map { $0 + "\n" }.joined())
        #expect(throws: InputChangedWhileRead.self) {
            while try made.feed.next() != nil {}
        }
        _ = path
    }

    @Test func aFileThatIsNotWhatTheSurveyReadFailsTheWindowMerge() throws {
        let lines = (0..<50).map { event("e\($0)", $0 * 10) }
        var changed = lines
        changed[10] = event("changed", 100)
        let directory = TemporaryDirectory()
        let made = feed([lines], in: directory, changed: [changed])
        #expect(throws: InputChangedWhileRead.self) {
            while try made.feed.next() != nil {}
        }
        #expect(made.feed.counts.method == .window)
    }

    /// What the runner does: the feed until it hands the in-order input over, that input, then the feed's check.
    private func readHandedOver(_ feed: ExactOrderFeed) throws -> (names: [String], handedOver: Bool) {
        var names: [String] = []
        var inOrder: InOrderTies?
        func take(_ record: InputRecord) {
            switch record {
            case .event(let event): names.append(event.nameString)
            case .rejected(let line): names.append("!" + line.rejection.reason.rawValue)
            case .paused: break
            }
        }
        while inOrder == nil, let record = try feed.next() {
            take(record)
            if case .paused = record { inOrder = feed.takeInOrder() }
        }
        guard let inOrder else { return (names, false) }
        while let record = try inOrder.next() { take(record) }
        try feed.endInOrder(stopped: false)
        return (names, true)
    }

    @Test func anInOrderFileIsHandedOverAtAPauseAndGivesWhatTheFeedGives() throws {
        let lines = (0..<40).map { event("e\($0 / 2)", $0 / 2 * 10, id: "\(39 - $0)") } + ["not json"]
        let directories = (0..<4).map { _ in TemporaryDirectory() }
        let throughFeed = try drain(feed([lines], in: directories[0]).feed)
        let handed = try readHandedOver(feed([lines], in: directories[1], pacing: ReadPacing()).feed)
        #expect(handed.handedOver && handed.names == throughFeed && throughFeed.count == 41)
        // Without pacing (nothing to pause at), and for a run that carries lines on, nothing is handed over.
        let unpaced = feed([lines], in: directories[2])
        _ = try unpaced.feed.next()
        #expect(unpaced.feed.takeInOrder() == nil)
        let carrying = feed([lines], in: directories[3], carryFrom: .seconds(60), pacing: ReadPacing())
        #expect(try !readHandedOver(carrying.feed).handedOver)
    }

    @Test func aHandedOverFileThatIsNotWhatTheSurveyReadFailsAtItsEnd() throws {
        let lines = (0..<50).map { event("e\($0)", $0 * 10) }
        var changed = lines
        changed[10] = event("changed", 100)
        let directories = (0..<2).map { _ in TemporaryDirectory() }
        let made = feed([lines], in: directories[0], changed: [changed], pacing: ReadPacing())
        #expect(throws: InputChangedWhileRead.self) { try readHandedOver(made.feed) }
        // Read until a stop, it is not checked.
        let stopped = feed([lines], in: directories[1], changed: [changed], pacing: ReadPacing())
        var inOrder: InOrderTies?
        while inOrder == nil, try stopped.feed.next() != nil { inOrder = stopped.feed.takeInOrder() }
        _ = try #require(inOrder).next()
        try stopped.feed.endInOrder(stopped: true)
    }

    @Test func aFileWithOtherBytesOfTheSameLengthsFailsTheWindowMergeByItsIdentity() throws {
        let lines = (0..<50).map { event("e\($0)", $0 * 10) }
        var changed = lines
        changed[10] = event("f10", 100)
        #expect(changed[10].utf8.count == lines[10].utf8.count)
        let directory = TemporaryDirectory()
        let made = feed([lines], in: directory, changed: [changed])
        #expect(throws: InputChangedWhileRead.self) {
            while try made.feed.next() != nil {}
        }
    }

    @Test func aFileReadInTwoHalvesByTheFirstReadGivesWhatOneReadGives() throws {
        // Files over `splitSurveyFrom` are read in halves on two threads; whatever falls at the split
        // (an instant's ties, disorder across it, blank and rejected lines), the records are the same.
        var random = TestRandom(state: 5)
        for trial in 0..<6 {
            var lines: [String] = []
            var time = 1000
            for index in 0..<400 {
                time += random.below(3) == 0 ? 0 : random.below(2000)
                let late = trial % 2 == 1 && random.below(10) == 0 ? random.below(5000) : 0
                lines.append(event("e\(index)", max(0, time - late), id: "m\(random.below(1000))"))
                if random.below(40) == 0 { lines.append(random.below(2) == 0 ? "not json" : "  ") }
            }
            let (whole, halves) = (TemporaryDirectory(), TemporaryDirectory())
            let one = feed([lines], in: whole)
            let two = feed([lines], in: halves, splitSurveyFrom: 1)
            #expect(try drain(two.feed) == drain(one.feed))
            #expect(two.feed.counts.method == one.feed.counts.method)
            #expect(two.feed.counts.windowMilliseconds == one.feed.counts.windowMilliseconds)
            #expect(two.feed.counts.surveyedLines == one.feed.counts.surveyedLines)
        }
    }

    @Test func aFileReadInTwoHalvesWhileReadsPauseGivesTheSameRecordsAndAStopEndsTheFirstRead() throws {
        let lines = (0..<3000).map { event("e\($0)", $0 / 3 * 10, id: "m\($0 % 7)") }
        let (whole, halves, stopped) = (TemporaryDirectory(), TemporaryDirectory(), TemporaryDirectory())
        let expected = try drain(feed([lines], in: whole).feed)
        let run = StopAfter()
        let paced = feed([lines], in: halves, pacing: run.pacing, splitSurveyFrom: 1)
        #expect(try paced.feed.drainedNames(serving: run) == expected)
        #expect(paced.feed.counts.method == .window && paced.feed.counts.surveyedLines == 3000)
        // More lines than the first read may record (a 64 KiB budget: 2,048), counted over both halves: sorted.
        let small = TemporaryDirectory()
        let sorted = feed([lines], in: small, budget: 64 << 10, splitSurveyFrom: 1)
        #expect(try drain(sorted.feed) == expected)
        #expect(sorted.feed.counts.method == .sort)
        // A shutdown asked for during the first read: it ends there, the second half's thread is let go,
        // and nothing is given that was not read.
        let stop = StopAfter(reads: 0)
        let cut = feed([lines], in: stopped, pacing: stop.pacing, splitSurveyFrom: 1)
        let names = try cut.feed.drainedNames(serving: stop)
        #expect(names.count <= expected.count)
        _ = (whole, halves, stopped, small)
    }

    @Test func eventsWithinTheCarryOfTheLatestAreLeftPendingInOrder() throws {
        let directory = TemporaryDirectory()
        let files = [[event("c", 300_000), event("a", 1000), event("d", 400_000)], [event("b", 200_000), event("e", 401_000)]]
        let made = feed(files, in: directory, carryFrom: .seconds(150))
        #expect(try drain(made.feed) == ["a", "b"])
        #expect(made.feed.pending.map(\.nameString) == ["c", "d", "e"])
        #expect(made.feed.counts.pending == 3)
    }

    @Test func eventsCarriedInAreOrderedWithTheRunsOwn() throws {
        let directory = TemporaryDirectory()
        let carried = [event("x", 5000), event("y", 1000)].enumerated().map { index, line in
            let bytes = Array(line.utf8)
            return try! bytes.withUnsafeBufferPointer { try Event.decode($0, origin: Origin(source: 9, line: Int64(index + 1))).get() }
        }
        let made = feed([[event("a", 2000), event("b", 6000)]], in: directory, carriedIn: carried)
        #expect(try drain(made.feed) == ["y", "a", "x", "b"])
        #expect(made.feed.counts.carriedIn == 2)
    }
}
