import SluiceJSON

/// A field path with wildcards, as the `privacy` stage's rules name fields:
/// `context.ip`, `properties.*_email`, `**.password`.
///
/// Components are object keys joined by `.`; `*` and `?` are globs within one
/// key (`*_email` matches `user_email`), and a component that is exactly `**`
/// matches any number of keys (none included). Array elements have their
/// array's path: `properties.targets` names every element of that array.
///
/// A class (immutable, compared by its text): the privacy stage reads its
/// patterns for every event, and a reference is one retain where the value
/// was four (its components, text and look-up keys).
///
/// Sendable: every field is a `let` of a value type, set in `init`.
public final class FieldPattern: @unchecked Sendable, Hashable, CustomStringConvertible {
    enum Component: Sendable, Hashable {
        case key([UInt8])
        case glob([UInt8])
        case anyDepth
    }

    let components: [Component]
    public let description: String

    /// Parses `text`; nil when it has an empty component (`a..b`, `.a`).
    public init?(_ text: String) {
        guard !text.isEmpty else { return nil }
        var components: [Component] = []
        for part in text.split(separator: ".", omittingEmptySubsequences: false) {
            guard !part.isEmpty else { return nil }
            if part == "**" {
                components.append(.anyDepth)
            } else if part.contains("*") || part.contains("?") {
                components.append(.glob(Array(part.utf8)))
            } else {
                components.append(.key(Array(part.utf8)))
            }
        }
        self.components = components
        isLiteral = components.allSatisfy { if case .key = $0 { return true } else { return false } }
        var keyBytes: [UInt8] = [], keyEnds: [Int] = []
        if isLiteral {
            for case .key(let key) in components {
                keyBytes += key
                keyEnds.append(keyBytes.count)
            }
        }
        literalKeyBytes = keyBytes
        literalKeyEnds = keyEnds
        description = text
    }

    /// A literal path's keys, end to end, and where each ends: read in place by
    /// `lookUp`, which runs for every event and every plain-path rule.
    private let literalKeyBytes: [UInt8]
    private let literalKeyEnds: [Int]

    public static func == (lhs: FieldPattern, rhs: FieldPattern) -> Bool { lhs.description == rhs.description }
    public func hash(into hasher: inout Hasher) { hasher.combine(description) }

    /// Whether every component is a plain key (found with one look-up per component).
    let isLiteral: Bool

    /// The literal path, when `isLiteral`.
    var literalPath: JSONPath? {
        isLiteral ? JSONPath(description) : nil
    }

    // MARK: - Matching a path being walked

    /// Whether the path made of the keys at node indexes `keys` is named by this
    /// pattern, or lies below a field it names (`context` covers `context.ip`).
    func covers(_ keys: ArraySlice<Int>, in document: JSONDocument) -> Bool {
        covers(from: 0, keys, document)
    }

    private func covers(from component: Int, _ keys: ArraySlice<Int>, _ document: JSONDocument) -> Bool {
        if component == components.count { return true }
        switch components[component] {
        case .anyDepth:
            if covers(from: component + 1, keys, document) { return true }
            guard !keys.isEmpty else { return false }
            return covers(from: component, keys.dropFirst(), document)
        case .key(let key):
            guard let first = keys.first,
                  document.stringEquals(first, key) else { return false }
            return covers(from: component + 1, keys.dropFirst(), document)
        case .glob(let glob):
            guard let first = keys.first,
                  document.withString(first, { Glob.matches(glob, Array($0)) }) == true else { return false }
            return covers(from: component + 1, keys.dropFirst(), document)
        }
    }

    /// Whether this pattern names something strictly below the path of `keys`
    /// (`properties.cart.total` leads below `properties.cart`).
    func leadsBelow(_ keys: ArraySlice<Int>, in document: JSONDocument) -> Bool {
        leadsBelow(from: 0, keys, document)
    }

    private func leadsBelow(from component: Int, _ keys: ArraySlice<Int>, _ document: JSONDocument) -> Bool {
        guard let first = keys.first else { return component < components.count }
        guard component < components.count else { return false }
        switch components[component] {
        case .anyDepth:
            return true
        case .key(let key):
            guard document.stringEquals(first, key) else { return false }
        case .glob(let glob):
            guard document.withString(first, { Glob.matches(glob, Array($0)) }) == true else { return false }
        }
        return leadsBelow(from: component + 1, keys.dropFirst(), document)
    }

    // MARK: - Finding fields

    /// One field the pattern names: the object holding it, its key's and its value's node indexes.
    struct Field {
        var object: Int
        var key: Int
        var value: Int
    }

    /// Calls `body` for every field of `document` this pattern names, in document
    /// order. A plain path (`traits.email`, the common case) is looked up key by
    /// key, with nothing allocated; one with globs, or an array on the way (whose
    /// elements each have the path), is walked.
    func forEachField(in document: JSONDocument, _ body: (Field) -> Void) {
        switch lookUp(in: document) {
        case .absent: return
        case .found(let field): return body(field)
        case .walk: visit(0, from: 0, document, body)
        }
    }

    enum LookUp {
        case found(Field)
        case absent
        /// The pattern has globs, or its path crosses an array: `forEachField` walks it.
        case walk
    }

    /// A plain path's field, found by looking its keys up one by one (no closure, no copy: the hot path).
    func lookUp(in document: JSONDocument) -> LookUp {
        guard isLiteral else { return .walk }
        return literalKeyBytes.withSpan { keys -> LookUp in
            var node = 0
            var start = 0
            var field = Field(object: 0, key: 0, value: 0)
            for end in literalKeyEnds {
                switch document.kind(node) {
                case .object: break
                case .array: return .walk
                default: return .absent
                }
                guard let value = document.member(keys.extracting(start..<end), of: node) else {
                    return .absent
                }
                field = Field(object: node, key: value - 1, value: value)
                node = value
                start = end
            }
            return .found(field)
        }
    }

    private func visit(_ node: Int, from component: Int, _ document: JSONDocument, _ body: (Field) -> Void) {
        switch document.kind(node) {
        case .array:
            for element in document.elements(of: node) { visit(element, from: component, document, body) }
            return
        case .object:
            break
        default:
            return
        }
        guard component < components.count else { return }
        let isLast = component == components.count - 1
        switch components[component] {
        case .key(let key):
            guard let value = document.member(key, of: node) else { return }
            if isLast { body(Field(object: node, key: value - 1, value: value)) }
            else { visit(value, from: component + 1, document, body) }
        case .glob(let glob):
            for (key, value) in document.members(of: node) where document.withString(key, { Glob.matches(glob, Array($0)) }) == true {
                if isLast { body(Field(object: node, key: key, value: value)) }
                else { visit(value, from: component + 1, document, body) }
            }
        case .anyDepth:
            if isLast {
                // `a.**` names everything below `a`: its members.
                for (key, value) in document.members(of: node) { body(Field(object: node, key: key, value: value)) }
                return
            }
            visit(node, from: component + 1, document, body)
            for (_, value) in document.members(of: node) where document.kind(value) == .object || document.kind(value) == .array {
                visit(value, from: component, document, body)
            }
        }
    }
}
