import SluiceJSON

/// One way an event breaks the tracking plan.
///
/// With `on_violation: flag` the event carries a list of these as
/// `context.violations`:
/// `[{"property":"movie_id","kind":"missing_required","expected":"integer"},
///   {"property":"source","kind":"not_in_enum","expected":"enum [feed, detail]","got":"string"}]`.
/// `got` is the kind of value found, never the value itself: values may be
/// personal data, and the violations travel with the event to its destinations.
public struct PlanViolation: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// A property in `required:` is absent.
        case missingRequired = "missing_required"
        /// A property's value is not of its planned type (`null` included, unless `nullable`).
        case wrongType = "wrong_type"
        /// A property's value is not one of its `enum:` members.
        case notInEnum = "not_in_enum"
        /// A property the plan does not list, with `additional_properties: false`.
        case unplannedProperty = "unplanned_property"
        /// The event (or screen) is not in the plan at all.
        case unplannedEvent = "unplanned_event"
    }

    /// The property's name inside `properties` (`traits` for identify); nil for an unplanned event.
    public var property: [UInt8]?
    public var kind: Kind
    /// The planned type, as the plan states it (`integer`, `enum [feed, detail]`).
    public var expected: String?
    /// What the value is (`string`, `integer`, `null`, ...), when there is one.
    public var got: String?
    /// The node index of the offending member's key, for `omit`; nil when there is nothing to drop.
    var keyIndex: Int?

    /// `omit` fixes a violation by dropping the property, which only works
    /// when the property may be absent.
    var omissionFixes: Bool

    /// The list as `context.violations` holds it.
    static func json(_ violations: [PlanViolation]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "[")]
        for (index, violation) in violations.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            var object = JSONObjectEncoder()
            if let property = violation.property { object.string("property", bytes: property, &out) }
            object.string("kind", violation.kind.rawValue, &out)
            if let expected = violation.expected { object.string("expected", expected, &out) }
            if let got = violation.got { object.string("got", got, &out) }
            object.close(&out)
        }
        out.append(UInt8(ascii: "]"))
        return out
    }

    /// The rejects detail: each property with its kind, at most `limit` of them.
    static func detail(_ violations: [PlanViolation], container: String, limit: Int = 8) -> String {
        var parts: [String] = []
        for violation in violations.prefix(limit) {
            var text = ""
            if let property = violation.property {
                text = container + "." + String(decoding: property, as: UTF8.self) + ": "
            }
            text += violation.kind.rawValue
            if let expected = violation.expected { text += ", expected " + expected }
            if let got = violation.got { text += ", got " + got }
            parts.append(text)
        }
        if violations.count > limit { parts.append("and \(violations.count - limit) more") }
        return parts.joined(separator: "; ")
    }
}
