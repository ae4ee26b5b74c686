@testable import Sluice
import Testing

/// One rule of the session stage: messages in arrival order, and each one's
/// session as `number.seq` (`*` when authenticated), plus counters that must hold.
struct SessionRuleCase: CustomTestStringConvertible, Sendable {
    var name: String
    var settings = "{}"
    var input: [String]
    var expected: [String]
    var counters: [String: Int] = [:]

    var testDescription: String { name }
}

private typealias C = StageCase
private let minute = StageCase.minute

let sessionRuleCases: [SessionRuleCase] = [
    SessionRuleCase(
        name: "a device's first event starts session 1 and each event takes the next seq",
        input: [C.track(0), C.track(1000), C.track(2000)],
        expected: ["1.1", "1.2", "1.3"],
        counters: ["started_first_seen": 1]),
    SessionRuleCase(
        name: "a gap of exactly `inactivity` continues the session, a longer one starts a new one",
        input: [C.track(0), C.track(30 * minute), C.track(60 * minute + 1)],
        expected: ["1.1", "1.2", "2.1"],
        counters: ["started_inactivity": 1]),
    SessionRuleCase(
        name: "inactivity is configurable",
        settings: "{inactivity: 1m}",
        input: [C.track(0), C.track(minute), C.track(2 * minute + 1)],
        expected: ["1.1", "1.2", "2.1"],
        counters: ["started_inactivity": 1]),
    SessionRuleCase(
        name: "a session message with action start starts a new session with itself as seq 1",
        input: [C.track(0), C.sessionStart(1000), C.track(2000)],
        expected: ["1.1", "2.1", "2.2"],
        counters: ["started_session_message": 1, "started_first_seen": 1]),
    SessionRuleCase(
        name: "a device's first message being a session start counts as first seen, once",
        input: [C.sessionStart(0), C.track(1000)],
        expected: ["1.1", "1.2"],
        counters: ["started_session_message": 0, "started_first_seen": 1]),
    SessionRuleCase(
        name: "a session message with another action does not start a session",
        input: [C.track(0), C.message("session", at: 1000, extra: #""action":"end""#), C.track(2000)],
        expected: ["1.1", "1.2", "1.3"],
        counters: ["started_session_message": 0]),
    SessionRuleCase(
        name: "signing in from anonymous makes the running session authenticated",
        input: [C.track(0), C.identify(1000, user: "u1"), C.track(2000, user: "u1")],
        expected: ["1.1", "1.2*", "1.3*"],
        counters: ["started_user_change": 0]),
    SessionRuleCase(
        name: "signing in as someone else starts a new session",
        input: [C.track(0, user: "u1"), C.identify(1000, user: "u2"), C.track(2000, user: "u2")],
        expected: ["1.1*", "2.1*", "2.2*"],
        counters: ["started_user_change": 1]),
    SessionRuleCase(
        name: "the userId disappearing after a sign-out starts an unauthenticated session",
        input: [C.track(0, user: "u1"), C.signedOut(1000, user: "u1"), C.track(2000), C.track(3000)],
        expected: ["1.1*", "1.2*", "2.1", "2.2"],
        counters: ["started_user_change": 1]),
    SessionRuleCase(
        name: "a sign-out followed by a session start makes one new session, not two",
        input: [C.track(0, user: "u1"), C.signedOut(1000, user: "u1"), C.sessionStart(1001), C.track(2000)],
        expected: ["1.1*", "1.2*", "2.1", "2.2"],
        counters: ["started_session_message": 1, "started_user_change": 0]),
    SessionRuleCase(
        name: "a userId missing without a sign-out changes nothing: still the same signed-in session",
        input: [C.track(0, user: "u1"), C.track(1000), C.track(2000, user: "u1")],
        expected: ["1.1*", "1.2*", "1.3*"],
        counters: ["started_user_change": 0]),
    SessionRuleCase(
        name: "after a sign-out the same user signing in again continues the session",
        input: [C.track(0, user: "u1"), C.signedOut(1000, user: "u1"), C.track(2000, user: "u1")],
        expected: ["1.1*", "1.2*", "1.3*"],
        counters: ["started_user_change": 0]),
    SessionRuleCase(
        name: "sign-out events are configurable",
        settings: "{sign_out_events: [Signed Out]}",
        input: [C.track(0, user: "u1"), C.signedOut(1000, user: "u1"), C.track(2000),
                C.track(3000, user: "u1", event: "Signed Out"), C.track(4000)],
        expected: ["1.1*", "1.2*", "1.3*", "1.4*", "2.1"],
        counters: ["started_user_change": 1]),
    SessionRuleCase(
        name: "a session longer than max_length is split at the next event",
        settings: "{max_length: 1h}",
        input: [C.track(0), C.track(20 * minute), C.track(40 * minute), C.track(60 * minute), C.track(80 * minute)],
        expected: ["1.1", "1.2", "1.3", "1.4", "2.1"],
        counters: ["started_max_length": 1, "started_inactivity": 0]),
    SessionRuleCase(
        name: "devices have their own sessions",
        input: [C.track(0, who: "d1"), C.track(1000, who: "d2"), C.track(2000, who: "d1"), C.track(40 * minute, who: "d2")],
        expected: ["1.1", "1.1", "1.2", "2.1"],
        counters: ["started_first_seen": 2, "started_inactivity": 1]),
    SessionRuleCase(
        name: "a message with only a userId is keyed by it, apart from an anonymousId with the same text",
        input: [C.track(0, who: nil, user: "x"), C.track(1000, who: "x"), C.track(2000, who: nil, user: "x")],
        expected: ["1.1*", "1.1", "1.2*"],
        counters: ["started_first_seen": 2]),
    SessionRuleCase(
        name: "a late event in the current session takes the next seq and engagement 1",
        input: [C.track(0), C.track(10_000), C.track(5000)],
        expected: ["1.1", "1.2", "1.3"],
        counters: ["late_events_placed": 1]),
    SessionRuleCase(
        name: "a late event goes to the session that was current at its time",
        input: [C.track(0), C.track(10 * minute), C.sessionStart(12 * minute), C.track(11 * minute), C.track(13 * minute)],
        expected: ["1.1", "1.2", "2.1", "1.3", "2.2"],
        counters: ["late_events_placed": 1, "started_session_message": 1]),
    SessionRuleCase(
        name: "a late session start does not start a session",
        input: [C.track(0), C.track(10 * minute), C.sessionStart(5 * minute), C.track(11 * minute)],
        expected: ["1.1", "1.2", "1.3", "1.4"],
        counters: ["started_session_message": 0, "late_events_placed": 1]),
    SessionRuleCase(
        name: "a late event does not stretch the session: inactivity counts from the latest in-order event",
        input: [C.track(0), C.track(10 * minute), C.track(9 * minute), C.track(40 * minute + 1)],
        expected: ["1.1", "1.2", "1.3", "2.1"],
        counters: ["started_inactivity": 1]),
    SessionRuleCase(
        name: "a late sign-in as someone else neither starts a session nor signs in",
        input: [C.track(0, user: "u1"), C.track(10_000, user: "u1"), C.identify(5000, user: "u2"), C.track(11_000, user: "u1")],
        expected: ["1.1*", "1.2*", "1.3*", "1.4*"],
        counters: ["started_user_change": 0]),
    SessionRuleCase(
        name: "a late event keeps the authentication of its own session",
        input: [C.track(0), C.sessionStart(60_000, user: "u1"), C.track(30_000)],
        expected: ["1.1", "2.1*", "1.2"]),
    SessionRuleCase(
        name: "an event later than the lateness gets no session, never one that began after it",
        settings: "{lateness: 1m}",
        input: [C.track(0), C.sessionStart(10 * minute), C.track(20 * minute), C.track(5 * minute)],
        expected: ["1.1", "2.1", "2.2", "none"],
        counters: ["late_events_too_late": 1, "late_events_placed": 0]),
    SessionRuleCase(
        name: "within the lateness the past session is still there",
        settings: "{lateness: 15m}",
        input: [C.track(0), C.sessionStart(10 * minute), C.track(20 * minute), C.track(5 * minute)],
        expected: ["1.1", "2.1", "2.2", "1.2"],
        counters: ["late_events_too_late": 0, "late_events_placed": 1]),
    SessionRuleCase(
        name: "an event earlier than a device's first session gets no session, not that later one",
        input: [C.track(60_000), C.track(1000)],
        expected: ["1.1", "none"],
        counters: ["late_events_too_late": 1]),
    SessionRuleCase(
        name: "beyond max_devices the least recently active device is forgotten and starts afresh",
        settings: "{max_devices: 2}",
        input: [C.track(0, who: "d1"), C.track(1000, who: "d2"), C.track(1500, who: "d1"), C.track(2000, who: "d3"),
                C.track(2500, who: "d1"), C.track(3000, who: "d2")],
        expected: ["1.1", "1.1", "1.2", "1.1", "1.3", "1.1"],
        counters: ["evicted": 2, "started_first_seen": 4, "devices": 2, "devices_high_water": 2]),
]

@Suite struct SessionRuleTests {
    @Test(arguments: sessionRuleCases)
    func rule(_ rule: SessionRuleCase) {
        var stage = StageCase.sessionStage(rule.settings)
        let outcome = StageCase.run(rule.input, through: &stage)
        let sessions = outcome.documents.map { StageCase.session($0)?.short ?? "none" }
        #expect(sessions == rule.expected)
        for (name, value) in rule.counters {
            #expect(outcome.counters[name] == value, "counter \(name)")
        }
        // Every event passes through, in order.
        #expect(outcome.events.map(\.origin.line) == Array(1...Int64(rule.input.count)))
    }
}
