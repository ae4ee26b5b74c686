import Foundation
@testable import Sluice
@testable import SluiceJSON
import SluiceTestSupport
import Testing

/// Properties of the session stage over random multi-device streams.
@Suite struct SessionPropertyTests {
    /// One emitted event's session, with its message.
    private struct Placed {
        var message: SessionScenario.Message
        var id: String
        var number: Int
        var seq: Int
        var start: Int
        var engagement: Int
        var authenticated: Bool
    }

    private func place(_ scenario: SessionScenario, _ settings: String = "{}") -> (placed: [Placed], counters: [String: Int]) {
        var stage = StageCase.sessionStage(settings)
        let outcome = StageCase.run(scenario.lines, through: &stage)
        #expect(outcome.events.count == scenario.messages.count)
        // `context.session` is in the bytes and on the tape, exactly as parsing the bytes would index it.
        for event in outcome.events {
            #expect(!event.document.isModified)
            #expect((try? JSONDocument.parse(event.document.bytes))?.tape.elementsEqual(event.document.tape) == true)
        }
        let base = Int(StageCase.base.milliseconds)
        var withoutSession = 0
        let placed = zip(outcome.events, outcome.documents).compactMap { event, document -> Placed? in
            let message = scenario.messages[Int(event.origin.line) - 1]
            guard let view = StageCase.session(document) else {
                // Only a late event older than every session its device remembers goes without.
                #expect(message.isLate)
                withoutSession += 1
                return nil
            }
            // Never a session that began after the event.
            #expect(view.startMilliseconds - base <= message.time, "\(message.line) placed in a session starting later")
            return Placed(message: message, id: view.id, number: view.number,
                          seq: view.seq, start: view.startMilliseconds - base, engagement: view.engagement,
                          authenticated: view.authenticated)
        }
        #expect(withoutSession == outcome.counters["late_events_too_late", default: 0])
        return (placed, outcome.counters)
    }

