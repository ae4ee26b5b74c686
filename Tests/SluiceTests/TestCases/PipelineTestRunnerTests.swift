import Foundation
@testable import Sluice
import SluiceTestSupport
import Testing

@Suite struct PipelineTestRunnerTests {
    private let pipeline = """
    version: 1
    stages:
      - plan: {events: {movie_tapped: {properties: {movie_id: integer}, required: [movie_id]}}}
    destinations:
      archive: {type: ndjson}
      mixpanel: {type: mixpanel}
    tests:

    """

    private func results(_ tests: String) throws -> [PipelineTestResult] {
        let configuration = try PipelineConfiguration.load(yaml: pipeline + tests, file: "p.yaml")
        return try configuration.testCases().map { PipelineTestRunner.run($0, in: configuration) }
    }

    private func caseErrors(_ tests: String) throws -> [String] {
        let configuration = try PipelineConfiguration.load(yaml: pipeline + tests, file: "p.yaml")
        do {
            _ = try configuration.testCases()
            return []
        } catch {
            return error.diagnostics.map(\.description)
        }
    }

    private let tap = #"{type: track, event: movie_tapped, anonymousId: d1, userId: user-1, messageId: m1, timestamp: "2026-11-20T09:00:00Z", properties: {movie_id: 5}}"#

    @Test func aCaseWhoseExpectationsHoldPasses() throws {
        let found = try results("""
          - name: passes
            input: [\(tap)]
            expect:
              archive: [{event: movie_tapped, properties: {movie_id: 5}}]
              mixpanel: [{event: movie_tapped, properties: {distinct_id: user-1, time: 1795165200000}}]
              rejects: []
            counts: {lines_in: 1, emitted: 1, rejected: 0}
        """)
        #expect(found.map(\.passed) == [true])
        #expect(found[0].report == "PASS p.yaml: passes")
    }

    @Test func theDiffNamesTheCaseTheDestinationTheRecordAndTheField() throws {
        let found = try results("""
          - name: wrong id
            input: [\(tap)]
            expect:
              archive: [{event: movie_tapped, properties: {movie_id: "5"}}]
        """)
        let lines = found[0].report.split(separator: "\n").map(String.init)
        #expect(lines[0] == "FAIL p.yaml:8:5: wrong id")
        #expect(lines[1] == #"  archive, record 0, properties.movie_id: expected "5", got 5"#)
        #expect(lines[2].hasPrefix(#"      record 0 was: {"type":"track","event":"movie_tapped","#))
        #expect(lines.count == 3)
    }

