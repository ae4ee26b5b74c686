import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import Sluice
@testable import SluiceJSON
import SluiceTestSupport

/// A stage scripted by event name, to check the runner's accounting.
private struct ScriptedStage: Stage {
    let name = "scripted"
    var held: [Event] = []

    mutating func process(_ event: consuming Event, into output: inout StageOutput) {
        switch event.nameString {
        case "merge_me": output.merge(event.origin)
        case "drop_me": output.drop(event.origin, .unrouted)
        case "reject_me": output.reject(event, Rejection(.missingEventName, "scripted"))
        case "hold_me": held.append(event)
        case "twice":
            // One line may become several events; it still counts once, as emitted.
            output.emit(event)
        default: output.emit(event)
        }
    }

    mutating func finish(into output: inout StageOutput) {
        for event in held { output.emit(event) }
        held.removeAll()
    }
}

@Suite struct PipelineRunnerTests {
    private func line(_ name: String) -> String {
        #"{"type":"track","event":"\#(name)","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z"}"# + "\n"
    }

    @Test func everyLineEndsInExactlyOneOutcomeIncludingWhatAStageHeldUntilTheEnd() throws {
        let directory = TemporaryDirectory()
        let input = ["a", "merge_me", "drop_me", "reject_me", "hold_me", "b"].map(line).joined() + "\n  \nnot json\n"
        let path = directory.write("in.ndjson", input)
        var configuration = PipelineConfiguration.builtIn()
        configuration.stages = [ScriptedStage()]
        var options = RunOptions()
        options.outDirectory = directory.file("out")
        let summary = try PipelineRunner(configuration: configuration, options: options).run(inputs: [path])
        #expect(summary.linesIn == 7)
        #expect(summary.blankLines == 2)
        #expect(summary.emitted == 3)
        #expect(summary.merged == 1)
        #expect(summary.dropped == [.unrouted: 1])
        #expect(summary.rejected == [.missingEventName: 1, .invalidJSON: 1])
        #expect(summary.isBalanced)
        #expect(summary.destinations.first?.records == 3)
        // The stage's rejection names the stage.
        let rejects = directory.files().filter { $0.contains("rejects") }
        let text = rejects.compactMap { TestGzip.decompressFile(directory.file($0)) }.map { String(decoding: $0, as: UTF8.self) }.joined()
        #expect(text.contains(#""stage":"scripted""#))
        #expect(text.contains(#""stage":"input","reason":"invalid_json""#))
    }

    @Test(arguments: ["  ", "\r", " \t\r", "\r\r"])
    func aBlankLastLineWithoutNewlineIsSkippedAsBlankNotRejected(tail: String) throws {
        let directory = TemporaryDirectory()
        let first = directory.write("a.ndjson", line("a") + tail)
        let second = directory.write("b.ndjson", line("b"))
        var options = RunOptions()
        options.outDirectory = directory.file("out")
        let summary = try PipelineRunner(configuration: .builtIn(), options: options).run(inputs: [first, second])
        #expect(summary.linesIn == 2 && summary.emitted == 2 && summary.rejectedTotal == 0)
        #expect(summary.blankLines == 1)
        #expect(summary.isBalanced)
        #expect(!directory.files().contains { $0.contains("rejects") })
    }

    @Test func aLastLineWithoutNewlineIsItsOwnLineNeverJoinedToTheNextInputsFirst() throws {
        let directory = TemporaryDirectory()
        let whole = line("a").dropLast()
        let first = directory.write("a.ndjson", line("x") + String(whole.prefix(30)))
        let second = directory.write("b.ndjson", String(whole.dropFirst(30)) + "\n" + line("b"))
        var options = RunOptions()
        options.outDirectory = directory.file("out")
        let summary = try PipelineRunner(configuration: .builtIn(), options: options).run(inputs: [first, second])
        // Each input is read on its own: the two halves are two broken lines, each rejected with its own line number.
        #expect(summary.linesIn == 4 && summary.emitted == 2 && summary.rejected == [.invalidJSON: 2])
        #expect(summary.inputs.map(\.lines) == [2, 2])
        #expect(summary.isBalanced)
    }

