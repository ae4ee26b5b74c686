/// What the `plan` stage counted, for `--stats`:
///
/// ```json
/// {"stage":"plan","checked":9,"conforming":6,"violating":3,"rejected":2,"flagged":0,
///  "omitted_properties":0,"unplanned":1,"unchecked":4,
///  "violations_by_kind":{"missing_required":1,"wrong_type":1,"not_in_enum":0,"unplanned_property":0,"unplanned_event":1},
///  "events":{"movie_tapped":{"checked":5,"violating":2,"missing_required":1,"wrong_type":1},
///            "like_toggled":{"checked":4,"violating":0}},
///  "unplanned_events":{"debug_ping":1}}
/// ```
/// `screens` and `identify` appear when the plan has them. Per-message
/// counters list `checked`, `violating` and the kinds that occurred.
/// Unplanned names come from the events, so they are reported as
/// `ReportedText` makes them (the pipeline's privacy detectors, cut to 64
/// bytes) and counted for the first 100 distinct names so reported; later
/// ones go to `(other)`, so a stream of random names cannot grow the stats.
struct PlanCounters {
    static let maxUnplannedNames = 100
    static let otherName = "(other)"
    /// How many names as they came are remembered with the entry they count
    /// under (names up to `maxRememberedBytes`), so a name seen again is not scrubbed again.
    static let maxRememberedNames = 1024
    static let maxRememberedBytes = 256

    private let plans: [(type: MessageType, name: String)]
    /// Per planned message: checked, violating, then one count per violation kind.
    private var perMessage: [[Int]]
    private var byKind = [Int](repeating: 0, count: PlanViolation.Kind.allCases.count)
    private var checkedTotal = 0
    private var violatingTotal = 0
    var rejected = 0
    var flagged = 0
    var omittedProperties = 0
    var unchecked = 0
    private var unplannedTotal = 0
    private var unplannedEvents = NameCounts()
    private var unplannedScreens = NameCounts()
    /// What makes an event's name fit to report.
    var reportedText = ReportedText()

    /// Counts by reported name in first-seen order, for at most `maxUnplannedNames` names.
    struct NameCounts {
        private(set) var entries: [(name: [UInt8], count: Int)] = []
        /// Reported name → its entry.
        private var positions: [NameKey: Int] = [:]
        /// Name as it came → its entry (bounded: `maxRememberedNames`).
        private var remembered: [NameKey: Int] = [:]
        private var other: Int?

        var isEmpty: Bool { entries.isEmpty }

        mutating func count(_ name: [UInt8], _ reportedText: inout ReportedText) {
            if let position = remembered[NameKey(name)] {
                entries[position].count += 1
                return
            }
            let reported = reportedText.fit(name)
            let position: Int
            if let known = positions[NameKey(reported)] {
                position = known
            } else if positions.count < PlanCounters.maxUnplannedNames {
                position = entries.count
                positions[NameKey(reported)] = position
                entries.append((reported, 0))
            } else if let other {
                position = other
            } else {
                position = entries.count
                other = position
                entries.append((Array(PlanCounters.otherName.utf8), 0))
            }
            entries[position].count += 1
            if remembered.count < PlanCounters.maxRememberedNames && name.count <= PlanCounters.maxRememberedBytes {
                remembered[NameKey(name)] = position
            }
        }
    }

    init(plans: [MessagePlan]) {
        self.plans = plans.map { ($0.type, $0.name) }
        perMessage = Array(repeating: [Int](repeating: 0, count: 2 + PlanViolation.Kind.allCases.count), count: plans.count)
    }

    static func kindIndex(_ kind: PlanViolation.Kind) -> Int {
        switch kind {
        case .missingRequired: return 0
        case .wrongType: return 1
        case .notInEnum: return 2
        case .unplannedProperty: return 3
        case .unplannedEvent: return 4
        }
    }

    /// A planned message was checked and had these violations.
    mutating func checked(_ index: Int, _ violations: [PlanViolation]) {
        checkedTotal += 1
        perMessage[index][0] += 1
        guard !violations.isEmpty else { return }
        violatingTotal += 1
        perMessage[index][1] += 1
        for violation in violations {
            let kind = Self.kindIndex(violation.kind)
            perMessage[index][2 + kind] += 1
            byKind[kind] += 1
        }
    }

    mutating func unplanned(_ event: Event) {
        unplannedTotal += 1
        byKind[Self.kindIndex(.unplannedEvent)] += 1
        if event.type == .screen {
            unplannedScreens.count(event.name, &reportedText)
        } else {
            unplannedEvents.count(event.name, &reportedText)
        }
    }

    var flat: [(name: String, value: Int)] {
        [("checked", checkedTotal), ("conforming", checkedTotal - violatingTotal), ("violating", violatingTotal),
         ("rejected", rejected), ("flagged", flagged), ("omitted_properties", omittedProperties),
         ("unplanned", unplannedTotal), ("unchecked", unchecked)]
    }

    var groups: [CounterGroup] {
        let kinds = PlanViolation.Kind.allCases
        var groups = [CounterGroup(name: "violations_by_kind", counters: kinds.map { ($0.rawValue, byKind[Self.kindIndex($0)]) })]
        func messageGroup(_ index: Int) -> CounterGroup {
            let counts = perMessage[index]
            var counters: [(name: String, value: Int)] = [("checked", counts[0]), ("violating", counts[1])]
            for kind in kinds where counts[2 + Self.kindIndex(kind)] > 0 {
                counters.append((kind.rawValue, counts[2 + Self.kindIndex(kind)]))
            }
            return CounterGroup(name: plans[index].name, counters: counters)
        }
        let indexes = plans.indices
        groups.append(CounterGroup(name: "events", counters: [],
                                   groups: indexes.filter { plans[$0].type == .track }.map(messageGroup)))
        let screens = indexes.filter { plans[$0].type == .screen }
        if !screens.isEmpty { groups.append(CounterGroup(name: "screens", counters: [], groups: screens.map(messageGroup))) }
        if let identify = indexes.first(where: { plans[$0].type == .identify }) {
            var group = messageGroup(identify)
            group.name = "identify"
            groups.append(group)
        }
        func names(_ list: NameCounts) -> [(name: String, value: Int)] {
            list.entries.map { (String(decoding: $0.name, as: UTF8.self), $0.count) }
        }
        groups.append(CounterGroup(name: "unplanned_events", counters: names(unplannedEvents)))
        if !unplannedScreens.isEmpty { groups.append(CounterGroup(name: "unplanned_screens", counters: names(unplannedScreens))) }
        return groups
    }
}
