@testable import Sluice
@testable import SluiceJSON
import Testing

/// One rule of the timed stage: input lines, what comes out (see `TimedHarness.Outcome.summary`)
/// and the counters that must hold.
struct TimedRuleCase: CustomTestStringConvertible, Sendable {
    var rule: String
    var settings = TimedSettings()
    var input: [String]
    var expected: [String]
    var counters: [String: Int] = [:]

    var testDescription: String { rule }
}

private typealias H = TimedHarness

/// Properties of about 10 kB, and 20 kB: a few of them fill a small `max_open_bytes`.
private let big = #"{"blob":"\#(String(repeating: "x", count: 10_000))"}"#
private let huge = #"{"blob":"\#(String(repeating: "x", count: 20_000))"}"#

private let rules: [TimedRuleCase] = [
    TimedRuleCase(
        rule: "a stop pairs with the open start into one completed event; the start's line is merged",
        input: [H.start("video", at: 0), H.stop("video", at: 5.5)],
        expected: ["video L2 completed 5500ms", "merged L1"],
        counters: ["completed": 1, "open_high_water": 1]),
    TimedRuleCase(
        rule: "a second start restarts the timer and the first start is abandoned as restarted",
        input: [H.start("video", at: 0), H.start("video", at: 10), H.stop("video", at: 15)],
        expected: ["video L1 abandoned restarted", "video L3 completed 5000ms", "merged L2"],
        counters: ["restarts": 1, "abandoned_restarted": 1, "completed": 1]),
    TimedRuleCase(
        rule: "a restarting start that arrives late and is older than the open one is the one abandoned",
        input: [H.start("video", at: 10), H.start("video", at: 0), H.stop("video", at: 15)],
        expected: ["video L2 abandoned restarted", "video L3 completed 5000ms", "merged L1"],
        counters: ["restarts": 1, "abandoned_restarted": 1, "completed": 1]),
    TimedRuleCase(
        rule: "a start never stopped is abandoned at the end of input",
        input: [H.start("video", at: 0), H.screen("home", at: 1)],
        expected: ["home L2", "video L1 abandoned end_of_input"],
        counters: ["abandoned_end_of_input": 1]),
    TimedRuleCase(
        rule: "a start expires only once the watermark (latest time minus lateness) passes start plus expire_after",
        input: [H.start("video", at: 0), H.screen("home", at: 2100), H.screen("home", at: 2100.001)],
        expected: ["home L2", "video L1 abandoned expired", "home L3"],
        counters: ["abandoned_expired": 1]),
    TimedRuleCase(
        rule: "expired starts come out in start-time order, then arrival order",
        input: [H.start("b", at: 5), H.start("a", at: 1), H.start("c", at: 1), H.screen("home", at: 3000)],
        expected: ["a L2 abandoned expired", "c L3 abandoned expired", "b L1 abandoned expired", "home L4"],
        counters: ["abandoned_expired": 3]),
    TimedRuleCase(
        rule: "starts left at the end of input come out in start-time order, then arrival order",
        input: [H.start("b", at: 5), H.start("a", at: 1), H.start("c", at: 1)],
        expected: ["a L2 abandoned end_of_input", "c L3 abandoned end_of_input", "b L1 abandoned end_of_input"],
        counters: ["abandoned_end_of_input": 3, "open_high_water": 3]),
    TimedRuleCase(
        rule: "a start that arrives after its expiry already passed is abandoned at once",
        input: [H.screen("home", at: 4000), H.start("video", at: 0), H.screen("home", at: 4001)],
        expected: ["home L1", "video L2 abandoned expired", "home L3"],
        counters: ["abandoned_expired": 1]),
    TimedRuleCase(
        rule: "a stop more than expire_after after its start does not pair: the start expired",
        input: [H.start("video", at: 0), H.stop("video", at: 1800.001)],
        expected: ["video L1 abandoned expired", "video L2 orphan_stop"],
        counters: ["abandoned_expired": 1, "orphan_stops": 1, "completed": 0]),
    TimedRuleCase(
        rule: "a stop exactly expire_after after its start still pairs",
        input: [H.start("video", at: 0), H.stop("video", at: 1800)],
        expected: ["video L2 completed 1800000ms", "merged L1"],
        counters: ["completed": 1]),
    TimedRuleCase(
        rule: "beyond max_open the least recently touched start is evicted",
        settings: H.settings { $0.maxOpen = 2 },
        input: [H.start("a", at: 0), H.start("b", at: 1), H.start("c", at: 2), H.stop("b", at: 3)],
        expected: ["a L1 abandoned evicted", "b L4 completed 2000ms", "c L3 abandoned end_of_input", "merged L2"],
        counters: ["abandoned_evicted": 1, "open_high_water": 2]),
    TimedRuleCase(
        rule: "beyond max_open_bytes the least recently touched starts are evicted, as beyond max_open",
        settings: H.settings { $0.maxOpenBytes = 25_000 },
        input: [H.start("a", at: 0, properties: big), H.start("b", at: 1, properties: big), H.start("c", at: 2, properties: big),
                H.stop("c", at: 3)],
        expected: ["a L1 abandoned evicted", "c L4 completed 1000ms", "b L2 abandoned end_of_input", "merged L3"],
        counters: ["abandoned_evicted": 1, "open_high_water": 2]),
    TimedRuleCase(
        rule: "a start larger than max_open_bytes on its own is evicted at once, the others kept",
        settings: H.settings { $0.maxOpenBytes = 15_000 },
        input: [H.start("a", at: 0), H.start("b", at: 1, properties: huge), H.stop("a", at: 2)],
        expected: ["b L2 abandoned evicted", "a L3 completed 2000ms", "merged L1"],
        counters: ["abandoned_evicted": 1]),
    TimedRuleCase(
        rule: "a restart touches the timer, so eviction takes another one",
        settings: H.settings { $0.maxOpen = 2 },
        input: [H.start("a", at: 0), H.start("b", at: 1), H.start("a", at: 2), H.start("c", at: 3)],
        expected: ["a L1 abandoned restarted", "b L2 abandoned evicted",
                   "a L3 abandoned end_of_input", "c L4 abandoned end_of_input"],
        counters: ["abandoned_evicted": 1, "abandoned_restarted": 1, "open_high_water": 2]),
    TimedRuleCase(
        rule: "held stops count toward max_open and an evicted one comes out as an orphan",
        settings: H.settings { $0.maxOpen = 1 },
        input: [H.stop("a", at: 0), H.start("b", at: 1)],
        expected: ["a L1 orphan_stop", "b L2 abandoned end_of_input"],
        counters: ["orphan_stops": 1, "open_high_water": 1]),
    TimedRuleCase(
        rule: "with on_abandoned drop an abandoned start is dropped and counted",
        settings: H.settings { $0.onAbandoned = .drop },
        input: [H.start("video", at: 0), H.start("video", at: 10)],
        expected: ["dropped L1 abandoned_timer", "dropped L2 abandoned_timer"],
        counters: ["abandoned_restarted": 1, "abandoned_end_of_input": 1]),
    TimedRuleCase(
        rule: "with on_abandoned drop a pair still completes",
        settings: H.settings { $0.onAbandoned = .drop },
        input: [H.start("video", at: 0), H.stop("video", at: 2)],
        expected: ["video L2 completed 2000ms", "merged L1"],
        counters: ["completed": 1]),
    TimedRuleCase(
        rule: "a stop with no start passes, marked orphan_stop, with no duration",
        input: [H.stop("video", at: 0)],
        expected: ["video L1 orphan_stop"],
        counters: ["orphan_stops": 1]),
    TimedRuleCase(
        rule: "a stop with no start is rejected with on_orphan_stop reject",
        settings: H.settings { $0.onOrphanStop = .reject },
        input: [H.stop("video", at: 0)],
        expected: ["rejected L1 orphan_stop"],
        counters: ["orphan_stops": 1]),
    TimedRuleCase(
        rule: "a stop that arrives before its start pairs when the start comes within the lateness",
        input: [H.stop("video", at: 10), H.start("video", at: 0)],
        expected: ["video L1 completed 10000ms", "merged L2"],
        counters: ["completed": 1, "orphan_stops": 0]),
    TimedRuleCase(
        rule: "a held stop comes out as an orphan as soon as the watermark passes its time",
        input: [H.stop("video", at: 10), H.screen("home", at: 310), H.screen("home", at: 310.001), H.start("video", at: 0)],
        expected: ["home L2", "video L1 orphan_stop", "home L3", "video L4 abandoned end_of_input"],
        counters: ["orphan_stops": 1, "abandoned_end_of_input": 1]),
    TimedRuleCase(
        rule: "a stop already behind the watermark with no start is an orphan at once",
        input: [H.screen("home", at: 1000), H.stop("video", at: 100), H.screen("home", at: 1001)],
        expected: ["home L1", "video L2 orphan_stop", "home L3"],
        counters: ["orphan_stops": 1]),
    TimedRuleCase(
        rule: "a start later than a held stop never pairs with it",
        input: [H.stop("video", at: 5), H.start("video", at: 10)],
        expected: ["video L1 orphan_stop", "video L2 abandoned end_of_input"],
        counters: ["completed": 0]),
    TimedRuleCase(
        rule: "an open start later than the stop never pairs with it",
        input: [H.start("video", at: 10), H.stop("video", at: 5)],
        expected: ["video L2 orphan_stop", "video L1 abandoned end_of_input"],
        counters: ["completed": 0]),
    TimedRuleCase(
        rule: "a late start pairs with the held stop even while a later start is open",
        input: [H.stop("video", at: 5), H.start("video", at: 8), H.start("video", at: 1), H.stop("video", at: 9)],
        expected: ["video L1 completed 4000ms", "video L4 completed 1000ms", "merged L3", "merged L2"],
        counters: ["completed": 2, "restarts": 0]),
    TimedRuleCase(
        rule: "two concurrent timers with different timerIds pair separately",
        input: [H.start("video", at: 0, timer: "p1"), H.start("video", at: 1, timer: "p2"),
                H.stop("video", at: 5, timer: "p2"), H.stop("video", at: 9, timer: "p1")],
        expected: ["video L3 completed 4000ms", "video L4 completed 9000ms", "merged L2", "merged L1"],
        counters: ["completed": 2, "restarts": 0, "open_high_water": 2]),
    TimedRuleCase(
        rule: "a timer without a timerId does not pair with one that has it",
        input: [H.start("video", at: 0, timer: "p1"), H.stop("video", at: 5)],
        expected: ["video L1 abandoned end_of_input", "video L2 orphan_stop"]),
    TimedRuleCase(
        rule: "the userId identifies the timer when there is no anonymousId",
        input: [H.track("login", "start", at: 0, who: nil, user: "u1"), H.track("login", "stop", at: 3, who: nil, user: "u1")],
        expected: ["login L2 completed 3000ms", "merged L1"]),
    TimedRuleCase(
        rule: "the anonymousId identifies the timer even when the stop also has a userId",
        input: [H.track("login", "start", at: 0), H.track("login", "stop", at: 3, user: "u1")],
        expected: ["login L2 completed 3000ms", "merged L1"]),
    TimedRuleCase(
        rule: "different devices and different event names never pair",
        input: [H.start("video", at: 0), H.stop("video", at: 1, who: "d2"), H.stop("audio", at: 2)],
        expected: ["video L1 abandoned end_of_input", "video L2 orphan_stop", "audio L3 orphan_stop"],
        counters: ["orphan_stops": 2, "abandoned_end_of_input": 1]),
    TimedRuleCase(
        rule: "non-track messages, tracks without the marker and other marker values pass through",
        input: [H.screen("home", at: 0), H.track("tap", nil, at: 1), H.track("video", "completed", at: 2),
                H.track("video", "pause", at: 3), #"{"type":"track","event":"x","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z","timed":1}"#],
        expected: ["home L1", "tap L2", "video L3 completed", "video L4 pause", "x L5"],
        counters: ["completed": 0, "open_high_water": 0]),
    TimedRuleCase(
        rule: "a custom marker and a nested correlate path key the timers",
        settings: H.settings {
            $0.marker = JSONPath("phase")
            $0.correlate = [JSONPath("properties.flow")]
        },
        input: [#"{"type":"track","event":"f","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z","phase":"start","properties":{"flow":1}}"#,
                #"{"type":"track","event":"f","anonymousId":"d","timestamp":"2026-11-20T08:00:01Z","phase":"start","properties":{"flow":2}}"#,
                #"{"type":"track","event":"f","anonymousId":"d","timestamp":"2026-11-20T08:00:03Z","phase":"stop","properties":{"flow":1}}"#,
                H.start("f", at: 4)],
        // The summary reads `timed`, which this pipeline leaves alone: the last line passes through.
        expected: ["f L3 3000ms", "f L4 start", "f L2 end_of_input", "merged L1"],
        counters: ["completed": 1, "abandoned_end_of_input": 1]),
]

@Suite struct TimedPairingRuleTests {
    @Test(arguments: rules)
    func rule(_ rule: TimedRuleCase) {
        let outcome = H.run(rule.input, rule.settings)
        #expect(outcome.summary == rule.expected)
        for (name, value) in rule.counters {
            #expect(outcome.counters[name] == value, "counter \(name)")
        }
        // Every line is accounted for exactly once.
        #expect(outcome.events.count + outcome.merged.count + outcome.dropped.count + outcome.rejected.count == rule.input.count)
    }
}