    @Test func eventsNoDestinationTakesAreDroppedAsUnrouted() throws {
        let directory = TemporaryDirectory()
        let path = directory.write("in.ndjson", line("debug_x") + line("keep"))
        var configuration = try PipelineConfiguration.load(yaml: """
        version: 1
        destinations:
          a: {type: ndjson, events: ["*", "!debug_*"]}
        """, file: "p.yaml")
        configuration.stages = []
        var options = RunOptions()
        options.outDirectory = directory.file("out")
        let summary = try PipelineRunner(configuration: configuration, options: options).run(inputs: [path])
        #expect(summary.emitted == 1)
        #expect(summary.dropped == [.unrouted: 1])
        #expect(summary.isBalanced)
    }

    @Test func theStatsJSONCarriesTheAccounting() throws {
        var summary = RunSummary()
        summary.linesIn = 3
        summary.emitted = 1
        summary.rejected = [.invalidJSON: 2]
        let json = try JSONDocument.parse(Array(summary.json.utf8))
        #expect(json.rawBytes(json.member("lines_in")!).elementsEqual("3".utf8))
        #expect(json.rawBytes(json.member("balanced")!).elementsEqual("true".utf8))
        #expect(json.string(at: JSONPath("rejected_by_reason.invalid_json")) == nil)
        #expect(json.find(JSONPath("rejected_by_reason.invalid_json")) != nil)
    }
}

/// A stage that asks the run to stop at the event named `stop_here`, and appends a line to
/// `rewrites` (the input, between exact order's two reads) at the one named `rewrite`.
private struct TriggerStage: Stage {
    let name = "trigger"
    let control: RunControl
    var rewrites: String?

    mutating func process(_ event: consuming Event, into output: inout StageOutput) {
        switch event.nameString {
        case "stop_here": control.requestStop(.terminate)
        case "rewrite":
            if let path = rewrites, let file = fopen(path, "a") {
                fputs(#"{"type":"track","event":"z","anonymousId":"d","timestamp":"2026-11-20T23:00:00Z"}"# + "\n", file)
                fclose(file)
            }
        default: break
        }
        output.emit(event)
    }

    mutating func finish(into output: inout StageOutput) {}
}

@Suite struct PipelineRunnerControlTests {
    /// A file in event time order, longer than one read (its lines: `names` first, then `e0`, `e1`, ...),
    /// every second one sharing its instant with the one before, run in exact order through a `TriggerStage`.
    private func runInOrder(_ names: [String], rewriting: Bool = false) throws -> (RunSummary, TemporaryDirectory) {
        let directory = TemporaryDirectory()
        let lines = (0..<3000).map { index in
            let name = index < names.count ? names[index] : "e\(index)"
            let milliseconds = index / 2
            let time = "2026-11-20T08:00:\(milliseconds / 1000 < 10 ? "0" : "")\(milliseconds / 1000).\(String(milliseconds % 1000 + 1000).dropFirst())Z"
            return #"{"type":"track","event":"\#(name)","anonymousId":"d","messageId":"m\#(index)","timestamp":"\#(time)","properties":{"pad":"\#(String(repeating: "x", count: 60))"}}"#
        }
        let path = directory.write("in.ndjson", lines.joined(separator: "\n") + "\n")
        var configuration = PipelineConfiguration.builtIn()
        let control = RunControl()
        configuration.stages = [TriggerStage(control: control, rewrites: rewriting ? path : nil)]
        var options = RunOptions()
        options.outDirectory = directory.file("out")
        options.order = .exact
        let summary = try PipelineRunner(configuration: configuration, options: options, control: control).run(inputs: [path])
        return (summary, directory)
    }

    @Test func aSortedFileIsReadStraightThroughInExactOrderEveryLineAccounted() throws {
        let (summary, _) = try runInOrder([])
        #expect(summary.linesIn == 3000 && summary.emitted == 3000 && summary.isBalanced)
        #expect(summary.order?.method == .window && summary.order?.windowMilliseconds == 0)
    }

