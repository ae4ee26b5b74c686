import SluiceJSON

/// The `privacy` stage: makes sure no personal data reaches any destination,
/// and shows where it found some.
///
/// Rules, in this order (each configurable, see `PrivacySettings`):
/// 1. consent (`ConsentRule`): opted-out events are dropped `consent`; category
///    preferences withhold the event from the destinations they deny;
/// 2. `drop`: fields removed by path;
/// 3. `allow`: only the listed paths stay in the objects the list names;
/// 4. `ip`: IP fields truncated (`IPTruncation`);
/// 5. `pseudonymize`: fields replaced by their HMAC-SHA-256 (`Pseudonymizer`);
/// 6. `redact`: every remaining string value and key searched by the detectors
///    and the custom patterns (`RedactionWalk`). Fields rules 4 and 5 rewrote are
///    not searched again (a pseudonym is hex, and may hold a Luhn-valid run).
///
/// Changes are written into the event's bytes and index in one splice
/// (`JSONSplice`), so a changed event is still written with one copy and an
/// event with nothing to change is passed on as it came, not copied. Put the
/// stage last among the stages: a later stage that rebuilds events from stored
/// bytes would not carry the consent mark.
public struct PrivacyProtection: DestinationWithholdingStage {
    public static let type = StageType(key: "privacy", dropReasons: [.consent]) { node, reader in
        PrivacySettingsReader.read(node, &reader).map { PrivacyProtection(settings: $0) }
    }

    public let name = "privacy"
    public let settings: PrivacySettings
    private var consent: ConsentRule?
    private let ipTruncation: IPTruncation?
    /// The last address truncated (a device's events repeat it).
    private let lastTruncation = LastTruncation()
    private var pseudonymizer: Pseudonymizer?
    private var redaction: RedactionWalk?
    private var splice = JSONSplice()
    private var handled: [Int] = []
    private var scratch: [UInt8] = []
    private(set) var stats: Counters
    private var auditLog: PrivacyAudit
    private let auditLabels: AuditLabels
    /// The `ip` fields that are plain paths (`context.ip`): found with one look-up per key, each with its audit slot.
    private var ipSlots: [Int] = []
    private var dropSlots: [Int] = []
    /// Per `pseudonymize` field: its audit slot.
    private var pseudonymizeSlots: [Int] = []
    /// `ip.fields` and `pseudonymize.fields`, kept at hand: read for every event.
    private let ipFields: [FieldPattern]
    private let pseudonymizeFields: [FieldPattern]
    /// What scrubs the run's rejected lines (`makeRejectScrubber`), for its counters.
    var rejectScrubber: PrivacyRejectScrubber?

    struct Counters {
        var optedOut = 0
        var withheld = 0
        var fieldsDropped = 0
        var fieldsNotAllowed = 0
        var ipTruncated = 0
        var ipUnparsed = 0
        var pseudonymized = 0
        var redacted: [Int]
        var eventsChanged = 0
    }

    /// Audit rule indexes: the fixed rules, then one per detector and pattern.
    enum Rule: Int { case consent, drop, allow, ip, pseudonymize }
    private static let fixedRules = ["consent", "drop", "allow", "truncate_ip", "pseudonymize"]

    public init(settings: PrivacySettings = PrivacySettings()) {
        self.settings = settings
        ipFields = settings.ip?.fields ?? []
        pseudonymizeFields = settings.pseudonymize?.fields ?? []
        consent = settings.consent.map(ConsentRule.init)
        ipTruncation = settings.ip.map(IPTruncation.init)
        pseudonymizer = settings.pseudonymize.map(Pseudonymizer.init)
        let walk = settings.redact.map { RedactionWalk(settings: $0, patterns: settings.patterns) }
        redaction = walk?.isEmpty == false ? walk : nil
        let detectorNames = PIIDetector.allCases.map(\.name) + settings.patterns.map(\.name)
        stats = Counters(redacted: Array(repeating: 0, count: detectorNames.count))
        auditLog = PrivacyAudit(rules: Self.fixedRules + detectorNames)
        var named = settings.drop + (settings.allow ?? []) + (settings.ip?.fields ?? []) + (settings.pseudonymize?.fields ?? [])
        named += (settings.redact?.paths ?? []) + (settings.redact?.exempt ?? [])
        named += [settings.consent?.field, settings.consent?.categories].compactMap { $0.flatMap { FieldPattern($0.description) } }
        auditLabels = AuditLabels(named)
        // The audit counts these rules' hits under their configured patterns: one slot each, no path text per hit.
        dropSlots = settings.drop.map { auditLog.register(rule: Rule.drop.rawValue, path: $0.description) }
        ipSlots = (settings.ip?.fields ?? []).map { auditLog.register(rule: Rule.ip.rawValue, path: $0.description) }
        pseudonymizeSlots = (settings.pseudonymize?.fields ?? []).map {
            auditLog.register(rule: Rule.pseudonymize.rawValue, path: $0.description)
        }
    }

