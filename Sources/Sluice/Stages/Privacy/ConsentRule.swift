import SluiceJSON

/// Rule 1 of the `privacy` stage: consent.
///
/// - The opt-out flag (`consent.field`, default `context.consent.analytics`)
///   set to `false` (or `"false"`, `0`): the person opted out of analytics; the
///   event is dropped, reason `consent`, before any other rule reads it.
/// - Segment-style category preferences (`consent.categories`, default
///   `context.consent.categoryPreferences`, an object of category → boolean):
///   a destination mapped to a category (its `consent_category`) gets the event
///   only if that category is `true` there (compared case-insensitively); a
///   category the object does not list is denied (`unlisted: deny`, Segment's
///   rule) unless `unlisted: allow`. The event is marked (`Event.withheld`) and
///   the fan-out skips those destinations, counting `consent` for each; an event
///   that no destination may take is dropped `consent` there. An event without
///   the object, and a destination with no category, are not filtered.
struct ConsentRule {
    let settings: PrivacySettings.Consent
    /// Destinations with a category: their index and the category's name, lowercased.
    private var mapped: [(index: Int, category: [UInt8])] = []
    /// How many leading keys `field` and `categories` share (`context.consent` by default: 2).
    private let sharedKeys: Int

    init(settings: PrivacySettings.Consent) {
        self.settings = settings
        if let field = settings.field?.components, let categories = settings.categories?.components {
            sharedKeys = zip(field, categories).prefix { $0 == $1 }.count
        } else {
            sharedKeys = 0
        }
    }

    mutating func prepare(destinations: [DestinationDescriptor]) {
        mapped = destinations.compactMap { destination in
            destination.consentCategory.map { (destination.index, Array($0.lowercased().utf8)) }
        }
    }

    /// Where the event's opt-out flag and category preferences are (nil: absent,
    /// or not asked for), found in one walk down the keys their paths share:
    /// every event is looked up for both, and most have neither.
    @inline(__always)
    func locate(_ document: JSONDocument) -> (flag: Int?, preferences: Int?) {
        guard !mapped.isEmpty, let preferencesPath = settings.categories else {
            // No destination has a category: only the flag is asked for.
            guard let field = settings.field else { return (nil, nil) }
            return (document.find(field), nil)
        }
        guard let field = settings.field else { return (nil, document.find(preferencesPath)) }
        guard let base = ConsentRule.follow(field, keys: 0..<sharedKeys, from: 0, document) else { return (nil, nil) }
        return (ConsentRule.follow(field, keys: sharedKeys..<field.components.count, from: base, document),
                ConsentRule.follow(preferencesPath, keys: sharedKeys..<preferencesPath.components.count, from: base, document))
    }

    /// The value down the keys `keys` of `path` from the object at `node`.
    private static func follow(_ path: JSONPath, keys: Range<Int>, from node: Int, _ document: JSONDocument) -> Int? {
        document.find(path, keys: keys, from: node)
    }

    /// Whether the person opted out of analytics altogether (`flag`: from `locate`).
    func optedOut(_ document: JSONDocument, flag: Int?) -> Bool {
        guard let node = flag else { return false }
        switch document.kind(node) {
        case .false: return true
        case .number:
            return document.withRawBytes(node) { raw in
                raw.allSatisfy { $0 == UInt8(ascii: "0") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }
            }
        case .string:
            return document.withString(node) { text in
                text.count == 5 && zip(text, "false".utf8).allSatisfy { ($0 | 0x20) == $1 }
            } ?? false
        default:
            return false
        }
    }

    /// The destinations the event's category preferences rule out, or nil when
    /// none are (`preferences`: from `locate`).
    func withheld(_ document: JSONDocument, preferences: Int?) -> WithheldDestinations? {
        guard !mapped.isEmpty, let preferences, document.kind(preferences) == .object else { return nil }
        let members = document.members(of: preferences)
        var result: WithheldDestinations?
        for destination in mapped {
            var granted: Bool?
            for (key, value) in members {
                let matches = document.withString(key) { name in
                    name.count == destination.category.count
                        && zip(name, destination.category).allSatisfy { (TextBytes.isASCIILetter($0) ? $0 | 0x20 : $0) == $1 }
                } ?? false
                if matches { granted = document.kind(value) == .true }
            }
            if granted ?? settings.unlistedAllowed { continue }
            if result == nil { result = WithheldDestinations(reason: .consent) }
            result!.insert(destination.index)
        }
        return result
    }
}
