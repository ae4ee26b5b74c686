@testable import Sluice
@testable import SluiceJSON
import Testing

/// Builds timed-event test messages and runs them through a `TimedEventPairing`.
enum TimedHarness {
    /// 2026-11-20T08:00:00Z, the base of every test's event time.
    static let base = EventTime.parseISO8601("2026-11-20T08:00:00Z")!

    /// The ISO 8601 text of `base + seconds`.
    static func timestamp(_ seconds: Double) -> String {
        EventTime(microseconds: base.microseconds + Int64((seconds * 1_000_000).rounded())).iso8601
    }

    /// A track message; `marker` nil leaves out `timed`; `who` is the `anonymousId` (nil: none), `user` the `userId`.
    static func track(_ event: String, _ marker: String?, at seconds: Double, who: String? = "d1", user: String? = nil,
                      timer: String? = nil, properties: String? = nil, id: String? = nil) -> String {
        var fields = [#""type":"track""#]
        if let id { fields.append(#""messageId":"\#(id)""#) }
        fields.append(#""event":"\#(event)""#)
        if let who { fields.append(#""anonymousId":"\#(who)""#) }
        if let user { fields.append(#""userId":"\#(user)""#) }
        fields.append(#""timestamp":"\#(timestamp(seconds))""#)
        if let marker { fields.append(#""timed":"\#(marker)""#) }
        if let timer { fields.append(#""timerId":"\#(timer)""#) }
        if let properties { fields.append(#""properties":\#(properties)"#) }
        return "{" + fields.joined(separator: ",") + "}"
    }

    static func start(_ event: String, at seconds: Double, who: String = "d1", timer: String? = nil, properties: String? = nil) -> String {
        track(event, "start", at: seconds, who: who, timer: timer, properties: properties)
    }

    static func stop(_ event: String, at seconds: Double, who: String = "d1", timer: String? = nil, properties: String? = nil) -> String {
        track(event, "stop", at: seconds, who: who, timer: timer, properties: properties)
    }

    static func screen(_ name: String, at seconds: Double, who: String = "d1") -> String {
        #"{"type":"screen","name":"\#(name)","anonymousId":"\#(who)","timestamp":"\#(timestamp(seconds))"}"#
    }

    /// What the stage let out for one run.
    struct Outcome {
        var events: [Event] = []
        var merged: [Origin] = []
        var dropped: [(origin: Origin, reason: DropReason)] = []
        var rejected: [(event: Event, reason: RejectReason)] = []
        var counters: [String: Int] = [:]
        var maxOpen = 0

        /// Each emitted event as canonical JSON text, in order.
        var lines: [String] { events.map { String(decoding: $0.document.canonicalJSON, as: UTF8.self) } }

        /// A short line per outcome: emitted events in order, then the settled lines:
        /// `video L4 completed 5500ms`, `video L1 abandoned restarted`, `merged L1`,
        /// `dropped L2 abandoned_timer`, `rejected L3 orphan_stop`.
        var summary: [String] {
            events.map(TimedHarness.summary) + merged.map { "merged L\($0.line)" }
                + dropped.map { "dropped L\($0.origin.line) \($0.reason.rawValue)" }
                + rejected.map { "rejected L\($0.event.origin.line) \($0.reason.rawValue)" }
        }
    }

    /// The event as it would be written (edits applied), parsed again to be read.
    static func written(_ event: Event) -> JSONDocument {
        try! JSONDocument.parse(event.document.canonicalJSON)
    }

    static func summary(_ event: Event) -> String {
        let document = written(event)
        var text = "\(event.nameString) L\(event.origin.line)"
        if let timed = document.string(at: JSONPath("timed")) { text += " " + timed }
        if let node = document.find(JSONPath("properties.duration_ms")) {
            text += " " + String(decoding: json(document, node), as: UTF8.self) + "ms"
        }
        if let reason = document.string(at: JSONPath("abandon_reason")) { text += " " + reason }
        return text
    }

    /// Decodes `lines` (line numbers from 1) and runs them through a new stage, then its `finish`.
    static func run(_ lines: [String], _ settings: TimedSettings = TimedSettings(), finish: Bool = true) -> Outcome {
        var stage = TimedEventPairing(settings: settings)
        var outcome = feed(lines, into: &stage, firstLine: 1)
        if finish {
            var output = StageOutput()
            stage.finish(into: &output)
            collect(output, into: &outcome)
        }
        outcome.counters = Dictionary(uniqueKeysWithValues: stage.counters.map { ($0.name, $0.value) })
        return outcome
    }

    static func feed(_ lines: [String], into stage: inout TimedEventPairing, firstLine: Int64) -> Outcome {
        var outcome = Outcome()
        for (offset, line) in lines.enumerated() {
            let event = decode(line, line: firstLine + Int64(offset))
            var output = StageOutput()
            stage.process(event, into: &output)
            collect(output, into: &outcome)
            outcome.maxOpen = max(outcome.maxOpen, stage.openCount)
        }
        return outcome
    }

    static func decode(_ line: String, line number: Int64) -> Event {
        let bytes = Array(line.utf8)
        let result = bytes.withUnsafeBufferPointer { Event.decode($0, origin: Origin(source: 0, line: number)) }
        switch result {
        case .success(let event): return event
        case .failure(let rejection): fatalError("test line \(number) does not decode: \(rejection.detail): \(line)")
        }
    }

    static func collect(_ output: StageOutput, into outcome: inout Outcome) {
        outcome.events += output.events
        for settled in output.settled {
            switch settled {
            case .merged(let origin): outcome.merged.append(origin)
            case let .dropped(origin, reason): outcome.dropped.append((origin, reason))
            case let .rejected(event, rejection): outcome.rejected.append((event, rejection.reason))
            }
        }
    }

    /// The value at `node` as canonical JSON.
    static func json(_ document: JSONDocument, _ node: Int) -> [UInt8] {
        var out: [UInt8] = []
        document.write(node: node, to: &out)
        return out
    }

    static func settings(_ change: (inout TimedSettings) -> Void) -> TimedSettings {
        var settings = TimedSettings()
        change(&settings)
        return settings
    }
}
