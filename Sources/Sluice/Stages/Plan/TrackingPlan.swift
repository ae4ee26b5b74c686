import SluiceJSON

/// The `plan` stage: checks events against a tracking plan, the typed catalog
/// of the events, screens and identify traits the app may send.
///
/// Rules:
/// - a `track` is looked up by its event name in `events:`, a `screen` by its
///   name in `screens:` (only when the plan has `screens:`), an `identify`
///   against `identify:` (only when the plan has it); other messages pass
///   unchecked (`unchecked`);
/// - a message the plan does not list is handled by `unplanned_events`;
/// - a listed one is checked property by property (`properties`, or `traits`
///   for identify): every `required` property present, every present planned
///   property of its type (see `PropertyType`), and with
///   `additional_properties: false` no other property. A `properties` value
///   that is not an object is itself a violation; an absent one is empty;
/// - an event with violations is handled by `on_violation`.
///
/// The stage holds no event, so `finish` has nothing to let out. A conforming
/// event is passed on untouched (no copy, no edit). An event an earlier stage
/// changed is checked as changed (its edits written into the bytes first).
public struct TrackingPlan: ReportedTextStage {
    public static let type = StageType(key: "plan", rejectReasons: [.planViolation, .unplannedEvent]) { node, reader in
        PlanSettings.read(node, &reader).map { TrackingPlan(settings: $0) }
    }

    /// A planned message ready for checking: names as bytes.
    struct Compiled {
        struct Property {
            var name: [UInt8]
            var type: PropertyType
            var required: Bool
        }

        var properties: [Property]
        var additionalProperties: Bool
        var container: [UInt8]
    }

    public let name = "plan"
    public let settings: PlanSettings
    private let messages: [Compiled]
    private let eventIndex: [NameKey: Int]
    private let screenIndex: [NameKey: Int]?
    private let identifyIndex: Int?
    private var violations: [PlanViolation] = []
    var stats: PlanCounters

    static let violationsPath = JSONPath("context.violations")

    public init(settings: PlanSettings = PlanSettings()) {
        self.settings = settings
        var plans = settings.events
        var events: [NameKey: Int] = [:]
        for (index, plan) in settings.events.enumerated() { events[NameKey(Array(plan.name.utf8))] = index }
        var screens: [NameKey: Int]?
        if let planned = settings.screens {
            var table: [NameKey: Int] = [:]
            for plan in planned {
                table[NameKey(Array(plan.name.utf8))] = plans.count
                plans.append(plan)
            }
            screens = table
        }
        var identify: Int?
        if let plan = settings.identify {
            identify = plans.count
            plans.append(plan)
        }
        messages = plans.map { plan in
            Compiled(properties: plan.properties.map { Compiled.Property(name: Array($0.name.utf8), type: $0.type, required: $0.required) },
                     additionalProperties: plan.additionalProperties,
                     container: Array((plan.type == .identify ? "traits" : "properties").utf8))
        }
        eventIndex = events
        screenIndex = screens
        identifyIndex = identify
        stats = PlanCounters(plans: plans)
    }

    public var counters: [(name: String, value: Int)] { stats.flat }

    public mutating func scrubReportedText(with scrubbers: [any TextScrubber]) {
        stats.reportedText = ReportedText(scrubbers: scrubbers)
    }
    public var counterGroups: [CounterGroup] { stats.groups }

    public mutating func process(_ event: consuming Event, into output: inout StageOutput) {
        let index: Int?
        switch event.type {
        case .track:
            index = eventIndex[NameKey(event.name)]
        case .screen:
            guard let screenIndex else { return pass(event, &output) }
            index = screenIndex[NameKey(event.name)]
        case .identify:
            guard let identifyIndex else { return pass(event, &output) }
            index = identifyIndex
        case .page, .group, .alias, .session:
            return pass(event, &output)
        }
        guard let index else { return unplanned(event, &output) }
        // What an earlier stage set or added sits beside the parsed text; the check reads the parsed text (rare: `plan` goes first).
        if event.document.isModified { event.document = event.document.materialized() }
        collectViolations(event.document, messages[index])
        stats.checked(index, violations)
        if violations.isEmpty {
            output.emit(event)
            return
        }
        let container = String(decoding: messages[index].container, as: UTF8.self)
        switch settings.onViolation {
        case .reject:
            reject(event, .planViolation, PlanViolation.detail(violations, container: container), &output)
        case .flag:
            flag(event, container: container, &output)
        case .omit:
            if let unfixable = violations.first(where: { !$0.omissionFixes }) {
                let detail = PlanViolation.detail([unfixable], container: container)
                    + " (cannot be omitted: the property is required)"
                reject(event, .planViolation, detail, &output)
                return
            }
            for violation in violations {
                if let key = violation.keyIndex { event.document.removeMember(keyIndex: key) }
            }
            stats.omittedProperties += violations.count
            output.emit(event)
        }
    }

