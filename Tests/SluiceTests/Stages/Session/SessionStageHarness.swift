@testable import Sluice
@testable import SluiceJSON
import Testing

/// Builds test messages for the `dedupe` and `session` stages and runs stages over them.
enum StageCase {
    /// 2026-11-20T08:00:00Z, the base of every test's event time.
    static let base = EventTime.parseISO8601("2026-11-20T08:00:00Z")!

    static let minute = 60_000

    /// The ISO 8601 text of `base + ms`.
    static func timestamp(_ ms: Int) -> String {
        EventTime(microseconds: base.microseconds + Int64(ms) * 1000).iso8601
    }

    /// One message at `base + ms`: `type`, device `who` (nil: none), `user`, and raw JSON members in `extra`.
    static func message(_ type: String = "track", at ms: Int, who: String? = "d1", user: String? = nil,
                        event: String? = nil, id: String? = nil, extra: String = "") -> String {
        var fields = [#""type":"\#(type)""#]
        if let id { fields.append(#""messageId":"\#(id)""#) }
        if let who { fields.append(#""anonymousId":"\#(who)""#) }
        if let user { fields.append(#""userId":"\#(user)""#) }
        fields.append(#""timestamp":"\#(timestamp(ms))""#)
        if type == "track" { fields.append(#""event":"\#(event ?? "tap")""#) }
        if !extra.isEmpty { fields.append(extra) }
        return "{" + fields.joined(separator: ",") + "}"
    }

    static func track(_ ms: Int, who: String? = "d1", user: String? = nil, event: String = "tap", id: String? = nil) -> String {
        message("track", at: ms, who: who, user: user, event: event, id: id)
    }

    static func sessionStart(_ ms: Int, who: String? = "d1", user: String? = nil, settings: String? = nil) -> String {
        message("session", at: ms, who: who, user: user,
                extra: #""action":"start""# + (settings.map { #","settings":\#($0)"# } ?? ""))
    }

    static func identify(_ ms: Int, who: String? = "d1", user: String?, traits: String = "{}") -> String {
        message("identify", at: ms, who: who, user: user, extra: #""traits":\#(traits)"#)
    }

    static func signedOut(_ ms: Int, who: String? = "d1", user: String?) -> String {
        track(ms, who: who, user: user, event: "signed_out")
    }

    /// What a stage let out for one run.
    struct Outcome {
        var events: [Event] = []
        var dropped: [(origin: Origin, reason: DropReason)] = []
        var counters: [String: Int] = [:]

        /// Each emitted event as canonical JSON text, in order.
        var lines: [String] { events.map { String(decoding: $0.document.canonicalJSON, as: UTF8.self) } }

        /// Each emitted event written and parsed again, to be read.
        var documents: [JSONDocument] { events.map { try! JSONDocument.parse($0.document.canonicalJSON) } }
    }

    /// Decodes `lines` (line numbers from 1) and runs them through `stage`, then its `finish`.
    static func run<S: Stage>(_ lines: [String], through stage: inout S) -> Outcome {
        var outcome = Outcome()
        var output = StageOutput()
        for (index, line) in lines.enumerated() {
            let event: Event
            switch Event.decode(try! JSONDocument.parse(Array(line.utf8)), origin: Origin(source: 0, line: Int64(index + 1))) {
            case .success(let decoded): event = decoded
            case .failure(let rejection): fatalError("test line \(index + 1) does not decode: \(rejection.detail)")
            }
            stage.process(event, into: &output)
        }
        stage.finish(into: &output)
        outcome.events = output.events
        for settled in output.settled {
            if case let .dropped(origin, reason) = settled { outcome.dropped.append((origin, reason)) }
        }
        outcome.counters = Dictionary(stage.counters.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        return outcome
    }

    /// The stages of a pipeline whose `stages:` list is `stagesYAML` (flow style).
    static func stages(_ stagesYAML: String) -> [any Stage] {
        do {
            return try PipelineConfiguration.load(yaml: """
                version: 1
                stages: \(stagesYAML)
                destinations: {archive: {type: ndjson}}
                """, file: "test.yaml").stages
        } catch {
            fatalError("bad test settings: \(error)")
        }
    }

    /// A session stage configured by the YAML text of its value (`{inactivity: 1m}`).
    static func sessionStage(_ yaml: String = "{}") -> SessionTracking {
        stages("[{session: \(yaml)}]")[0] as! SessionTracking
    }

    /// A dedupe stage configured by the YAML text of its value (`{max_ids: 2}`).
    static func dedupeStage(_ yaml: String = "{}") -> MessageDeduplication {
        stages("[{dedupe: \(yaml)}]")[0] as! MessageDeduplication
    }

    /// `context.session` of a written event, as a JSON document (nil if absent).
    static func session(_ document: JSONDocument) -> SessionView? {
        guard let node = document.find(JSONPath("context.session")) else { return nil }
        return SessionView(document: document, node: node)
    }

    /// Read access to one event's `context.session`.
    struct SessionView {
        let document: JSONDocument
        let node: Int

        func raw(_ key: String) -> String? {
            document.member(key, of: node).map { String(decoding: document.rawBytes($0), as: UTF8.self) }
        }

        func integer(_ key: String) -> Int? { raw(key).flatMap { Int($0) } }

        var id: String { document.member("id", of: node).flatMap { document.string($0) } ?? "" }
        var number: Int { integer("number") ?? -1 }
        var seq: Int { integer("seq") ?? -1 }
        var startMilliseconds: Int { integer("start_ms") ?? -1 }
        var engagement: Int { integer("engagement_ms") ?? -1 }
        var authenticated: Bool { raw("authenticated") == "true" }

        /// `number.seq`, with `*` when authenticated: `2.1*`.
        var short: String { "\(number).\(seq)" + (authenticated ? "*" : "") }
    }
}