    /// The stop comes while the runner reads the in-order file itself: it ends at the next read,
    /// what was read goes on, and the file is not held to the first read's count.
    @Test func aStopWhileAnInOrderFileIsReadEndsTheRunWithWhatWasRead() throws {
        let (summary, _) = try runInOrder(["a", "b", "stop_here"])
        #expect(summary.linesIn > 3 && summary.linesIn < 3000)
        #expect(summary.emitted == summary.linesIn && summary.isBalanced)
    }

    @Test func anInOrderFileWrittenToDuringTheSecondReadFailsTheRun() throws {
        #expect {
            _ = try runInOrder(["a", "rewrite"], rewriting: true)
        } throws: { error in
            (error as? RunFailure)?.error is InputChangedWhileRead
        }
    }

    /// The in-order file is gzip in three members, the last one's check failing: read straight
    /// through, it gives what the reorder window gives: the first two members' lines, the last
    /// one's rejected (`corrupt_gzip`), and the input's error, every line accounted for.
    @Test func anInOrderGzipFileDamagedAtItsEndGivesWhatTheWindowGives() throws {
        let directory = TemporaryDirectory()
        let lines = (0..<3000).map { index in
            let milliseconds = index / 2
            let time = "2026-11-20T08:00:0\(milliseconds / 1000).\(String(milliseconds % 1000 + 1000).dropFirst())Z"
            return #"{"type":"track","event":"e\#(index)","anonymousId":"d","messageId":"m\#(index)","timestamp":"\#(time)"}"# + "\n"
        }
        var members = [lines[..<1200], lines[1200..<2400], lines[2400...]].map { TestGzip.compress(Array($0.joined().utf8)) }
        // The last member's CRC-32 (its trailer's first four bytes) no longer matches its data.
        members[2][members[2].count - 8] ^= 0xFF
        let path = directory.file("in.ndjson.gz")
        #expect(FileManager.default.createFile(atPath: path, contents: Data(members.joined())))
        func run(_ order: InputOrder) -> RunSummary? {
            var options = RunOptions()
            options.outDirectory = directory.file("out-\(order)")
            options.order = order
            do {
                _ = try PipelineRunner(configuration: PipelineConfiguration.builtIn(), options: options).run(inputs: [path])
            } catch let failure as RunFailure {
                guard case .corruptGzip = failure.error as? InputError else { return nil }
                return failure.summary
            } catch {
                return nil
            }
            return nil
        }
        let exact = try #require(run(.exact)), window = try #require(run(.window))
        #expect(exact.order?.method == .window && exact.order?.windowMilliseconds == 0)
        #expect(exact.emitted == 2400 && exact.rejected == [.corruptGzip: 600] && exact.isBalanced)
        #expect(exact.linesIn == window.linesIn && exact.emitted == window.emitted && exact.rejected == window.rejected)
    }

    /// Read one after another, the second input is never reached; merged, every input is opened at the start and none read.
    @Test(arguments: [true, false])
    func aStopRequestedBeforeTheFirstReadEndsTheRunWithNothingReadAndNoFileLeftOpen(concatenated: Bool) throws {
        let directory = TemporaryDirectory()
        let path = directory.write("in.ndjson", #"{"type":"track","event":"a","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z"}"# + "\n")
        var options = RunOptions()
        options.outDirectory = directory.file("out")
        options.concatenateInputs = concatenated
        let control = RunControl()
        control.requestStop(.terminate)
        let summary = try PipelineRunner(configuration: PipelineConfiguration.builtIn(), options: options, control: control)
            .run(inputs: [path, path])
        #expect(summary.linesIn == 0)
        #expect(summary.inputs.count == (concatenated ? 1 : 2))
        #expect(summary.inputs.allSatisfy { $0.lines == 0 })
        #expect(summary.isBalanced)
        #expect(directory.files() == ["in.ndjson"])
    }
}