    public mutating func prepare(destinations: [DestinationDescriptor]) {
        consent?.prepare(destinations: destinations)
    }

    public var counters: [(name: String, value: Int)] {
        var result: [(name: String, value: Int)] = [
            ("consent_opted_out", stats.optedOut),
            ("consent_withheld", stats.withheld),
            ("fields_dropped", stats.fieldsDropped),
            ("fields_not_allowed", stats.fieldsNotAllowed),
            ("ip_truncated", stats.ipTruncated),
            ("ip_unparsed", stats.ipUnparsed),
            ("pseudonymized", stats.pseudonymized),
        ]
        let names = PIIDetector.allCases.map(\.name) + settings.patterns.map(\.name)
        for (index, name) in names.enumerated() { result.append(("redacted_\(name)", stats.redacted[index])) }
        result.append(("events_changed", stats.eventsChanged))
        if let rejectScrubber { result += rejectScrubber.counters }
        return result
    }

    /// The audit, `hits_by_path` in `--stats`: per rule that had hits, its hits
    /// per field path, paths sorted (`{"email": {"properties.*": 12}}`). Paths only, never values,
    /// and only paths the settings bound (`AuditLabels`): a rule with fields counts under its patterns.
    public var counterGroups: [CounterGroup] {
        let rules = auditLog.entries.map { entry in
            CounterGroup(name: entry.rule, counters: entry.paths.sorted { $0.path < $1.path }.map { ($0.path, $0.hits) })
        }
        var groups = rules.isEmpty ? [] : [CounterGroup(name: "hits_by_path", counters: [], groups: rules)]
        if let rejectScrubber { groups.append(rejectScrubber.group) }
        return groups
    }

    /// The audit as a dictionary: rule → path → hits.
    var hitsByPath: [String: [String: Int]] {
        Dictionary(uniqueKeysWithValues: auditLog.entries.map { entry in
            (entry.rule, Dictionary(uniqueKeysWithValues: entry.paths.map { ($0.path, $0.hits) }))
        })
    }

    public mutating func process(_ event: consuming Event, into output: inout StageOutput) {
        if event.document.isModified { event.document = event.document.materialized() }
        if let consent {
            let found = consent.locate(event.document)
            if consent.optedOut(event.document, flag: found.flag) {
                stats.optedOut += 1
                auditLog.count(rule: Rule.consent.rawValue, path: consent.settings.field?.description ?? "")
                output.drop(event.origin, .consent)
                return
            }
            if let withheld = consent.withheld(event.document, preferences: found.preferences) {
                stats.withheld += 1
                auditLog.count(rule: Rule.consent.rawValue, path: consent.settings.categories?.description ?? "")
                event.withheld = withheld
            }
        }
        let change = applyFieldRules(to: &event.document)
        if change != .none {
            stats.eventsChanged += 1
            if change == .mayRename { refreshName(&event) }
        }
        output.emit(event)
    }

    /// What rules 2 to 6 did to a document.
    enum FieldChange { case none, changed, mayRename }

