/// GA4 / Firebase naming rules for events, parameters and user properties.
///
/// Sources:
/// - [mp-limits]: developers.google.com/analytics/devguides/collection/protocol/ga4/sending-events
///   ("Limitations": names 40 characters, alphanumeric and underscores, starting with a letter)
/// - [mp-reserved]: developers.google.com/analytics/devguides/collection/protocol/ga4/reference
///   ("Reserved names": event names, and the prefixes `_`, `firebase_`, `ga_`, `google_`, `gtag.`)
/// - [naming]: support.google.com/analytics/answer/13316687 ("Event naming rules": the web
///   list, reserved parameter and user-property names and prefixes)
/// - [fa-event]: firebase.google.com/docs/reference/android/com/google/firebase/analytics/FirebaseAnalytics.Event
///
/// GA4 drops events that break these silently (the Measurement Protocol always
/// answers 2xx), so Sluice fixes or refuses them before they leave.
enum GA4Names {
    /// What a name is for: the rules differ a little.
    enum Kind {
        case event(web: Bool)
        case parameter
        case userProperty
    }

    /// What had to change to make a name valid.
    struct Changes: OptionSet {
        let rawValue: Int
        static let characters = Changes(rawValue: 1)
        static let prefixed = Changes(rawValue: 2)
        static let cut = Changes(rawValue: 4)
    }

    /// [mp-limits] event and parameter names: at most 40 characters.
    static let maxNameLength = 40
    /// [mp-limits] user property names: at most 24 characters.
    static let maxUserPropertyNameLength = 24

    /// [mp-reserved] / [naming]: events and parameters may not start with these
    /// (`_` is already excluded by the letter-first rule, `gtag.` by the alphabet).
    static let reservedPrefixes: [[UInt8]] = ["_", "firebase_", "ga_", "google_", "gtag."].map { Array($0.utf8) }
    /// [naming] "user property names can't start with": `_`, `firebase_`, `ga_`, `google_`.
    static let reservedUserPropertyPrefixes: [[UInt8]] = ["_", "firebase_", "ga_", "google_"].map { Array($0.utf8) }

    /// [mp-reserved] / [fa-event]: names of automatically collected events (app streams).
    static let reservedEventNames: [[UInt8]] = [
        "ad_activeview", "ad_click", "ad_exposure", "ad_impression", "ad_query", "ad_reward", "adunit_exposure",
        "app_background", "app_clear_data", "app_exception", "app_install", "app_remove", "app_store_refund",
        "app_store_subscription_cancel", "app_store_subscription_convert", "app_store_subscription_renew",
        "app_update", "app_upgrade", "dynamic_link_app_open", "dynamic_link_app_update", "dynamic_link_first_open",
        "error", "first_open", "first_visit", "in_app_purchase", "notification_dismiss", "notification_foreground",
        "notification_open", "notification_receive", "os_update", "session_start", "session_start_with_rollout",
        "user_engagement",
    ].map { Array($0.utf8) }
    /// [naming] "Web": reserved event names that web streams add to the list above
    /// (`page_view` is not among them here: it is what Sluice sends for `page`
    /// messages, as gtag.js does).
    static let reservedWebEventNames: [[UInt8]] = [
        "click", "file_download", "form_start", "form_submit", "scroll", "video_complete", "video_progress",
        "video_start", "view_complete", "view_search_results",
    ].map { Array($0.utf8) }
    /// [naming] "Reserved user property names".
    static let reservedUserPropertyNames: [[UInt8]] = [
        "first_open_time", "first_visit_time", "last_deep_link_referrer", "user_id", "first_open_after_install",
    ].map { Array($0.utf8) }

    /// The prefix that makes a reserved or non-letter-initial name valid.
    static let safePrefix: [UInt8] = Array("app_".utf8)

    @inline(__always)
    static func isLetter(_ byte: UInt8) -> Bool { ASCIIBytes.isLetter(byte) }
    @inline(__always)
    static func isNameByte(_ byte: UInt8) -> Bool { ASCIIBytes.isWord(byte) }

    /// Whether `name` (UTF-8) is valid as it is, at most `maxLength` characters.
    static func isValid<Bytes: Collection>(_ name: Bytes, maxLength: Int, kind: Kind) -> Bool where Bytes.Element == UInt8 {
        guard let first = name.first, isLetter(first), name.count <= maxLength else { return false }
        guard name.allSatisfy(isNameByte) else { return false }
        return !isReserved(name, kind: kind)
    }

