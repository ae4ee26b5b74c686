// Unsafe code: a line comes as the reader lends it (an `UnsafeBufferPointer`
// into its buffer), read only during `add(line:)` by the event decoder.

import SluiceJSON

/// `sluice plan infer`: a draft tracking plan from real logs. Every event and
/// screen seen, with each property's narrowest type that every value seen
/// fits (`integer` before `number`, `timestamp` before `string`; a string
/// property with few distinct values over many events an `enum`), `nullable`
/// when `null` was seen, `required` for the properties present in every
/// occurrence, and the counts as comments. The same events then pass the plan
/// with no violation. Personal data never reaches the plan: a string property
/// any of whose values holds an email, phone number, IP address, card number
/// or IBAN (the `privacy` stage's detectors) is never an enum. Memory is
/// bounded: at most `maxNames` messages, `maxProperties` properties each, and
/// `enumMax + 1` distinct values kept per property.
public struct PlanInference {
    public struct Options: Sendable {
        /// At most this many distinct values make a string property an enum (`--enum-max`).
        public var enumMax = 10
        /// ... and only when it was seen at least this many times (`--enum-min-events`).
        public var enumMinEvents = 20
        /// Messages (events, screens) kept; the ones seen after are counted only.
        public var maxNames = 5000
        /// Properties kept per message.
        public var maxProperties = 500

        public init() {}
    }

    /// The types a value is tried against, narrowest first; a property gets the first one all its values fit.
    static let candidates: [PropertyType.Base] = [.integer, .number, .boolean, .timestamp, .string, .object, .array]

    struct Property {
        var count = 0
        var nulls = 0
        /// Bit i: every non-null value so far fits `candidates[i]`.
        var fits: UInt8 = 0x7F
        /// Distinct string values and how often each came, up to `enumMax + 1`.
        var values: [String: Int] = [:]
        var valuesOverflowed = false
        var personal = false
    }

    struct Message {
        var count = 0
        var properties: [String: Property] = [:]
        var droppedProperties = 0
    }

    public let options: Options
    var events: [String: Message] = [:]
    var screens: [String: Message] = [:]
    var identify = Message()
    public private(set) var lines = 0
    /// Lines that are not events (invalid JSON, not an object, no usable type or name).
    public private(set) var notEvents = 0
    /// Events of types the plan does not check (page, group, alias, ...).
    public private(set) var otherTypes = 0
    /// Events and screens whose name came after `maxNames` names were kept.
    public private(set) var namesNotKept = 0
    private var personal = PersonalDataCheck()

    public init(options: Options = Options()) { self.options = options }

    /// One input line.
    public mutating func add(line bytes: UnsafeBufferPointer<UInt8>, scratch: JSONParseScratch) {
        lines += 1
        guard case let .success(event) = Event.decode(bytes, origin: Origin(source: 0, line: 0), scratch: scratch) else {
            notEvents += 1
            return
        }
        let document = event.document
        switch event.type {
        case .track, .screen:
            let name = event.nameString
            let isTrack = event.type == .track
            if (isTrack ? events[name] : screens[name]) == nil && events.count + screens.count >= options.maxNames {
                namesNotKept += 1
                return
            }
            if isTrack {
                Self.add(document, container: "properties", to: &events[name, default: Message()], options, &personal)
            } else {
                Self.add(document, container: "properties", to: &screens[name, default: Message()], options, &personal)
            }
        case .identify:
            Self.add(document, container: "traits", to: &identify, options, &personal)
        default:
            otherTypes += 1
        }
    }

    private static func add(_ document: JSONDocument, container: String, to message: inout Message, _ options: Options,
                            _ personal: inout PersonalDataCheck) {
        message.count += 1
        guard let object = document.member(container), document.kind(object) == .object else { return }
        var seen: Set<String> = []
        document.forEachMember(of: object) { key, value in
            guard let name = document.string(key), seen.insert(name).inserted else { return }
            if message.properties[name] == nil && message.properties.count >= options.maxProperties {
                message.droppedProperties += 1
                return
            }
            observe(document, value, into: &message.properties[name, default: Property()], options, &personal)
        }
    }

    private static func observe(_ document: JSONDocument, _ node: Int, into property: inout Property, _ options: Options,
                                _ personal: inout PersonalDataCheck) {
        property.count += 1
        if document.kind(node) == .null {
            property.nulls += 1
            return
        }
        var fits: UInt8 = 0
        for (bit, base) in Self.candidates.enumerated() where PropertyType(base).violation(document, node) == nil {
            fits |= 1 << bit
        }
        property.fits &= fits
        guard document.kind(node) == .string, let text = document.string(node) else { return }
        if !property.personal {
            if personal.holdsPersonalData(text) {
                property.personal = true
                property.values = [:]
            }
        }
        guard !property.personal, !property.valuesOverflowed else { return }
        property.values[text, default: 0] += 1
        if property.values.count > options.enumMax {
            property.valuesOverflowed = true
            property.values = [:]
        }
    }

