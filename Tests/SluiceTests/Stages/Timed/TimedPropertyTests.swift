import Foundation
@testable import Sluice
@testable import SluiceJSON
import SluiceTestSupport
import Testing

/// SplitMix64: a small seeded generator, so a failing seed can be replayed.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A random stream of timed starts and stops (pairs, lone starts, lone stops,
/// duplicates, restarts, other messages) delivered out of order.
struct TimedScenario {
    enum Role: Equatable { case start, stop, other }

    var lines: [String] = []
    /// By line index: the message's role and its unique `messageId`.
    var roles: [Role] = []
    var ids: [String] = []
    var settings = TimedSettings()

    /// - Parameters:
    ///   - disorder: how late a message may arrive, in ms of event time.
    ///   - uniqueKeys: give every pair its own timerId and keep each pair within expire_after.
    static func make(seed: UInt64, disorder: Int? = nil, uniqueKeys: Bool = false) -> TimedScenario {
        var random = SeededRandom(seed: seed)
        var scenario = TimedScenario()
        let expireAfterMs = [60_000, 1_800_000].randomElement(using: &random)!
        let latenessMs = [0, 10_000, 300_000].randomElement(using: &random)!
        scenario.settings.expireAfter = .milliseconds(expireAfterMs)
        scenario.settings.lateness = .milliseconds(latenessMs)
        if !uniqueKeys {
            scenario.settings.maxOpen = [1, 3, 1_000_000].randomElement(using: &random)!
            scenario.settings.onAbandoned = Bool.random(using: &random) ? .emit : .drop
            scenario.settings.onOrphanStop = Bool.random(using: &random) ? .pass : .reject
        }
        let maxDelay = disorder ?? [0, latenessMs, 2 * latenessMs + 1000].randomElement(using: &random)!
        let devices = Int.random(in: 1...4, using: &random)
        let span = Int.random(in: 10_000...4_000_000, using: &random)
        var messages: [(time: Int, arrival: Int, role: Role, json: (String) -> String)] = []
        var serial = 0
        func add(_ time: Int, _ role: Role, _ json: @escaping (String) -> String) {
            let delay = maxDelay == 0 ? 0 : Int.random(in: 0...maxDelay, using: &random)
            messages.append((time, time + delay, role, json))
        }
        for _ in 0..<Int.random(in: 1...60, using: &random) {
            let who = "d\(Int.random(in: 1...devices, using: &random))"
            let name = ["video", "checkout"].randomElement(using: &random)!
            serial += 1
            let timer: String? = uniqueKeys ? "t\(serial)" : [nil, nil, "p1", "p2"].randomElement(using: &random)!
            let begin = Int.random(in: 0...span, using: &random)
            let length = uniqueKeys ? Int.random(in: 0...expireAfterMs, using: &random)
                : Int.random(in: 0...(expireAfterMs * 3 / 2), using: &random)
            let start = { (id: String) in Self.track(id, name, "start", who, timer, begin, #"{"step":1,"shared":"s"}"#) }
            let stop = { (id: String) in Self.track(id, name, "stop", who, timer, begin + length, #"{"shared":"t","ok":true}"#) }
            switch uniqueKeys ? 0 : Int.random(in: 0..<10, using: &random) {
            case 0...4:
                add(begin, .start, start)
                add(begin + length, .stop, stop)
            case 5:
                add(begin, .start, start)
            case 6:
                add(begin + length, .stop, stop)
            case 7:
                // A duplicate (a second line with the same content but its own messageId).
                add(begin, .start, start)
                add(begin, .start, start)
                add(begin + length, .stop, stop)
                if Bool.random(using: &random) { add(begin + length, .stop, stop) }
            default:
                add(begin, .other) { id in
                    #"{"type":"screen","messageId":"\#(id)","name":"home","anonymousId":"\#(who)","timestamp":"\#(Self.timestamp(begin))"}"#
                }
                add(begin + 1, .other) { id in Self.track(id, name, nil, who, timer, begin + 1, "{}") }
            }
        }
        messages.sort { $0.arrival < $1.arrival }
        for (index, message) in messages.enumerated() {
            let id = "m\(index + 1)"
            scenario.lines.append(message.json(id))
            scenario.roles.append(message.role)
            scenario.ids.append(id)
        }
        return scenario
    }

    static func timestamp(_ ms: Int) -> String { TimedHarness.timestamp(Double(ms) / 1000) }

    static func track(_ id: String, _ name: String, _ marker: String?, _ who: String, _ timer: String?, _ ms: Int,
                      _ properties: String) -> String {
        var text = #"{"type":"track","messageId":"\#(id)","event":"\#(name)","anonymousId":"\#(who)","timestamp":"\#(timestamp(ms))""#
        if let marker { text += #","timed":"\#(marker)""# }
        if let timer { text += #","timerId":"\#(timer)""# }
        return text + #","properties":\#(properties)}"#
    }
}

@Suite struct TimedPropertyTests {
    /// Checks every invariant of one run; returns a description of each one broken.
    private func violations(_ scenario: TimedScenario, _ outcome: TimedHarness.Outcome) -> [String] {
        var problems: [String] = []
        var seen: [String: Int] = [:]
        let index = Dictionary(uniqueKeysWithValues: scenario.ids.enumerated().map { ($0.element, $0.offset) })
        var abandoned = 0, orphans = 0
        for event in outcome.events {
            let document = TimedHarness.written(event)
            guard let id = document.string(at: JSONPath("messageId")), let line = index[id] else {
                problems.append("an event with no known messageId")
                continue
            }
            seen[id, default: 0] += 1
            let role = scenario.roles[line]
            switch document.string(at: JSONPath("timed")) {
            case "completed":
                if role != .stop { problems.append("\(id): completed but not a stop") }
                guard let node = document.find(JSONPath("properties.duration_ms")),
                      let duration = Int64(String(decoding: TimedHarness.json(document, node), as: UTF8.self)),
                      let startedAtText = document.string(at: JSONPath("started_at")),
                      let startedAt = EventTime.parseISO8601(startedAtText)
                else {
                    problems.append("\(id): completed without duration_ms or started_at")
                    continue
                }
                if duration < 0 { problems.append("\(id): negative duration \(duration)") }
                if duration != (event.time.microseconds - startedAt.microseconds) / 1000 {
                    problems.append("\(id): duration \(duration) is not the time between started_at and timestamp")
                }
                if event.time.microseconds - startedAt.microseconds > Self.microseconds(scenario.settings.expireAfter) {
                    problems.append("\(id): paired beyond expire_after")
                }
            case "abandoned":
                abandoned += 1
                if role != .start { problems.append("\(id): abandoned but not a start") }
            case "orphan_stop":
                orphans += 1
                if role != .stop { problems.append("\(id): orphan but not a stop") }
            default:
                if role != .other { problems.append("\(id): a \(role) came out unchanged") }
                if event.document.isModified { problems.append("\(id): a message the stage does not pair was changed") }
            }
        }
        for origin in outcome.merged {
            let line = Int(origin.line) - 1
            seen[scenario.ids[line], default: 0] += 1
            if scenario.roles[line] != .start { problems.append("L\(origin.line): merged but not a start") }
        }
        for (origin, reason) in outcome.dropped {
            let line = Int(origin.line) - 1
            seen[scenario.ids[line], default: 0] += 1
            if scenario.roles[line] != .start || reason != .abandonedTimer { problems.append("L\(origin.line): dropped wrongly") }
        }
        for (event, reason) in outcome.rejected {
            let line = Int(event.origin.line) - 1
            seen[scenario.ids[line], default: 0] += 1
            if scenario.roles[line] != .stop || reason != .orphanStop { problems.append("L\(event.origin.line): rejected wrongly") }
        }
        for id in scenario.ids where seen[id] != 1 {
            problems.append("\(id) came out \(seen[id] ?? 0) times, not once")
        }
        let counters = outcome.counters
        if counters["completed"] != outcome.merged.count { problems.append("completed counter \(counters["completed"] ?? -1) ≠ merged") }
        let abandonedCounted = ["expired", "evicted", "end_of_input", "restarted"].reduce(0) { $0 + counters["abandoned_" + $1, default: 0] }
        if abandonedCounted != abandoned + outcome.dropped.count { problems.append("abandoned counters do not add up") }
        if counters["orphan_stops"] != orphans + outcome.rejected.count { problems.append("orphan_stops does not add up") }
        if counters["restarts"] != counters["abandoned_restarted"] { problems.append("restarts ≠ abandoned_restarted") }
        if counters["open_high_water", default: 0] > scenario.settings.maxOpen || outcome.maxOpen > scenario.settings.maxOpen {
            problems.append("more than max_open entries were held")
        }
        return problems
    }

    private static func microseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
    }

    @Test(arguments: 0..<400)
    func everyLineComesOutExactlyOnceAndNoDurationIsNegative(seed: Int) {
        let scenario = TimedScenario.make(seed: UInt64(seed))
        let outcome = TimedHarness.run(scenario.lines, scenario.settings)
        let problems = violations(scenario, outcome)
        #expect(problems.isEmpty, "seed \(seed): \(problems.prefix(5).joined(separator: "; "))")
    }

    @Test(arguments: 0..<100)
    func theSameInputGivesTheSameOutput(seed: Int) {
        let scenario = TimedScenario.make(seed: UInt64(seed))
        let first = TimedHarness.run(scenario.lines, scenario.settings)
        let second = TimedHarness.run(scenario.lines, scenario.settings)
        #expect(first.lines == second.lines)
        #expect(first.summary == second.summary)
        #expect(first.counters == second.counters)
    }

    @Test(arguments: 0..<100)
    func pairsWithinTheLatenessAndExpiryAlwaysComplete(seed: Int) {
        // Every pair has its own key, lasts at most expire_after, and each message is at most the lateness late.
        let bounded = TimedScenario.make(seed: UInt64(seed) &+ 10_000, disorder: 300_000, uniqueKeys: true)
        var settings = bounded.settings
        settings.lateness = .seconds(300)
        let outcome = TimedHarness.run(bounded.lines, settings)
        #expect(outcome.counters["completed"] == bounded.roles.filter { $0 == .start }.count, "seed \(seed)")
        #expect(outcome.counters["orphan_stops"] == 0)
        #expect(violations(bounded, outcome).isEmpty)
    }

    /// The runner over one file and over the same lines split into two inputs read one after another (`--concat`).
    @Test(arguments: 0..<12)
    func theOutputIsTheSameWhetherTheStreamComesInOneInputOrTwo(seed: Int) throws {
        let scenario = TimedScenario.make(seed: UInt64(seed) &+ 20_000)
        let settings = scenario.settings
        let yaml = """
        version: 1
        stages:
          - timed: {expire_after: \(settings.expireAfter.components.seconds)s, lateness: \(settings.lateness.components.seconds)s,
                    max_open: \(settings.maxOpen), on_abandoned: \(settings.onAbandoned.rawValue), on_orphan_stop: \(settings.onOrphanStop.rawValue)}
        destinations:
          archive: {type: ndjson}
        """
        let whole = scenario.lines.map { $0 + "\n" }.joined()
        let cut = scenario.lines.count / 2 + seed % 3
        let head = scenario.lines.prefix(cut).map { $0 + "\n" }.joined()
        let tail = scenario.lines.dropFirst(cut).map { $0 + "\n" }.joined()
        let one = try runPipeline(yaml, inputs: [whole])
        let two = try runPipeline(yaml, inputs: [head, tail])
        #expect(one.archive == two.archive, "seed \(seed)")
        #expect(one.summary.emitted == two.summary.emitted)
        #expect(one.summary.merged == two.summary.merged)
        #expect(one.summary.dropped == two.summary.dropped)
        #expect(one.summary.rejected == two.summary.rejected)
        #expect(one.summary.isBalanced && two.summary.isBalanced)
        #expect(one.summary.stages.first?.counters.map(\.value) == two.summary.stages.first?.counters.map(\.value))
    }

    private func runPipeline(_ yaml: String, inputs: [String]) throws -> (archive: [UInt8], summary: RunSummary) {
        let directory = TemporaryDirectory()
        let paths = inputs.enumerated().map { directory.write("in\($0.offset).ndjson", $0.element) }
        var options = RunOptions()
        options.outDirectory = directory.file("out")
        options.concatenateInputs = true
        let configuration = try PipelineConfiguration.load(yaml: yaml, file: "p.yaml")
        let summary = try PipelineRunner(configuration: configuration, options: options).run(inputs: paths)
        let files = directory.files().filter { $0.hasPrefix("out/archive/") && $0.hasSuffix(".gz") }.sorted()
        var archive: [UInt8] = []
        for file in files { archive += try #require(TestGzip.decompressFile(directory.file(file))) }
        return (archive, summary)
    }
}
