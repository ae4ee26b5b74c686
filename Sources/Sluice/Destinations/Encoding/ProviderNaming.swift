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

        func apply(_ name: [UInt8]) -> [UInt8] { hasName ? prefix + name + suffix : prefix }
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

    /// The provider event name of a message.
    func eventName(_ event: Event) -> [UInt8] {
        switch event.type {
        case .screen: return screen.apply(event.name)
        case .page: return page.apply(event.name)
        default: return event.name
        }
    }
}

/// Session data as plain event properties, for providers without a session
/// field of their own (the shared fallback for `!capabilities.contains(.sessions)`).
enum SessionAsProperties {
    static func append(_ session: EventFields.Session?, to encoder: inout JSONObjectEncoder, _ out: inout [UInt8]) -> Int {
        guard let session else { return 0 }
        var added = 0
        if let id = session.id { encoder.string("session_id", id, &out); added += 1 }
        if let number = session.number { encoder.integer("session_number", number, &out); added += 1 }
        if let seq = session.seq { encoder.integer("session_seq", seq, &out); added += 1 }
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