    /// The draft plan as a pipeline file (its `plan` stage and an archive), `source` named in its header.
    public func yaml(source: String) -> String {
        var out = "# A draft tracking plan that `sluice plan infer` read from \(source): \(lines) lines,\n"
        out += "# \(events.values.reduce(0) { $0 + $1.count }) track events, \(screens.values.reduce(0) { $0 + $1.count }) screens, "
            + "\(identify.count) identifies (\(otherTypes) of other types, \(notEvents) not events).\n"
        out += "# Each type is the narrowest every value seen fits; `required` lists what every occurrence had;\n"
        out += "# the comments count occurrences. Review it before it checks anything.\n"
        if namesNotKept > 0 {
            out += "# \(namesNotKept) events of names beyond the first \(options.maxNames) are not in it.\n"
        }
        out += "version: 1\nstages:\n  - plan:\n      on_violation: reject\n      unplanned_events: reject\n"
        out += "      events:" + (events.isEmpty ? " {}\n" : "\n")
        for name in events.keys.sorted() { out += message(name, events[name]!, container: "properties") }
        if !screens.isEmpty {
            out += "      screens:\n"
            for name in screens.keys.sorted() { out += message(name, screens[name]!, container: "properties") }
        }
        if identify.count > 0 {
            out += "      identify:  # \(identify.count)\n"
            out += body(identify, container: "traits", indent: "        ")
        }
        out += "destinations:\n  archive: {type: ndjson}\n"
        return out
    }

    private func message(_ name: String, _ message: Message, container: String) -> String {
        "        \(Self.yamlKey(name)):  # \(message.count)\n" + body(message, container: container, indent: "          ")
    }

    private func body(_ message: Message, container: String, indent: String) -> String {
        var out = ""
        var required: [String] = []
        var planned: [(String, String)] = []
        var left: [String] = []
        for name in message.properties.keys.sorted() {
            let property = message.properties[name]!
            guard let type = type(of: property) else {
                left.append(name)
                continue
            }
            planned.append((name, type))
            if property.count == message.count { required.append(name) }
        }
        if planned.isEmpty {
            out += "\(indent)\(container): {}\n"
        } else {
            out += "\(indent)\(container):\n"
            for (name, type) in planned {
                let property = message.properties[name]!
                let seen = property.count == message.count ? "every one" : "\(property.count)"
                out += "\(indent)  \(Self.yamlKey(name)): \(type)  # \(seen)"
                    + (property.nulls > 0 ? ", \(property.nulls) null" : "")
                    + (property.personal ? ", personal data seen: never an enum" : "") + "\n"
            }
        }
        if !required.isEmpty {
            out += "\(indent)required: [" + required.map(Self.yamlKey).joined(separator: ", ") + "]\n"
        }
        for name in left {
            out += "\(indent)# \(Self.yamlKey(name)): values of several types seen (\(message.properties[name]!.count)); left unplanned\n"
        }
        if message.droppedProperties > 0 {
            out += "\(indent)# \(message.droppedProperties) more properties beyond the first \(options.maxProperties) are not listed\n"
        }
        return out
    }

    /// The plan type of a property (`integer`, `{enum: [...], nullable: true}`), or nil when no one type fits every value.
    private func type(of property: Property) -> String? {
        let nonNull = property.count - property.nulls
        var base: PropertyType.Base?
        if nonNull == 0 {
            base = .string
        } else {
            for (bit, candidate) in Self.candidates.enumerated() where property.fits & (1 << bit) != 0 {
                base = candidate
                break
            }
        }
        guard let base else { return nil }
        let nullable = property.nulls > 0
        if base == .string, nonNull >= options.enumMinEvents, !property.personal, !property.valuesOverflowed, !property.values.isEmpty {
            let members = property.values.keys.sorted().map(Self.yamlString).joined(separator: ", ")
            return "{enum: [\(members)]" + (nullable ? ", nullable: true}" : "}")
        }
        let name = PropertyType(base).description
        return nullable ? "{type: \(name), nullable: true}" : name
    }

    /// A key as YAML: plain when it is a simple word, else double-quoted.
    static func yamlKey(_ name: String) -> String {
        let plain = name.utf8.first.map { ASCIIBytes.isLetter($0) || $0 == UInt8(ascii: "_") } ?? false
            && name.utf8.allSatisfy(ASCIIBytes.isWord)
            && !["true", "false", "null", "yes", "no", "on", "off", "y", "n"].contains(name.lowercased())
        return plain ? name : yamlString(name)
    }

    /// A string as a double-quoted YAML scalar (JSON's escapes, which YAML reads the same).
    static func yamlString(_ text: String) -> String {
        var out: [UInt8] = []
        JSONString.appendQuoted(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