    @Test(arguments: 1...8)
    func seqNumbersRunOneToNWithoutGapsAndSessionIdsAreNeverSharedBetweenDevices(seed: Int) {
        for settings in ["{}", "{max_devices: 5}", "{inactivity: 2m, lateness: 30s}"] {
            let scenario = SessionScenario.make(seed: UInt64(seed), lateShare: 0.08, duplicateShare: 0.02)
            let (placed, counters) = place(scenario, settings)
            var seqs: [String: [Int]] = [:]
            var devices: [String: String] = [:]
            var starts: [String: (Int, Int)] = [:]
            for event in placed {
                seqs[event.id, default: []].append(event.seq)
                if let device = devices[event.id] {
                    #expect(device == event.message.device, "session \(event.id) shared by \(device) and \(event.message.device)")
                }
                devices[event.id] = event.message.device
                if let known = starts[event.id] { #expect(known == (event.start, event.number)) }
                starts[event.id] = (event.start, event.number)
                #expect(event.engagement >= 1)
            }
            for (id, list) in seqs {
                #expect(list == Array(1...list.count), "session \(id) (\(settings)) has seqs \(list)")
            }
            let started = ["started_session_message", "started_inactivity", "started_user_change", "started_max_length",
                           "started_first_seen"].reduce(0) { $0 + counters[$1, default: 0] }
            #expect(started == seqs.count, "every session is counted once by its cause (\(settings))")
            if settings == "{}" {
                #expect(counters["evicted"] == 0)
                // Numbers per device run 1...k in the order sessions start.
                var numbers: [String: [Int]] = [:]
                for event in placed where event.seq == 1 { numbers[event.message.device, default: []].append(event.number) }
                for (device, list) in numbers { #expect(list == Array(1...list.count), "device \(device): \(list)") }
            }
        }
    }

    @Test(arguments: 1...8)
    func inOrderASessionChangesOnlyForAReasonAndIsAuthenticatedWhileSomeoneIsSignedIn(seed: Int) {
        let scenario = SessionScenario.make(seed: UInt64(seed), lateShare: 0)
        let (placed, counters) = place(scenario)
        #expect(counters["late_events_placed"] == 0)
        var previous: [String: Placed] = [:]
        // A model of who is signed in on each device, and whether a sign-out is pending.
        var currentUser: [String: String] = [:]
        var signOutPending: Set<String> = []
        let inactivity = 30 * StageCase.minute
        for event in placed {
            let device = event.message.device
            let line = event.message.line
            let user = (try? JSONDocument.parse(Array(line.utf8)))?.string(at: JSONPath("userId"))
            let current = currentUser[device]
            let leaves = current != nil && (user != nil ? user != current : signOutPending.contains(device))
            if let before = previous[device] {
                let gap = event.message.time - before.message.time
                let isStart = line.contains(#""action":"start""#)
                if event.id == before.id {
                    #expect(event.seq == before.seq + 1)
                    #expect(gap <= inactivity, "a gap of \(gap) ms inside a session")
                    #expect(!isStart && !leaves, "a session start or a user change inside a session: \(line)")
                    #expect(event.engagement == max(1, gap))
                } else {
                    #expect(event.number == before.number + 1 && event.seq == 1)
                    let reason = isStart || leaves || gap > inactivity || event.message.time - before.start > 24 * 60 * StageCase.minute
                    #expect(reason, "a new session without a reason: \(line)")
                    #expect(event.start == event.message.time && event.engagement == 1)
                }
            } else {
                #expect(event.number == 1 && event.seq == 1)
            }
            if leaves || user != nil { currentUser[device] = user }
            if event.seq == 1 { signOutPending.remove(device) }
            if line.contains(#""event":"signed_out""#) { signOutPending.insert(device) }
            #expect(event.authenticated == (currentUser[device] != nil), "\(line)")
            previous[device] = event
        }
    }

    @Test(arguments: 1...8)
    func aLateEventWithinTheLatenessGoesToTheSessionCurrentAtItsTime(seed: Int) {
        let scenario = SessionScenario.make(seed: UInt64(seed), lateShare: 0.1, maxDelay: 4 * StageCase.minute)
        let (placed, counters) = place(scenario, "{lateness: 5m}")
        // Sessions seen so far per device: id → start.
        var sessions: [String: [String: Int]] = [:]
        var latestTime: [String: Int] = [:]
        var late = 0
        for event in placed {
            let device = event.message.device
            if let latest = latestTime[device], event.message.time < latest {
                late += 1
                let known = sessions[device, default: [:]]
                let candidates = known.filter { $0.value <= event.message.time }
                if let expected = candidates.max(by: { ($0.value, $0.key) < ($1.value, $1.key) }) {
                    #expect(event.id == expected.key, "late \(event.message.line) went to a session starting at \(event.start)")
                } else {
                    // Earlier than every session the device had: such an event gets none (see `place`).
                    Issue.record("late \(event.message.line) placed although no session of its device began before it")
                }
                #expect(event.engagement == 1)
            } else {
                latestTime[device] = event.message.time
            }
            sessions[device, default: [:]][event.id] = event.start
        }
        #expect(late > 0)
        #expect(counters["late_events_placed", default: 0] == late)
    }

    /// The same output however the input is split into runner inputs, and on every run.
    @Test(arguments: 1...4)
    func theOutputIsTheSameFromOneInputOrTwoAndOnEveryRun(seed: Int) throws {
        let scenario = SessionScenario.make(seed: UInt64(seed), devices: 20, events: 3000, lateShare: 0.05, duplicateShare: 0.02)
        let text = scenario.lines.map { $0 + "\n" }
        var random = StageTestRandom(seed: UInt64(seed))
        let cut = Int(random.next() % UInt64(text.count))
        let directory = TemporaryDirectory()
        let whole = directory.write("whole.ndjson", text.joined())
        let first = directory.write("first.ndjson", text[..<cut].joined())
        let second = directory.write("second.ndjson", text[cut...].joined())
        let yaml = """
            version: 1
            stages:
              - dedupe: {max_ids: 1000}
              - session: {inactivity: 10m, lateness: 2m, attach: {traits: [plan]}}
            destinations:
              archive: {type: ndjson}
            """
        func run(_ inputs: [String], _ out: String) throws -> [String: [UInt8]] {
            var options = RunOptions()
            options.outDirectory = directory.file(out)
            // The two parts are read one after another (`--concat`): where the cut falls must not matter.
            options.concatenateInputs = true
            let configuration = try PipelineConfiguration.load(yaml: yaml, file: "p.yaml")
            let summary = try PipelineRunner(configuration: configuration, options: options).run(inputs: inputs)
            #expect(summary.isBalanced)
            var files: [String: [UInt8]] = [:]
            for file in directory.files() where file.hasPrefix(out + "/archive/") {
                files[String(file.dropFirst(out.count + 1))] = TestGzip.decompressFile(directory.file(file))
            }
            return files
        }
        let one = try run([whole], "one")
        let two = try run([first, second], "two")
        let again = try run([whole], "again")
        #expect(!one.isEmpty)
        #expect(one == two)
        #expect(one == again)
    }
}
