// Unsafe code: one `withUnsafeBytes`, to hand a scalar's UTF-8 to
// `JSONNumberText.isNumber`, which judges numbers on raw bytes as the parser
// sees them; the pointer is into an array made for the call and is used only
// during it.

import SluiceJSON

/// A JSON value written in a pipeline file (a test case's input event or
/// expected record, an `enum:` member), converted as the user meant it.
///
/// YAML scalars become JSON by these rules, so nothing changes type or text
/// behind the user's back:
/// - a quoted scalar (`"5"`, `'true'`), a block scalar, or one tagged `!!str`, is a string;
/// - a plain scalar that is a JSON number is that number, its text kept
///   (`5`, `-0`, `1.50`, `1e3`, `9223372036854775808`);
/// - plain `true`/`false` (any case YAML allows) are booleans; `null`, `~` and
///   nothing are null;
/// - plain scalars YAML would read as another number or boolean but JSON cannot
///   hold as written (`0x1F`, `+1`, `.5`, `1_000`, `.inf`, `yes`, `off`) are
///   errors: quote them for a string, or write the JSON value;
/// - anything else plain (`movie_tapped`, `2026-11-20T09:00:00Z`) is a string.
/// Mapping keys are strings. In expectations, `!absent` says a key must not be there.
public indirect enum JSONValue: Sendable {
    case object([(key: String, value: JSONValue)])
    case array([JSONValue])
    case string(String)
    /// A number, as its JSON text.
    case number(String)
    case boolean(Bool)
    case null
    /// `!absent` in an expected record: the key must not be present.
    case absent

    /// Reads a pipeline file value as JSON; reports what cannot be converted and returns nil.
    static func read(_ node: ConfigValue, _ reader: inout ConfigReader, what: String, allowAbsent: Bool = false) -> JSONValue? {
        switch node.content {
        case .scalar(let scalar):
            return readScalar(scalar, node, &reader, what: what, allowAbsent: allowAbsent)
        case .sequence(let sequence):
            var items: [JSONValue] = []
            var ok = true
            for item in sequence {
                if let value = read(item, &reader, what: what, allowAbsent: allowAbsent) { items.append(value) } else { ok = false }
            }
            return ok ? .array(items) : nil
        case .mapping(let mapping):
            var members: [(key: String, value: JSONValue)] = []
            var seen: Set<String> = []
            var ok = true
            for (keyNode, valueNode) in mapping {
                guard let key = keyNode.scalar?.text else {
                    reader.error(keyNode, "keys in \(what) must be plain strings")
                    ok = false
                    continue
                }
                if !seen.insert(key).inserted {
                    reader.error(keyNode, "duplicate key '\(key)' in \(what)")
                    ok = false
                    continue
                }
                if let value = read(valueNode, &reader, what: what, allowAbsent: allowAbsent) {
                    members.append((key, value))
                } else {
                    ok = false
                }
            }
            return ok ? .object(members) : nil
        }
    }

    private static func readScalar(_ scalar: ConfigValue.Scalar, _ node: ConfigValue, _ reader: inout ConfigReader,
                                   what: String, allowAbsent: Bool) -> JSONValue? {
        let text = scalar.text
        if case .other(let tag) = scalar.tag, tag.hasPrefix("!"), tag != "!" {
            if tag == "!absent" {
                if allowAbsent { return .absent }
                reader.error(node, "!absent only belongs in an expected record (\(what))")
                return nil
            }
            reader.error(node, "unknown tag '\(tag)' in \(what); the only tag sluice knows is !absent, in expected records")
            return nil
        }
        if scalar.style != .plain { return .string(text) }
        switch scalar.tag {
        case .null:
            return .null
        case .boolean:
            switch text {
            case "true", "True", "TRUE": return .boolean(true)
            case "false", "False", "FALSE": return .boolean(false)
            default:
                reader.error(node, "'\(text)' in \(what) is a YAML 1.1 boolean; write true or false, or quote it for a string")
                return nil
            }
        case .integer, .float:
            if Array(text.utf8).withUnsafeBytes(JSONNumberText.isNumber) { return .number(text) }
            reader.error(node, "'\(text)' in \(what) is a YAML number JSON cannot hold as written; write it as a JSON number, or quote it for a string")
            return nil
        case .string, .other:
            return .string(text)
        }
    }

    /// The value of the JSON at `node` of a parsed document (for expectations written as inline JSON).
    init(_ document: JSONDocument, _ node: Int) {
        switch document.kind(node) {
        case .object:
            self = .object(document.members(of: node).map { (document.string($0.key) ?? "", JSONValue(document, $0.value)) })
        case .array:
            self = .array(document.elements(of: node).map { JSONValue(document, $0) })
        case .string: self = .string(document.string(node) ?? "")
        case .number: self = .number(String(decoding: document.rawBytes(node), as: UTF8.self))
        case .true: self = .boolean(true)
        case .false: self = .boolean(false)
        case .null: self = .null
        }
    }

    /// Compact JSON text, keys in order (`!absent` members left out).
    public var json: [UInt8] {
        var out: [UInt8] = []
        write(to: &out)
        return out
    }

    public var jsonText: String { String(decoding: json, as: UTF8.self) }

    func write<Out: ByteSink>(to out: inout Out) {
        switch self {
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            var first = true
            for (key, value) in members {
                if case .absent = value { continue }
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                JSONString.appendQuoted(key, to: &out)
                out.append(UInt8(ascii: ":"))
                value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .string(let text): JSONString.appendQuoted(text, to: &out)
        case .number(let text): out.append(contentsOf: text.utf8)
        case .boolean(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .null: out.append(contentsOf: "null".utf8)
        case .absent: out.append(contentsOf: "!absent".utf8)
        }
    }
}
