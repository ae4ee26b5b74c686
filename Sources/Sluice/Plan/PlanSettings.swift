/// The `plan:` stage's settings: the tracking plan, resolved from the pipeline file.
///
/// ```yaml
/// stages:
///   - plan:
///       on_violation: reject          # reject | flag | omit (default reject)
///       unplanned_events: reject      # reject | flag | pass (default reject)
///       events:
///         movie_tapped:
///           properties: {movie_id: integer, movie_slug: string, movie_index: integer}
///           required: [movie_id]
///         like_toggled:
///           properties: {liked: boolean, source: {enum: [feed, detail]}}
///           additional_properties: false
///       screens:                      # optional: without it, screens are not checked
///         Home: {properties: {tab: string}}
///       identify:                     # optional: without it, identify is not checked
///         traits: {plan: {enum: [free, pro]}, email: string}
/// ```
public struct PlanSettings: Sendable {
    /// `on_violation` (default `reject`): what happens to a planned event that breaks its plan.
    public enum OnViolation: String, Sendable, CaseIterable {
        /// Rejected, reason `plan_violation`, the detail naming each property and kind.
        case reject
        /// Passed on with `context.violations`.
        case flag
        /// Passed on without the offending properties; a violation that dropping
        /// cannot fix (a required property missing or wrong) rejects it.
        case omit
    }

    /// `unplanned_events` (default `reject`): what happens to an event (or, when
    /// `screens:` is given, a screen) that the plan does not list.
    public enum OnUnplanned: String, Sendable, CaseIterable {
        /// Rejected, reason `unplanned_event`.
        case reject
        /// Passed on with `context.violations: [{"kind":"unplanned_event",...}]`.
        case flag
        /// Passed on unchanged (counted).
        case pass
    }

    public var onViolation = OnViolation.reject
    public var unplannedEvents = OnUnplanned.reject
    /// `events` (default none): track events by name.
    public var events: [MessagePlan] = []
    /// `screens` (default: screens are not checked): screen messages by name.
    public var screens: [MessagePlan]?
    /// `identify` (default: identify messages are not checked): their traits.
    public var identify: MessagePlan?

    public init() {}

    /// `catalogs:` the app's catalogs generated from this plan (`sluice plan swift|typescript|kotlin`),
    /// paths relative to the pipeline file: `sluice validate` says when one is stale.
    public var catalogs: [(path: String, line: Int, column: Int)] = []

    static let keys = ["on_violation", "unplanned_events", "events", "screens", "identify", "catalogs"]
    static let messageKeys = ["properties", "required", "additional_properties", "description"]
    static let identifyKeys = ["traits", "required", "additional_properties", "description"]
    static let typeKeys = ["type", "enum", "nullable", "description"]

    /// Reads `plan: {...}`, reporting every error with its location.
    static func read(_ node: ConfigValue, _ reader: inout ConfigReader) -> PlanSettings? {
        var settings = PlanSettings()
        if let scalar = node.scalar, ["", "~", "null"].contains(scalar.text) { return settings }
        guard let entries = reader.mapping(node, known: keys, what: "the plan stage") else { return nil }
        let errorsBefore = reader.diagnostics.count
        for entry in entries {
            let what = "plan.\(entry.key)"
            switch entry.key {
            case "on_violation":
                if let value = choice(entry.value, OnViolation.self, what: what, &reader) { settings.onViolation = value }
            case "unplanned_events":
                if let value = choice(entry.value, OnUnplanned.self, what: what, &reader) { settings.unplannedEvents = value }
            case "events":
                settings.events = readMessages(entry.value, type: .track, what: what, &reader)
            case "screens":
                settings.screens = readMessages(entry.value, type: .screen, what: what, &reader)
            case "identify":
                settings.identify = readMessage(entry.value, type: .identify, name: "identify", at: entry.keyNode,
                                                what: what, &reader)
            case "catalogs":
                guard let paths = reader.strings(entry.value, what: what) else { continue }
                for (path, item) in zip(paths, entry.value.sequence ?? []) {
                    guard !path.isEmpty else {
                        reader.error(item, "\(what) lists the files `sluice plan swift|typescript|kotlin` wrote, not an empty path")
                        continue
                    }
                    settings.catalogs.append((path, item.line, item.column))
                }
            default:
                break
            }
        }
        return reader.diagnostics.count == errorsBefore ? settings : nil
    }