    public func finish(into output: inout StageOutput) {}

    // MARK: - Steps

    private mutating func pass(_ event: Event, _ output: inout StageOutput) {
        stats.unchecked += 1
        output.emit(event)
    }

    private mutating func unplanned(_ event: Event, _ output: inout StageOutput) {
        stats.unplanned(event)
        switch settings.unplannedEvents {
        case .pass:
            output.emit(event)
        case .reject:
            let list = event.type == .screen ? "screens" : "events"
            reject(event, .unplannedEvent, "\(event.type.rawValue) \"\(event.nameString)\" is not in the tracking plan's \(list)", &output)
        case .flag:
            violations.removeAll(keepingCapacity: true)
            violations.append(PlanViolation(property: nil, kind: .unplannedEvent,
                                            expected: event.type == .screen ? "a planned screen" : "a planned event",
                                            got: nil, keyIndex: nil, omissionFixes: false))
            flag(event, container: "properties", &output)
        }
    }

    private mutating func reject(_ event: Event, _ reason: RejectReason, _ detail: String, _ output: inout StageOutput) {
        stats.rejected += 1
        output.reject(event, Rejection(reason, detail))
    }

    /// Passes the event on with `context.violations`; an event whose `context`
    /// is not an object cannot carry them and is rejected instead, so the
    /// violation is never lost.
    private mutating func flag(_ event: Event, container: String, _ output: inout StageOutput) {
        var event = event
        if event.document.set(Self.violationsPath, json: PlanViolation.json(violations)) {
            stats.flagged += 1
            output.emit(event)
        } else {
            let reason: RejectReason = violations.first?.kind == .unplannedEvent ? .unplannedEvent : .planViolation
            reject(event, reason, PlanViolation.detail(violations, container: container)
                + " (context is not an object, so the violations could not be attached)", &output)
        }
    }

    /// Fills `violations` with what `document` breaks of `plan`.
    private mutating func collectViolations(_ document: JSONDocument, _ plan: Compiled) {
        violations.removeAll(keepingCapacity: true)
        let container = document.member(plan.container)
        if let container, document.kind(container) != .object {
            violations.append(PlanViolation(property: plan.container, kind: .wrongType, expected: "object",
                                            got: PropertyType.describe(document, container), keyIndex: container - 1,
                                            omissionFixes: !plan.properties.contains { $0.required }))
            return
        }
        for property in plan.properties {
            let node = container.flatMap { object in document.member(property.name, of: object) }
            guard let node else {
                if property.required {
                    violations.append(PlanViolation(property: property.name, kind: .missingRequired,
                                                    expected: property.type.description, got: nil, keyIndex: nil,
                                                    omissionFixes: false))
                }
                continue
            }
            if let kind = property.type.violation(document, node) {
                violations.append(PlanViolation(property: property.name, kind: kind, expected: property.type.description,
                                                got: PropertyType.describe(document, node), keyIndex: node - 1,
                                                omissionFixes: !property.required))
            }
        }
        guard !plan.additionalProperties, let container else { return }
        // Every member the plan does not list, walked in place (no array of members built).
        let end = document.after(container)
        var key = container + 1
        while key < end {
            let next = document.after(key + 1)
            if !document.isRemoved(key: key) {
                let planned = document.withString(key) { raw in plan.properties.contains { $0.name.elementsEqual(raw) } } ?? false
                if !planned {
                    violations.append(PlanViolation(property: document.withString(key) { Array($0) } ?? [],
                                                    kind: .unplannedProperty, expected: nil, got: nil, keyIndex: key,
                                                    omissionFixes: true))
                }
            }
            key = next
        }
    }
}

extension RejectReason {
    /// An event that breaks the tracking plan (`plan: {on_violation: reject}`, or
    /// a violation `omit` cannot fix); the detail names each property and kind.
    static let planViolation = RejectReason("plan_violation")
    /// An event the tracking plan does not list (`plan: {unplanned_events: reject}`).
    static let unplannedEvent = RejectReason("unplanned_event")
}

extension TrackingPlan: PlanCheckingStage {
    public var planSettings: PlanSettings { settings }
}
