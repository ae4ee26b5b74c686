import SluiceJSON

/// The type a tracking plan gives a property, and the check of a value against it.
///
/// Checks read the parsed document in place only (no Foundation objects, no allocation):
/// - `string`, `boolean`, `object`, `array`: the JSON kind;
/// - `integer`: a number written without fraction or exponent, within the
///   signed 64-bit range (`1.0`, `1e3` and 2^63 are not integers; `-0` is);
/// - `number`: any JSON number (integers too);
/// - `timestamp`: a string in ISO 8601 with a zone, as `EventTime` reads event times;
/// - `enum: [..]`: one of the listed strings, numbers (by exact value) or booleans.
/// `null` is not a value of any type; `nullable: true` lets a property be `null`.
public struct PropertyType: Sendable, Equatable, CustomStringConvertible {
    public enum Base: Sendable, Equatable {
        case string, integer, number, boolean, object, array, timestamp
        case enumeration([EnumMember])
    }

    /// One allowed value of an `enum:`, kept as JSON text.
    public enum EnumMember: Sendable, Equatable, CustomStringConvertible {
        case string([UInt8])
        case number([UInt8])
        case boolean(Bool)

        public var description: String {
            switch self {
            case .string(let text): return String(decoding: text, as: UTF8.self)
            case .number(let text): return String(decoding: text, as: UTF8.self)
            case .boolean(let value): return value ? "true" : "false"
            }
        }
    }

    public var base: Base
    /// `nullable: true` (default false): `null` is accepted as well.
    public var nullable: Bool

    public init(_ base: Base, nullable: Bool = false) {
        self.base = base
        self.nullable = nullable
    }

    /// The names a plan may use for the scalar forms.
    static let names: [String: Base] = [
        "string": .string, "integer": .integer, "number": .number, "boolean": .boolean,
        "object": .object, "array": .array, "timestamp": .timestamp,
    ]

    /// What `expected` says in a violation: `integer`, `enum [feed, detail]`, `string or null`.
    public var description: String {
        let text: String
        switch base {
        case .string: text = "string"
        case .integer: text = "integer"
        case .number: text = "number"
        case .boolean: text = "boolean"
        case .object: text = "object"
        case .array: text = "array"
        case .timestamp: text = "timestamp"
        case .enumeration(let members): text = "enum [" + members.map(\.description).joined(separator: ", ") + "]"
        }
        return nullable ? text + " or null" : text
    }

    /// Why the value at `node` does not fit this type, or nil when it does.
    func violation(_ document: JSONDocument, _ node: Int) -> PlanViolation.Kind? {
        let kind = document.kind(node)
        if kind == .null { return nullable ? nil : .wrongType }
        switch base {
        case .string: return kind == .string ? nil : .wrongType
        case .boolean: return kind == .true || kind == .false ? nil : .wrongType
        case .object: return kind == .object ? nil : .wrongType
        case .array: return kind == .array ? nil : .wrongType
        case .number: return kind == .number ? nil : .wrongType
        case .integer:
            guard kind == .number else { return .wrongType }
            return document.withRawBytes(node) { JSONNumberText.isInteger64($0) } ? nil : .wrongType
        case .timestamp:
            guard kind == .string else { return .wrongType }
            let time = document.withString(node) { EventTime.parseISO8601($0) } ?? nil
            return time != nil ? nil : .wrongType
        case .enumeration(let members):
            for member in members where Self.matches(member, document, node) { return nil }
            return .notInEnum
        }
    }

    private static func matches(_ member: EnumMember, _ document: JSONDocument, _ node: Int) -> Bool {
        switch (member, document.kind(node)) {
        case let (.string(text), .string):
            return document.withString(node) { $0.elementsEqual(text) } ?? false
        case let (.number(text), .number):
            return document.withRawBytes(node) { JSONNumberText.sameValue($0, text) }
        case let (.boolean(value), .true): return value
        case let (.boolean(value), .false): return !value
        default: return false
        }
    }

    /// What a value is, as a violation's `got` says it: `string`, `integer`,
    /// `number`, `boolean`, `object`, `array` or `null` (never the value itself:
    /// values may be personal data, and violations travel with the event).
    static func describe(_ document: JSONDocument, _ node: Int) -> String {
        switch document.kind(node) {
        case .string: return "string"
        case .number: return document.withRawBytes(node) { JSONNumberText.isInteger64($0) } ? "integer" : "number"
        case .true, .false: return "boolean"
        case .object: return "object"
        case .array: return "array"
        case .null: return "null"
        }
    }
}