    /// Rules 2 to 6 (drop, allow, IP truncation, pseudonymization, detection) on
    /// one document without pending edits, in place; counted in the stage's
    /// counters and audit. The stage runs them on each event, and a rejected
    /// line that is a JSON object gets them too (`PrivacyRejectScrubber`).
    @inline(__always)
    mutating func applyFieldRules(to document: inout JSONDocument) -> FieldChange {
        var changed = false
        if !settings.drop.isEmpty || settings.allow != nil {
            splice.reset()
            removeFields(document)
            if !splice.isEmpty {
                splice.apply(to: &document)
                changed = true
            }
        }
        splice.reset()
        if !handled.isEmpty { handled.removeAll(keepingCapacity: true) }
        if ipTruncation != nil { truncateAddresses(document) }
        // Only these rules can change the routing name (`event`, `name`); an IP field cannot.
        var mayRename = changed
        if pseudonymizer != nil { mayRename = pseudonymize(document) || mayRename }
        if redaction != nil { mayRename = redact(document) || mayRename }
        if !splice.isEmpty {
            splice.apply(to: &document)
            changed = true
        }
        return !changed ? .none : mayRename ? .mayRename : .changed
    }

    public mutating func finish(into output: inout StageOutput) {}

    // MARK: - Rules 2 and 3

    private mutating func removeFields(_ document: JSONDocument) {
        var removals: [(object: Int, key: Int)] = []
        for (pattern, slot) in zip(settings.drop, dropSlots) {
            pattern.forEachField(in: document) { field in
                removals.append((field.object, field.key))
                stats.fieldsDropped += 1
                auditLog.count(slot: slot)
            }
        }
        if let allow = settings.allow {
            // Each object the list names the top of keeps only what the list reaches.
            var roots: [[UInt8]] = []
            for pattern in allow { if case .key(let key) = pattern.components[0], !roots.contains(key) { roots.append(key) } }
            for root in roots {
                guard let node = document.member(root, of: 0), document.kind(node) == .object
                else { continue }
                var keys = [node - 1]
                prune(node, keys: &keys, allow, document, &removals)
            }
        }
        guard !removals.isEmpty else { return }
        // Outermost first; a member inside one already going is not removed twice.
        removals.sort { $0.key < $1.key }
        var kept: [(object: Int, key: Int)] = []
        var coveredUntil = 0
        for removal in removals where removal.key >= coveredUntil {
            kept.append(removal)
            coveredUntil = document.after(removal.key + 1)
        }
        var objects: [Int] = []
        for removal in kept where !objects.contains(removal.object) {
            objects.append(removal.object)
            splice.removeMembers(kept.filter { $0.object == removal.object }.map(\.key), of: removal.object, in: document)
        }
    }

    /// Collects the members of the object at `node` that no allow pattern reaches.
    private mutating func prune(_ node: Int, keys: inout [Int], _ allow: [FieldPattern], _ document: JSONDocument,
                                _ removals: inout [(object: Int, key: Int)]) {
        for (key, value) in document.members(of: node) {
            keys.append(key)
            defer { keys.removeLast() }
            // Kept whole when a pattern names it (or an ancestor); pruned inside when it only leads to one.
            if allow.contains(where: { $0.covers(keys[...], in: document) }) { continue }
            if document.kind(value) == .object && allow.contains(where: { $0.leadsBelow(keys[...], in: document) }) {
                prune(value, keys: &keys, allow, document, &removals)
                continue
            }
            removals.append((node, key))
            stats.fieldsNotAllowed += 1
            auditLog.count(rule: Rule.allow.rawValue, path: auditLabels.label(keys, in: document))
        }
    }

    // MARK: - Rules 4 and 5

    private mutating func truncateAddresses(_ document: JSONDocument) {
        for index in ipFields.indices {
            // A plain path is looked up directly (every event, every field): no closure to set up.
            switch ipFields[index].lookUp(in: document) {
            case .absent:
                continue
            case .found(let field):
                if truncateAddress(field.value, document) { auditLog.count(slot: ipSlots[index]) }
            case .walk:
                let slot = ipSlots[index]
                ipFields[index].forEachField(in: document) { field in
                    if truncateAddress(field.value, document) { auditLog.count(slot: slot) }
                }
            }
        }
    }

