import SluiceJSON

/// Which messages a destination takes: its `events:` list of names and globs
/// (`"*"`, `"checkout_*"`, `"!debug_*"`; later entries win), overridden by the
/// message's own `integrations` object.
///
/// `integrations` (Segment's convention): a key equal to the destination's name
/// or type (case-insensitive) decides outright (`true` or an options object
/// routes it, even past the `events:` list; `false` does not); otherwise
/// `"All": false` keeps the message from every destination not named `true`.
public struct RoutingRules: Sendable {
    struct Rule: Sendable {
        var negated: Bool
        var pattern: [UInt8]
    }

    let rules: [Rule]
    let destinationName: [UInt8]
    let destinationType: [UInt8]
    /// True when every pattern is a literal or a literal followed by one `*`
    /// (`"*"`, `"checkout_*"`, `"signed_up"`): matching those costs less than a cache look-up.
    private let isSimple: Bool
    /// True when the last pattern is `*` (every destination's default `events:`):
    /// it matches every name and the last match decides, so every name is taken.
    private let takesEveryName: Bool
    /// Decisions by name for the other patterns; names are few in real streams, capped against hostile ones.
    private var cache: [ByteKey: Bool] = [:]
    static let cacheLimit = 4096

    public init(patterns: [String], destinationName: String, destinationType: String) {
        rules = patterns.map { pattern in
            pattern.hasPrefix("!") ? Rule(negated: true, pattern: Array(pattern.utf8.dropFirst()))
                : Rule(negated: false, pattern: Array(pattern.utf8))
        }
        self.destinationName = Array(destinationName.lowercased().utf8)
        self.destinationType = Array(destinationType.lowercased().utf8)
        isSimple = rules.allSatisfy { rule in
            !rule.pattern.contains(UInt8(ascii: "?")) && !rule.pattern.dropLast().contains(UInt8(ascii: "*"))
        }
        takesEveryName = rules.last.map { !$0.negated && $0.pattern == [UInt8(ascii: "*")] } ?? false
    }

    /// Whether this destination takes the event.
    public mutating func accepts(_ event: Event) -> Bool {
        accepts(event, integrations: RoutingRules.integrations(of: event))
    }

    /// The event's `integrations` object (node index), if it has one: looked up
    /// once per event by the fan-out, then asked of each destination.
    static func integrations(of event: Event) -> Int? {
        guard let node = event.document.member("integrations" as StaticString, of: 0),
              event.document.kind(node) == .object else { return nil }
        return node
    }

    /// Whether this destination takes the event, given its `integrations` object.
    mutating func accepts(_ event: Event, integrations: Int?) -> Bool {
        if let integrations, let decision = integrationsDecision(event.document, integrations) {
            return decision
        }
        return accepts(name: event.name)
    }

    /// Whether the `events:` list takes a message of this name.
    public mutating func accepts(name: [UInt8]) -> Bool {
        if takesEveryName { return true }
        if isSimple { return decide(name) }
        let key = ByteKey(name)
        if let cached = cache[key] { return cached }
        let result = decide(name)
        if cache.count >= RoutingRules.cacheLimit { cache.removeAll(keepingCapacity: true) }
        cache[key] = result
        return result
    }

    /// The last rule that matches decides.
    private func decide(_ name: [UInt8]) -> Bool {
        for rule in rules.reversed() where Glob.matches(rule.pattern, name) {
            return !rule.negated
        }
        return false
    }

    private func integrationsDecision(_ document: JSONDocument, _ object: Int) -> Bool? {
        var all: Bool?
        for (key, value) in document.members(of: object) {
            let lowered: [UInt8]? = document.withString(key) { raw in raw.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 } }
            guard let lowered else { continue }
            let kind = document.kind(value)
            if lowered == destinationName || lowered == destinationType {
                switch kind {
                case .false, .null: return false
                default: return true
                }
            }
            if lowered == Array("all".utf8) { all = kind != .false }
        }
        if all == false { return false }
        return nil
    }
}
