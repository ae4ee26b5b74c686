import Yams

/// How a screen or page becomes an event name for providers that only have
/// events (Mixpanel, Amplitude): a template with `{name}`, e.g. `Viewed {name} Screen`.
struct ScreenNaming {
    /// A template split around `{name}` once, so naming is two appends per event.
    struct Template {
        let prefix: [UInt8]
        let suffix: [UInt8]
        let hasName: Bool

        init(_ text: String) {
            let bytes = Array(text.utf8)
            let marker = Array("{name}".utf8)
            if let start = bytes.indices.first(where: { bytes[$0...].starts(with: marker) }) {
                prefix = Array(bytes[..<start])
                suffix = Array(String(decoding: bytes[(start + marker.count)...], as: UTF8.self).replacingAll("{name}", with: "").utf8)
                hasName = true
            } else {
                prefix = bytes
                suffix = []
                hasName = false
            }
        }

        func apply(_ name: [UInt8], into out: inout [UInt8]) {
            out.append(contentsOf: prefix)
            if hasName {
                out.append(contentsOf: name)
                out.append(contentsOf: suffix)
            }
        }
    }

    var screen = Template("Viewed {name} Screen")
    var page = Template("Viewed {name} Page")

    /// Reads `screen_event` and `page_event` from a destination's options.
    init(options: [String: Node], destination: String, _ reader: inout ConfigReader) {
        if let node = options["screen_event"], let text = reader.string(node, what: "destinations.\(destination).screen_event") {
            screen = Template(text)
        }
        if let node = options["page_event"], let text = reader.string(node, what: "destinations.\(destination).page_event") {
            page = Template(text)
        }
    }

    /// The provider event name of a message, into `name` (a buffer the caller reuses).
    func eventName(_ event: Event, into name: inout [UInt8]) {
        switch event.type {
        case .screen:
            name.removeAll(keepingCapacity: true)
            screen.apply(event.name, into: &name)
        case .page:
            name.removeAll(keepingCapacity: true)
            page.apply(event.name, into: &name)
        default:
            // The event's own name, shared rather than copied: no emptying and refilling, and the
            // insert id's memo (`EncodingContext`) finds the same buffer in the next destination.
            name = event.name
        }
    }
}

/// Session data as plain event properties, for providers without a session
/// field of their own (the shared fallback for `!capabilities.contains(.sessions)`).
enum SessionAsProperties {
    /// The property names written, so an event property of the same name can win instead.
    static let names: [StaticString] = ["session_id", "session_number", "session_seq"]

    /// Appends `session_id`, `session_number` and `session_seq`, those the
    /// session has and whose bit (in `names` order) `skipping` does not set;
    /// returns how many were written.
    static func append<Out: ByteSink>(_ session: EventFields.Session?, _ document: JSONDocument, skipping: Int = 0,
                       to encoder: inout JSONObjectEncoder, _ out: inout Out) -> Int {
        guard let session else { return 0 }
        var added = 0
        if let id = session.id, skipping & 1 == 0 { encoder.raw("session_id", document, node: id, &out); added += 1 }
        if let number = session.number, skipping & 2 == 0 { encoder.integer("session_number", number, &out); added += 1 }
        if let seq = session.seq, skipping & 4 == 0 { encoder.integer("session_seq", seq, &out); added += 1 }
        return added
    }
}

/// Counts of what an adapter changed, by kind, in first-seen order.
struct ChangeCounts {
    private(set) var entries: [(name: String, value: Int)] = []

    mutating func add(_ kind: String, _ count: Int = 1) {
        guard count > 0 else { return }
        if let index = entries.firstIndex(where: { $0.name == kind }) {
            entries[index].value += count
        } else {
            entries.append((kind, count))
        }
    }
}