    private static func choice<T: RawRepresentable & CaseIterable>(_ node: ConfigValue, _: T.Type, what: String,
                                                                  _ reader: inout ConfigReader) -> T? where T.RawValue == String {
        guard let text = reader.string(node, what: what) else { return nil }
        if let value = T(rawValue: text) { return value }
        let names = T.allCases.map(\.rawValue)
        reader.error(node, "\(what) must be one of \(names.joined(separator: ", ")), not '\(text)'"
            + ConfigReader.suggestion(for: text, among: names))
        return nil
    }

    private static func readMessages(_ node: ConfigValue, type: MessageType, what: String, _ reader: inout ConfigReader) -> [MessagePlan] {
        guard let mapping = node.mapping else {
            reader.error(node, "\(what) must map names to their properties, e.g. `movie_tapped: {properties: {movie_id: integer}}`")
            return []
        }
        var seen: Set<String> = []
        var result: [MessagePlan] = []
        for (keyNode, value) in mapping {
            guard let name = keyNode.scalar?.text, !name.isEmpty else {
                reader.error(keyNode, "names in \(what) must be non-empty strings")
                continue
            }
            if !seen.insert(name).inserted {
                reader.error(keyNode, "\(what) lists '\(name)' twice")
                continue
            }
            if let plan = readMessage(value, type: type, name: name, at: keyNode, what: "\(what).\(name)", &reader) {
                result.append(plan)
            }
        }
        return result
    }

    /// One event, screen or the identify plan: `{properties: {...}, required: [...], additional_properties: bool}`.
    private static func readMessage(_ node: ConfigValue, type: MessageType, name: String, at keyNode: ConfigValue, what: String,
                                    _ reader: inout ConfigReader) -> MessagePlan? {
        var plan = MessagePlan(type: type, name: name, line: keyNode.line, column: keyNode.column)
        if let scalar = node.scalar, ["", "~", "null"].contains(scalar.text) { return plan }
        let containerKey = type == .identify ? "traits" : "properties"
        guard let entries = reader.mapping(node, known: type == .identify ? identifyKeys : messageKeys, what: what) else { return nil }
        var requiredNames: [(String, ConfigValue)] = []
        // Every name listed, even with a type in error, so `required:` is not reported twice.
        var declared: [String] = []
        for entry in entries {
            switch entry.key {
            case "properties", "traits":
                guard let mapping = entry.value.mapping else {
                    reader.error(entry.value, "\(what).\(entry.key) must map names to types, e.g. `{movie_id: integer}`")
                    continue
                }
                var seen: Set<String> = []
                for (propertyKey, typeNode) in mapping {
                    guard let property = propertyKey.scalar?.text, !property.isEmpty else {
                        reader.error(propertyKey, "names in \(what).\(entry.key) must be non-empty strings")
                        continue
                    }
                    if !seen.insert(property).inserted {
                        reader.error(propertyKey, "\(what).\(entry.key) lists '\(property)' twice")
                        continue
                    }
                    declared.append(property)
                    guard let propertyType = readType(typeNode, what: "\(what).\(entry.key).\(property)", &reader) else { continue }
                    var planned = PlannedProperty(name: property, type: propertyType, required: false,
                                                  line: propertyKey.line, column: propertyKey.column)
                    planned.description = typeNode.mapping?.first { $0.key.scalar?.text == "description" }?.value.scalar?.text
                    plan.properties.append(planned)
                }
            case "required":
                guard let list = reader.strings(entry.value, what: "\(what).required") else { continue }
                requiredNames = Array(zip(list, entry.value.sequence ?? []))
            case "additional_properties":
                if let value = reader.boolean(entry.value, what: "\(what).additional_properties") { plan.additionalProperties = value }
            case "description":
                plan.description = reader.string(entry.value, what: "\(what).description")
            default:
                break
            }
        }
        var seenRequired: Set<String> = []
        for (property, item) in requiredNames {
            if !seenRequired.insert(property).inserted {
                reader.error(item, "\(what).required lists '\(property)' twice")
                continue
            }
            guard let index = plan.properties.firstIndex(where: { $0.name == property }) else {
                if !declared.contains(property) {
                    reader.error(item, "\(what).required names '\(property)', which is not in its \(containerKey)"
                        + ConfigReader.suggestion(for: property, among: declared))
                }
                continue
            }
            plan.properties[index].required = true
        }
        return plan
    }

