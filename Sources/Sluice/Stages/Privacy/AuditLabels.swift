import SluiceJSON

/// The field paths the `privacy` audit counts under, bounded by the
/// configuration: a hit's keys are kept only where they follow a path the
/// stage knows (the paths and patterns in its settings, and the event schema's
/// fixed fields: `context.ip`, `traits.email`, ...); the first key off those
/// paths is folded to `*` (the last key) or `**` (more below it).
///
/// So `properties.user_email` counts as `properties.*` unless the settings name
/// it (`redact: {paths: ["**", properties.user_email]}`), a key that is itself
/// an email never becomes a label, and the set of labels cannot grow with the
/// data. Array elements have their array's path, as everywhere in the stage.
struct AuditLabels {
    private enum Step {
        case key([UInt8])
        case glob([UInt8])
    }

    private struct Node {
        var steps: [(step: Step, child: Int)] = []
    }

    private var nodes = [Node()]

    /// The Segment spec's fixed fields, always kept.
    static let schema = [
        "type", "event", "name", "userId", "anonymousId", "groupId", "previousId", "messageId",
        "timestamp", "originalTimestamp", "sentAt", "receivedAt", "properties", "integrations",
        "traits.email", "traits.phone", "traits.name", "traits.firstName", "traits.lastName", "traits.username",
        "traits.address", "traits.birthday", "traits.company", "traits.id", "traits.website",
        "context.ip", "context.userAgent", "context.locale", "context.timezone", "context.groupId",
        "context.app", "context.campaign", "context.device", "context.library", "context.location",
        "context.network", "context.os", "context.page", "context.referrer", "context.screen",
        "context.consent", "context.session", "context.traits.email", "context.traits.phone",
    ]

    init(_ patterns: [FieldPattern]) {
        for path in AuditLabels.schema { insert(FieldPattern(path)!) }
        for pattern in patterns { insert(pattern) }
    }

    private mutating func insert(_ pattern: FieldPattern) {
        var node = 0
        for component in pattern.components {
            let step: Step
            switch component {
            case .key(let key): step = .key(key)
            case .glob(let glob): step = .glob(glob)
            case .anyDepth: return  // `**` names no key: what follows it is not known to be anywhere
            }
            if let existing = nodes[node].steps.first(where: { AuditLabels.same($0.step, step) }) {
                node = existing.child
            } else {
                nodes.append(Node())
                nodes[node].steps.append((step, nodes.count - 1))
                node = nodes.count - 1
            }
        }
    }

    private static func same(_ a: Step, _ b: Step) -> Bool {
        switch (a, b) {
        case let (.key(x), .key(y)), let (.glob(x), .glob(y)): return x == y
        default: return false
        }
    }

    /// The label for the field whose keys are at node indexes `keys`.
    func label(_ keys: some Collection<Int>, in document: JSONDocument) -> String {
        var text: [UInt8] = []
        var node = 0
        var remaining = keys.count
        for key in keys {
            if !text.isEmpty { text.append(UInt8(ascii: ".")) }
            var next: Int?
            for (step, child) in nodes[node].steps {
                switch step {
                case .key(let literal):
                    if document.stringEquals(key, literal) {
                        text.append(contentsOf: literal)
                        next = child
                    }
                case .glob(let glob):
                    if document.withString(key, { Glob.matches(glob, Array($0)) }) == true {
                        text.append(contentsOf: glob)
                        next = child
                    }
                }
                if next != nil { break }
            }
            guard let found = next else {
                text.append(contentsOf: remaining == 1 ? [UInt8(ascii: "*")] : Array("**".utf8))
                break
            }
            node = found
            remaining -= 1
        }
        return String(decoding: text, as: UTF8.self)
    }
}