    /// Truncates the address at `node`; false when it is not a string holding one address.
    private mutating func truncateAddress(_ node: Int, _ document: JSONDocument) -> Bool {
        guard document.kind(node) == .string, !handled.contains(node), let truncation = ipTruncation else { return false }
        // The new text is written in place, then once into the splice.
        let text: TextCursor?
        if !document.hasEscapes(node) {
            text = document.withSpan(of: node) { quoted in
                lastTruncation.truncated(quoted.extracting(1..<(quoted.count - 1)), by: truncation)
            }
        } else {
            text = document.withStringSpan(node) { truncation.truncated($0) } ?? nil
        }
        if let text { splice.replaceString(node, in: document) { text.append(to: &$0) } }
        guard text != nil else {
            // Not one address: left to the detectors, which redact any address inside.
            stats.ipUnparsed += 1
            return false
        }
        handled.append(node)
        stats.ipTruncated += 1
        return true
    }

    /// Returns whether it changed anything.
    private mutating func pseudonymize(_ document: JSONDocument) -> Bool {
        let before = stats.pseudonymized
        for index in pseudonymizeFields.indices {
            var hits = 0
            switch pseudonymizeFields[index].lookUp(in: document) {
            case .absent: continue
            case .found(let field): hits = pseudonymizeValue(field.value, document)
            case .walk:
                pseudonymizeFields[index].forEachField(in: document) { field in hits += pseudonymizeValue(field.value, document) }
            }
            if hits > 0 { auditLog.count(slot: pseudonymizeSlots[index], hits: hits) }
        }
        return stats.pseudonymized != before
    }

    /// Replaces the string or number at `node` (or each one in the array at `node`) by its pseudonym; returns how many.
    private mutating func pseudonymizeValue(_ node: Int, _ document: JSONDocument) -> Int {
        switch document.kind(node) {
        case .string, .number:
            return pseudonymizeScalar(node, document) ? 1 : 0
        case .array:
            var hits = 0
            let end = document.after(node)
            var element = node + 1
            while element < end {
                let kind = document.kind(element)
                if kind == .string || kind == .number, pseudonymizeScalar(element, document) { hits += 1 }
                element = document.after(element)
            }
            return hits
        default:
            return 0
        }
    }

    private mutating func pseudonymizeScalar(_ node: Int, _ document: JSONDocument) -> Bool {
        guard !handled.contains(node) else { return false }
        scratch.removeAll(keepingCapacity: true)
        if document.kind(node) == .string {
            _ = document.withStringSpan(node) { pseudonymizer!.appendPseudonym(of: $0, to: &scratch) }
        } else {
            document.withSpan(of: node) { pseudonymizer!.appendPseudonym(of: $0, to: &scratch) }
        }
        let text = scratch
        splice.replaceString(node, in: document) { $0.append(contentsOf: text) }
        handled.append(node)
        stats.pseudonymized += 1
        return true
    }

    // MARK: - Rule 6

    /// Returns whether it changed anything.
    private mutating func redact(_ document: JSONDocument) -> Bool {
        guard redaction!.run(document, handled: handled, splice: &splice) else { return false }
        for hit in redaction!.hits {
            stats.redacted[hit.detector] += 1
            auditLog.count(rule: Self.fixedRules.count + hit.detector, path: auditLabels.label(hit.keys, in: document))
        }
        return true
    }

    private static let eventKey = Array("event".utf8)
    private static let nameKey = Array("name".utf8)

    /// The routing name again, if a rule changed `event` or `name` (read without copying when it did not).
    private func refreshName(_ event: inout Event) {
        let key: [UInt8]
        switch event.type {
        case .track: key = Self.eventKey
        case .screen, .page: key = Self.nameKey
        default: return
        }
        guard let node = event.document.member(key) else {
            if !event.name.isEmpty { event.name = [] }
            return
        }
        let current = event.name
        if event.document.withString(node, { $0.elementsEqual(current) }) != true {
            event.name = event.document.withString(node) { Array($0) } ?? []
        }
    }
}

extension DropReason {
    /// The `privacy` stage: the person opted out (`context.consent.analytics: false`), or
    /// denied the consent category of every destination that would have taken the event.
    static let consent = DropReason("consent")
}