    /// Whether an all-ASCII name uses a reserved prefix or is a reserved name for its kind.
    static func isReserved<Bytes: Collection>(_ name: Bytes, kind: Kind) -> Bool where Bytes.Element == UInt8 {
        switch kind {
        case .event(let web):
            if reservedPrefixes.contains(where: { name.starts(with: $0) }) { return true }
            return isListed(name, in: reservedEventNames) || (web && isListed(name, in: reservedWebEventNames))
        case .parameter:
            return reservedPrefixes.contains { name.starts(with: $0) }
        case .userProperty:
            if reservedUserPropertyPrefixes.contains(where: { name.starts(with: $0) }) { return true }
            return isListed(name, in: reservedUserPropertyNames)
        }
    }

    /// Whether `name` is one of `names`: compared in place, length first (a set
    /// of byte arrays would need the name copied into an array and hashed byte by byte).
    private static func isListed<Bytes: Collection>(_ name: Bytes, in names: [[UInt8]]) -> Bool where Bytes.Element == UInt8 {
        let count = name.count
        return names.contains { $0.count == count && $0.elementsEqual(name) }
    }

    /// A valid name made from `name`: spaces and punctuation become `_`, common
    /// accented letters lose their accents, other non-ASCII is dropped, a
    /// reserved or non-letter start gets `app_`, and the result is cut to
    /// `maxLength`. `alsoReservedWith` lists suffixes the name will also be sent
    /// with (`_start`, `_stop`): a name reserved with one of them is prefixed too.
    static func normalize<Bytes: Collection>(_ name: Bytes, maxLength: Int, kind: Kind,
                                             alsoReservedWith suffixes: [[UInt8]] = []) -> (name: [UInt8], changes: Changes)
    where Bytes.Element == UInt8 {
        var changes: Changes = []
        var result: [UInt8] = []
        for scalar in String(decoding: Array(name), as: UTF8.self).unicodeScalars {
            if scalar.isASCII && isNameByte(UInt8(scalar.value)) {
                result.append(UInt8(scalar.value))
            } else if let plain = transliteration[scalar] {
                result.append(contentsOf: plain.utf8)
                changes.insert(.characters)
            } else if scalar.isASCII {
                result.append(UInt8(ascii: "_"))
                changes.insert(.characters)
            } else {
                changes.insert(.characters)
            }
        }
        let needsPrefix = result.first.map { !isLetter($0) } ?? true
            || isReserved(result, kind: kind)
            || suffixes.contains { isReserved(result + $0, kind: kind) }
        if needsPrefix {
            result = safePrefix + result
            changes.insert(.prefixed)
        }
        if result.count > maxLength {
            result.removeSubrange(maxLength...)
            changes.insert(.cut)
        }
        return (result, changes)
    }

    private static let transliteration: [Unicode.Scalar: String] = {
        var table: [Unicode.Scalar: String] = [:]
        let groups: [(String, String)] = [
            ("àáâãäåā", "a"), ("ÀÁÂÃÄÅĀ", "A"), ("çćč", "c"), ("ÇĆČ", "C"), ("èéêëēė", "e"), ("ÈÉÊËĒĖ", "E"),
            ("ìíîïī", "i"), ("ÌÍÎÏĪ", "I"), ("ñń", "n"), ("ÑŃ", "N"), ("òóôõöøō", "o"), ("ÒÓÔÕÖØŌ", "O"),
            ("ùúûüū", "u"), ("ÙÚÛÜŪ", "U"), ("ýÿ", "y"), ("ÝŸ", "Y"), ("šś", "s"), ("ŠŚ", "S"), ("žźż", "z"), ("ŽŹŻ", "Z"),
        ]
        for (letters, plain) in groups {
            for scalar in letters.unicodeScalars { table[scalar] = plain }
        }
        table["ß"] = "ss"
        table["æ"] = "ae"
        table["Æ"] = "AE"
        return table
    }()
}

/// Decisions about names, remembered: a stream has few distinct names, so each
/// is checked (and normalized) once. Capped against hostile streams.
struct GA4NameCache {
    struct Entry {
        /// The name to send; nil when the name is valid as it is.
        var fixed: [UInt8]?
        var changes: GA4Names.Changes
    }

    private var entries: [ByteKey: Entry] = [:]
    static let limit = 4096

    mutating func entry(for name: [UInt8], _ make: () -> Entry) -> Entry {
        let key = ByteKey(name)
        if let entry = entries[key] { return entry }
        let entry = make()
        if entries.count >= GA4NameCache.limit { entries.removeAll(keepingCapacity: true) }
        entries[key] = entry
        return entry
    }
}
