import Testing
@testable import Sluice
@testable import SluiceJSON
import SluiceTestSupport

/// The fan-out on its own, into in-memory outputs: which destinations get an
/// event, under which name, what each counts, and the one fate of the line.
@Suite struct FanOutTests {
    /// A fan-out over the destinations of `yaml`, its outputs kept in `memory`.
    struct Harness {
        let memory = MemoryOutputs()
        let outputs: OutputSet
        let fanOut: FanOut

        init(_ destinations: String) throws {
            let configuration = try PipelineConfiguration.load(yaml: "version: 1\ndestinations:\n" + destinations, file: "p.yaml")
            var options = RunOptions()
            options.memoryOutputs = memory
            options.outDirectory = "/nonexistent/never-created"
            outputs = try OutputSet(configuration: configuration, options: options, openParts: OpenPartFiles())
            let rejects = RejectWriter(output: outputs.rejects)
            rejects.sourceNames = ["in.ndjson"]
            fanOut = FanOut(destinations: configuration.destinations, outputs: outputs, rejects: rejects)
        }

        func deliver(_ json: String, line: Int64 = 1) throws -> FanOut.Fate {
            let event = try Array(json.utf8).withUnsafeBufferPointer {
                Event.decode($0, origin: Origin(source: 0, line: line))
            }.get()
            return try fanOut.deliver(event)
        }

        /// What `name` received, as text lines, once everything pending is handed over.
        func records(_ name: String) throws -> [String] {
            try outputs.handOver()
            return memory.records(name).map { String(decoding: $0, as: UTF8.self) }
        }

        func counts(_ name: String) -> RunSummary.DestinationCounts {
            fanOut.destinationCounts(outputs: outputs, finished: false).first { $0.name == name }!
        }
    }

    private func track(_ event: String, user: String = "user-12345") -> String {
        #"{"type":"track","event":"\#(event)","messageId":"m-1","timestamp":"2026-11-20T08:00:00Z","anonymousId":"dev-000001","userId":"\#(user)"}"#
    }

    @Test func anEventGoesToEveryDestinationWhoseRulesTakeItAndIsEmittedOnce() throws {
        let harness = try Harness("""
          all: {type: ndjson}
          checkout: {type: ndjson, events: ["checkout_*"]}
          none: {type: ndjson, events: ["!*"]}
        """)
        #expect(try harness.deliver(track("checkout_started")) == .emitted)
        #expect(try harness.deliver(track("tapped"), line: 2) == .emitted)
        #expect(try harness.records("all") == [track("checkout_started"), track("tapped")])
        #expect(try harness.records("checkout") == [track("checkout_started")])
        #expect(try harness.records("none").isEmpty)
        #expect(harness.counts("all").events == 2 && harness.counts("checkout").events == 1)
        #expect(harness.counts("all").uncompressedBytes == (track("checkout_started") + track("tapped")).utf8.count + 2)
    }

    @Test func anEventNoDestinationTakesIsDroppedUnroutedAndLeavesNoRecord() throws {
        let harness = try Harness("""
          checkout: {type: ndjson, events: ["checkout_*"]}
        """)
        #expect(try harness.deliver(track("tapped")) == .dropped(.unrouted))
        #expect(try harness.records("checkout").isEmpty && harness.records("rejects").isEmpty)
        #expect(harness.counts("checkout").events == 0)
    }

    @Test func aRenameIsSeenOnlyByItsDestinationAndOthersGetTheOriginalBytes() throws {
        let harness = try Harness("""
          renamed: {type: ndjson, rename: {tapped: touched}}
          plain: {type: ndjson}
        """)
        #expect(try harness.deliver(track("tapped")) == .emitted)
        #expect(try harness.records("renamed") == [track("touched")])
        #expect(try harness.records("plain") == [track("tapped")])
    }

    @Test func aRefusalWritesARejectRecordNamingItsDestinationEvenWhenAnotherTookTheEvent() throws {
        let harness = try Harness("""
          mixpanel: {type: mixpanel}
          archive: {type: ndjson}
        """)
        #expect(try harness.deliver(track("tapped", user: "undefined"), line: 7) == .emitted)
        #expect(harness.counts("mixpanel").refused == ["invalid_distinct_id": 1])
        #expect(harness.counts("archive").events == 1)
        let rejects = try harness.records("rejects")
        #expect(rejects.count == 1)
        let reject = try JSONDocument.parse(Array(rejects[0].utf8))
        #expect(reject.string(at: JSONPath("source")) == "in.ndjson")
        #expect(reject.string(at: JSONPath("destination")) == "mixpanel")
        #expect(reject.string(at: JSONPath("stage")) == "destination")
        #expect(reject.string(at: JSONPath("line")) == track("tapped", user: "undefined"))
    }

    @Test func anEventEveryDestinationRefusesIsRejectedWithTheFirstRefusal() throws {
        let harness = try Harness("""
          mixpanel: {type: mixpanel}
          amplitude: {type: amplitude}
        """)
        let line = #"{"type":"track","event":"e","timestamp":"2026-11-20T08:00:00Z","anonymousId":"null"}"#
        #expect(try harness.deliver(line) == .rejected(RejectReason("invalid_distinct_id")))
        #expect(try harness.records("rejects").count == 2)
        #expect(try harness.records("mixpanel").isEmpty && harness.records("amplitude").isEmpty)
    }

    @Test func aWithheldDestinationCountsTheEventAndAnEventWithheldFromAllIsDroppedForThatReason() throws {
        let harness = try Harness("""
          first: {type: ndjson}
          second: {type: ndjson}
        """)
        var event = try Array(track("tapped").utf8).withUnsafeBufferPointer {
            Event.decode($0, origin: Origin(source: 0, line: 1))
        }.get()
        var mark = WithheldDestinations(reason: .consent)
        mark.insert(0)
        event.withheld = mark
        #expect(try harness.fanOut.deliver(event) == .emitted)
        mark.insert(1)
        event.withheld = mark
        #expect(try harness.fanOut.deliver(event) == .dropped(.consent))
        #expect(harness.counts("first").notTaken == ["consent": 2] && harness.counts("first").events == 0)
        #expect(harness.counts("second").notTaken == ["consent": 1] && harness.counts("second").events == 1)
    }

    @Test func aStagesEditsAreInTheBytesEveryDestinationReads() throws {
        let harness = try Harness("""
          archive: {type: ndjson}
        """)
        var event = try Array(track("tapped").utf8).withUnsafeBufferPointer {
            Event.decode($0, origin: Origin(source: 0, line: 1))
        }.get()
        event.document.set(JSONPath("userId"), string: "user-99")
        #expect(try harness.fanOut.deliver(event) == .emitted)
        #expect(try harness.records("archive") == [track("tapped", user: "user-99")])
    }

    @Test func theDestinationWritingToStdoutIsMarkedSoInItsCounts() throws {
        let directory = TemporaryDirectory()
        let configuration = try PipelineConfiguration.load(yaml: "version: 1\ndestinations:\n  a: {type: ndjson}\n  b: {type: ndjson}\n",
                                                           file: "p.yaml")
        var options = RunOptions()
        options.outDirectory = directory.file("out")
        options.stdoutDestination = "b"
        let outputs = try OutputSet(configuration: configuration, options: options, openParts: OpenPartFiles())
        let fanOut = FanOut(destinations: configuration.destinations, outputs: outputs, rejects: RejectWriter(output: outputs.rejects))
        #expect(fanOut.destinationCounts(outputs: outputs, finished: false).map(\.toStdout) == [false, true])
        try outputs.finish()
    }
}
