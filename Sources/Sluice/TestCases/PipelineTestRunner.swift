import SluiceJSON

/// Runs a test case through the real pipeline (`PipelineRunner`, with the
/// file's own stages, routing and encoders) with in-memory outputs, and
/// compares what each destination and the rejects received with what the case expects.
public enum PipelineTestRunner {
    /// Runs one case. The configuration is copied, so every case starts from fresh stage state.
    public static func run(_ testCase: PipelineTestCase, in configuration: PipelineConfiguration) -> PipelineTestResult {
        var result = PipelineTestResult(testCase: testCase, file: configuration.file, failures: [])
        let memory = MemoryOutputs()
        var options = RunOptions()
        options.memoryOutputs = memory
        var input: [UInt8] = []
        for line in testCase.input {
            input.append(contentsOf: line)
            input.append(UInt8(ascii: "\n"))
        }
        let summary: RunSummary
        do {
            let runner = try PipelineRunner(configuration: configuration, options: options)
            summary = try runner.run(bytes: input, named: testCase.name)
        } catch {
            result.failures.append(.runFailed("\(error)"))
            return result
        }
        var expectations = testCase.expect
        if let rejects = testCase.rejects { expectations.append(rejects) }
        for expectation in expectations {
            compare(expectation, received: memory.records(expectation.output), into: &result.failures)
        }
        for (name, expected) in testCase.counts {
            let got = count(name, in: summary)
            if got != expected { result.failures.append(.count(name: name, expected: expected, got: got)) }
        }
        return result
    }

    /// Record by record, in order: each expected record a subset of the one received at its index.
    static func compare(_ expectation: PipelineTestCase.Expectation, received: [[UInt8]], into failures: inout [PipelineTestFailure]) {
        let output = expectation.output
        for index in 0..<max(expectation.records.count, received.count) {
            guard index < received.count else {
                failures.append(.missing(output: output, index: index, expected: RecordMatcher.shown(expectation.records[index])))
                continue
            }
            guard index < expectation.records.count else {
                failures.append(.extra(output: output, index: index, got: RecordMatcher.cut(received[index])))
                continue
            }
            guard let document = try? JSONDocument.parse(received[index]) else {
                failures.append(.notJSON(output: output, index: index, got: RecordMatcher.cut(received[index])))
                continue
            }
            let mismatches = RecordMatcher.mismatches(expectation.records[index], document)
            if !mismatches.isEmpty {
                failures.append(.record(output: output, index: index, mismatches: mismatches, got: RecordMatcher.cut(received[index])))
            }
        }
    }

    /// A `counts:` name's value in the run's accounting.
    static func count(_ name: String, in summary: RunSummary) -> Int {
        switch name {
        case "lines_in": return summary.linesIn
        case "emitted": return summary.emitted
        case "merged": return summary.merged
        case "rejected": return summary.rejectedTotal
        case "dropped": return summary.droppedTotal
        case "blank_lines": return summary.blankLines
        default:
            if let reason = RejectReason(rawValue: name) { return summary.rejected[reason] ?? 0 }
            if let reason = DropReason(rawValue: name) { return summary.dropped[reason] ?? 0 }
            return 0
        }
    }
}

/// One way a case failed.
public enum PipelineTestFailure: Sendable, Equatable {
    /// A received record differs from the expected one in these fields.
    case record(output: String, index: Int, mismatches: [RecordMatcher.Mismatch], got: String)
    /// Fewer records were received than expected.
    case missing(output: String, index: Int, expected: String)
    /// More records were received than expected.
    case extra(output: String, index: Int, got: String)
    /// A received record is not a JSON object (an encoder bug, reported rather than hidden).
    case notJSON(output: String, index: Int, got: String)
    case count(name: String, expected: Int, got: Int)
    /// The pipeline could not run at all.
    case runFailed(String)

    /// The diff lines, indented under the case's FAIL line.
    public var lines: [String] {
        switch self {
        case let .record(output, index, mismatches, got):
            return mismatches.map { "\(output), record \(index), " + ($0.path.isEmpty ? "the record" : $0.path)
                + ": expected \($0.expected), got \($0.got)" } + ["    record \(index) was: \(got)"]
        case let .missing(output, index, expected):
            return ["\(output), record \(index): missing; expected \(expected)"]
        case let .extra(output, index, got):
            return ["\(output), record \(index): extra; got \(got)"]
        case let .notJSON(output, index, got):
            return ["\(output), record \(index): not a JSON object: \(got)"]
        case let .count(name, expected, got):
            return ["counts.\(name): expected \(expected), got \(got)"]
        case let .runFailed(message):
            return ["the pipeline did not run: \(message)"]
        }
    }
}

/// What one case did.
public struct PipelineTestResult: Sendable {
    public var testCase: PipelineTestCase
    public var file: String
    public var failures: [PipelineTestFailure]

    public var passed: Bool { failures.isEmpty }

    /// `PASS file: name`, or `FAIL file:line:column: name` and the diff, one difference per line.
    public var report: String {
        if passed { return "PASS \(file): \(testCase.name)" }
        let head = "FAIL \(file):\(testCase.line):\(testCase.column): \(testCase.name)"
        return ([head] + failures.flatMap(\.lines).map { "  " + $0 }).joined(separator: "\n")
    }
}