    @Test func missingAndExtraRecordsAreReportedByIndex() throws {
        let found = try results("""
          - name: counts records
            input:
              - \(tap)
              - '{"type":"track","event":"movie_tapped","anonymousId":"d1","timestamp":"2026-11-20T09:00:01Z","properties":{"movie_id":6}}'
            expect:
              archive: [{properties: {movie_id: 5}}]
              mixpanel: []
          - name: expects more
            input: [\(tap)]
            expect:
              archive: [{properties: {movie_id: 5}}, {event: like_toggled}]
        """)
        #expect(found[0].failures.map(\.lines).joined().map { $0.components(separatedBy: ";")[0] } == [
            "archive, record 1: extra", "mixpanel, record 0: extra", "mixpanel, record 1: extra",
        ])
        #expect(found[1].failures.flatMap(\.lines) == [#"archive, record 1: missing; expected {"event":"like_toggled"}"#])
    }

    @Test func rejectsAndCountsAreCheckedToo() throws {
        let found = try results("""
          - name: no id
            input: ['{"type":"track","event":"movie_tapped","anonymousId":"d1","timestamp":"2026-11-20T09:00:00Z"}']
            expect:
              rejects: [unplanned_event]
            counts: {emitted: 1, plan_violation: 1}
        """)
        #expect(found[0].failures.flatMap(\.lines) == [
            #"rejects, record 0, reason: expected "unplanned_event", got "plan_violation""#,
            #"    record 0 was: {"source":"no id","line_number":1,"stage":"plan","reason":"plan_violation","detail":"properties.movie_id: missing_required, expected integer","line":"{\"type\":\"track\",\"event\":\"movie_tapped\",\"a…"#,
            "counts.emitted: expected 1, got 0",
        ])
    }

    @Test func everyCaseStartsFromFreshStageState() throws {
        let configuration = try PipelineConfiguration.load(yaml: """
        version: 1
        stages: [{dedupe: {}}]
        destinations: {archive: {type: ndjson}}
        tests:
          - {name: first, input: [\(tap)], expect: {archive: [{messageId: m1}]}}
          - {name: second, input: [\(tap)], expect: {archive: [{messageId: m1}]}}
        """, file: "p.yaml")
        let found = try configuration.testCases().map { PipelineTestRunner.run($0, in: configuration) }
        #expect(found.map(\.passed) == [true, true])
    }

    @Test func inMemoryOutputsTouchNoFileAndKeepRecordsInOrderAcrossHours() throws {
        let directory = TemporaryDirectory()
        let configuration = try PipelineConfiguration.load(yaml: pipeline, file: "p.yaml")
        let memory = MemoryOutputs()
        var options = RunOptions()
        options.outDirectory = directory.file("out")
        options.memoryOutputs = memory
        let lines = ["10:00", "09:00", "11:30"].map {
            #"{"type":"track","event":"movie_tapped","anonymousId":"d1","timestamp":"2026-11-20T\#($0):00Z","properties":{"movie_id":1}}"#
        } + ["broken"]
        let summary = try PipelineRunner(configuration: configuration, options: options)
            .run(bytes: Array(lines.joined(separator: "\n").utf8), named: "memory")
        #expect(summary.emitted == 3)
        #expect(directory.files().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: directory.file("out")))
        let archive = memory.records("archive").map { String(decoding: $0, as: UTF8.self) }
        // In event order: bytes in memory are bounded input, put in exact order as files are.
        #expect(archive == [lines[1], lines[0], lines[2]])
        #expect(memory.records("mixpanel").count == 3)
        #expect(memory.records("rejects").count == 1)
    }

    @Test func theShapeOfEveryCaseIsCheckedWithLocations() throws {
        let found = try caseErrors("""
          - name: one
            input: [{type: track, n: 0x10}, [1]]
            expect:
              archiv: []
              rejects: [plan_violaton, {reason: nope}]
            counts: {emited: 1}
          - name: one
            input: []
          - input: 5
            expect: {archive: ["not json"]}
        """)
        #expect(found == [
            "p.yaml:9:30: '0x10' in tests[1].input is a YAML number JSON cannot hold as written; write it as a JSON number, or quote it for a string",
            "p.yaml:9:37: each item of tests[1].input is an event (a YAML mapping) or one line of JSON (a string)",
            "p.yaml:11:7: unknown key 'archiv' in tests[1].expect; did you mean 'archive'?",
            "p.yaml:12:17: tests[1].expect.rejects: 'plan_violaton' is not a reject reason; did you mean 'plan_violation'?",
            "p.yaml:12:41: tests[1].expect.rejects: 'nope' is not a reject reason",
            "p.yaml:13:14: unknown key 'emited' in tests[1].counts; did you mean 'emitted'?",
            "p.yaml:14:5: tests[2] needs `expect:` (or `counts:`): a case that checks nothing cannot fail",
            "p.yaml:14:11: two test cases are named 'one'",
            "p.yaml:16:5: tests[3] needs `name:`",
            "p.yaml:16:12: tests[3].input must be a list of events (YAML mappings, or one line of JSON each)",
            "p.yaml:17:24: tests[3].expect.archive holds a string that is not a JSON object; write the record as a YAML mapping or as one line of JSON",
        ])
    }
}