    /// `integer`, or `{enum: [..], nullable: true}`, or `{type: string, nullable: true}`.
    static func readType(_ node: ConfigValue, what: String, _ reader: inout ConfigReader) -> PropertyType? {
        let names = PropertyType.names.keys.sorted()
        if let scalar = node.scalar {
            if let base = PropertyType.names[scalar.text] { return PropertyType(base) }
            reader.error(node, "\(what) has unknown type '\(scalar.text)'" + ConfigReader.suggestion(for: scalar.text, among: names)
                + "; types: \(names.joined(separator: ", ")), or {enum: [..]}")
            return nil
        }
        guard let entries = reader.mapping(node, known: typeKeys, what: what) else { return nil }
        var base: PropertyType.Base?
        var nullable = false
        var sawType = false
        for entry in entries {
            switch entry.key {
            case "type":
                sawType = true
                guard let text = reader.string(entry.value, what: "\(what).type") else { continue }
                if let value = PropertyType.names[text] {
                    base = value
                } else {
                    reader.error(entry.value, "\(what).type '\(text)' is not a type" + ConfigReader.suggestion(for: text, among: names)
                        + "; types: \(names.joined(separator: ", "))")
                }
            case "enum":
                sawType = true
                if let members = readEnum(entry.value, what: "\(what).enum", &reader) { base = .enumeration(members) }
            case "nullable":
                if let value = reader.boolean(entry.value, what: "\(what).nullable") { nullable = value }
            default:
                break
            }
        }
        if entries.contains(where: { $0.key == "type" }) && entries.contains(where: { $0.key == "enum" }) {
            reader.error(node, "\(what) has both type and enum; an enum's members are its type")
            return nil
        }
        if !sawType {
            reader.error(node, "\(what) needs `type:` or `enum:`")
            return nil
        }
        return base.map { PropertyType($0, nullable: nullable) }
    }

    private static func readEnum(_ node: ConfigValue, what: String, _ reader: inout ConfigReader) -> [PropertyType.EnumMember]? {
        guard let sequence = node.sequence, sequence.count > 0 else {
            reader.error(node, "\(what) must be a non-empty list of values")
            return nil
        }
        var members: [PropertyType.EnumMember] = []
        for item in sequence {
            guard let value = JSONValue.read(item, &reader, what: what) else { continue }
            switch value {
            case .string(let text): members.append(.string(Array(text.utf8)))
            case .number(let text): members.append(.number(Array(text.utf8)))
            case .boolean(let flag): members.append(.boolean(flag))
            case .null:
                reader.error(item, "\(what) cannot list null; add `nullable: true` instead")
            default:
                reader.error(item, "\(what) members are strings, numbers or booleans")
            }
        }
        return members
    }
}

/// A stage that checks events against a tracking plan (the `plan` stage), as
/// the commands that read the plan find it among a pipeline's stages.
public protocol PlanCheckingStage {
    var planSettings: PlanSettings { get }
}

/// One planned event, screen, or the identify plan.
public struct MessagePlan: Sendable {
    /// `track` for `events:`, `screen` for `screens:`, `identify`.
    public var type: MessageType
    /// The event or screen name (`identify` for the identify plan).
    public var name: String
    /// `properties:` (`traits:` for identify), in file order, each with whether it is `required`.
    public var properties: [PlannedProperty] = []
    /// `additional_properties` (default `true`): whether properties the plan does not list are allowed.
    public var additionalProperties = true
    /// `description`: what the message means (doc comments of the generated catalog).
    public var description: String?
    /// Where the name is in the pipeline file.
    public var line: Int
    public var column: Int

    public init(type: MessageType, name: String, line: Int, column: Int) {
        self.type = type
        self.name = name
        self.line = line
        self.column = column
    }
}

/// One planned property.
public struct PlannedProperty: Sendable {
    public var name: String
    public var type: PropertyType
    /// Listed in `required:`.
    public var required: Bool
    /// The type's `description`, when it is written as a mapping.
    public var description: String?
    /// Where the property's name is in the pipeline file.
    public var line: Int
    public var column: Int
}
