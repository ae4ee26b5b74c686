import SluiceJSON

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
            out.append(span: prefix.span)
            if hasName {
                out.append(span: name.span)
                out.append(span: suffix.span)
            }
        }
    }

    var screen = Template("Viewed {name} Screen")
    var page = Template("Viewed {name} Page")
    /// What a screen or page without a name of its own is called (`unnamed_screen`, `unnamed_page`).
    var unnamed = UnnamedNames()

    init() {}

    /// Reads `screen_event`, `page_event`, `unnamed_screen` and `unnamed_page` from a destination's options.
    init(options: [String: ConfigValue], destination: String, _ reader: inout ConfigReader) {
        if let node = options["screen_event"], let text = reader.string(node, what: "destinations.\(destination).screen_event") {
            screen = Template(text)
        }
        if let node = options["page_event"], let text = reader.string(node, what: "destinations.\(destination).page_event") {
            page = Template(text)
        }
        // The name goes between the template's words: a blank one would leave them double-spaced.
        unnamed = UnnamedNames(options: options, destination: destination, allowEmpty: false, &reader)
    }

    /// The provider event name of a message, into `name` (a buffer the caller reuses). Returns
    /// whether a screen or page had no name (nor `properties.name`) and got the `unnamed_*` one,
    /// so the caller counts it (`UnnamedNames.counter`); never when the template has no `{name}`.
    @discardableResult
    func eventName(_ event: Event, _ fields: EventFields, into name: inout [UInt8]) -> Bool {
        switch event.type {
        case .screen:
            name.removeAll(keepingCapacity: true)
            return apply(screen, event, fields, unnamed.screen, into: &name)
        case .page:
            name.removeAll(keepingCapacity: true)
            return apply(page, event, fields, unnamed.page, into: &name)
        default:
            // The event's own name, copied into the caller's buffer: sharing the event's array
            // instead costs a retain now and a release at the next event, both atomic.
            name.replaceAll(with: event.name.span)
            return false
        }
    }

    @inline(__always)
    private func apply(_ template: Template, _ event: Event, _ fields: EventFields, _ fallback: [UInt8],
                       into name: inout [UInt8]) -> Bool {
        guard template.hasName else {
            template.apply([], into: &name)
            return false
        }
        name.append(span: template.prefix.span)
        let source = UnnamedNames.withName(event, fields, fallback: fallback) { text, source in
            name.append(span: text)
            return source
        }
        name.append(span: template.suffix.span)
        return source == .fallback
    }
}

/// The name a screen or page message goes by: its `name` (else its `event`, as
/// `Event.decode` reads it), else `properties.name`
/// (each a string, without the spaces around it, if anything is left), else the
/// destination's `unnamed_screen` / `unnamed_page` (default `Unknown`).
/// Source: Segment's spec (segment-docs connections/spec/screen.md, page.md):
/// `name` is optional ("Each screen can be tagged with a `name`", "You may add
/// an optional `name`"), and `properties.name` is a reserved property, "Name of
/// the screen" / "Name of the page". Without this an unnamed screen became
/// `Viewed  Screen`, two spaces and no name.
struct UnnamedNames {
    static let defaultName: [UInt8] = Array("Unknown".utf8)

    var screen = UnnamedNames.defaultName
    var page = UnnamedNames.defaultName

    /// Where a screen's or page's name came from.
    enum Source { case message, properties, fallback }

    init() {}

    /// Reads `unnamed_screen` and `unnamed_page`, trimmed; `allowEmpty`: whether `""`
    /// may stand for "no name" (GA4 then leaves the param out), else a blank one is an error.
    init(options: [String: ConfigValue], destination: String, allowEmpty: Bool, _ reader: inout ConfigReader) {
        for (key, path) in [("unnamed_screen", \UnnamedNames.screen), ("unnamed_page", \UnnamedNames.page)] {
            guard let node = options[key], let text = reader.string(node, what: "destinations.\(destination).\(key)") else { continue }
            let bytes = Array(text.utf8)
            let kept = UnnamedNames.trimmed(bytes)
            if kept.isEmpty && !(allowEmpty && bytes.isEmpty) {
                reader.error(node, "destinations.\(destination).\(key) must have more than spaces" +
                             (allowEmpty ? " (or be \"\" to leave the name out)" : ""))
                continue
            }
            self[keyPath: path] = Array(bytes[kept])
        }
    }

    /// The counter for a screen or page that got the `unnamed_*` name.
    static func counter(_ type: MessageType) -> String {
        type == .page ? "page_name_defaulted" : "screen_name_defaulted"
    }

    /// Calls `body` with the name of a screen or page (see the type) and where it came from;
    /// no copy: the bytes are the event's, the document's or `fallback`.
    @inline(__always)
    static func withName<R>(_ event: Event, _ fields: EventFields, fallback: [UInt8],
                            _ body: (Span<UInt8>, Source) -> R) -> R {
        let own = trimmed(event.name)
        if !own.isEmpty {
            return body(event.name.span.extracting(own), .message)
        }
        let document = fields.document
        if let properties = fields.properties, let node = document.member("name", of: properties),
           let result = document.withStringSpan(node, { text -> R? in
               let kept = trimmed(text)
               return kept.isEmpty ? nil : body(text.extracting(kept), .properties)
           }) ?? nil {
            return result
        }
        return body(fallback.span, .fallback)
    }

    /// The range of `bytes` without the ASCII white space (space, tab, line feed,
    /// vertical tab, form feed, carriage return) at either end; empty if that is all there is.
    @inline(__always)
    static func trimmed(_ bytes: Span<UInt8>) -> Range<Int> {
        @inline(__always) func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) }
        var start = 0, end = bytes.count
        while start < end && isSpace(bytes[start]) { start += 1 }
        while end > start && isSpace(bytes[end - 1]) { end -= 1 }
        return start..<end
    }

    /// `trimmed` of an array.
    @inline(__always)
    static func trimmed<Bytes: RandomAccessCollection>(_ bytes: Bytes) -> Range<Bytes.Index> where Bytes.Element == UInt8 {
        @inline(__always) func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) }
        var start = bytes.startIndex, end = bytes.endIndex
        while start < end && isSpace(bytes[start]) { start = bytes.index(after: start) }
        while end > start && isSpace(bytes[bytes.index(before: end)]) { end = bytes.index(before: end) }
        return start..<end
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
