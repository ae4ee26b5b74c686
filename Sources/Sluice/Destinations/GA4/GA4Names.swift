/// GA4 / Firebase naming rules for events, parameters and user properties.
///
/// From Google's Measurement Protocol docs (developers.google.com/analytics/devguides/
/// collection/protocol/ga4/sending-events, "Limitations") and the Firebase
/// `FirebaseAnalytics.Event` reference: names are at most 40 characters
/// (user properties 24) of `[A-Za-z0-9_]`, start with a letter, and may not use
/// the reserved prefixes `_`, `firebase_`, `ga_`, `google_`, `gtag.` or a
/// reserved event name. GA4 drops events that break these silently (it always
/// answers 2xx), so Sluice fixes or refuses them before they leave.
struct GA4Names {
    /// What had to change to make a name valid.
    struct Changes: OptionSet {
        let rawValue: Int
        static let characters = Changes(rawValue: 1)
        static let prefixed = Changes(rawValue: 2)
        static let cut = Changes(rawValue: 4)
    }

    static let reservedPrefixes: [String] = ["_", "firebase_", "ga_", "google_", "gtag."]
    /// Event names reserved for automatically collected events (app streams).
    static let reservedEventNames: Set<String> = [
        "ad_activeview", "ad_click", "ad_exposure", "ad_impression", "ad_query", "ad_reward", "adunit_exposure",
        "app_background", "app_clear_data", "app_exception", "app_remove", "app_store_refund",
        "app_store_subscription_cancel", "app_store_subscription_convert", "app_store_subscription_renew",
        "app_update", "app_upgrade", "dynamic_link_app_open", "dynamic_link_app_update", "dynamic_link_first_open",
        "error", "first_open", "first_visit", "in_app_purchase", "notification_dismiss", "notification_foreground",
        "notification_open", "notification_receive", "os_update", "session_start", "session_start_with_rollout",
        "user_engagement",
    ]
    /// The prefix that makes a reserved or non-letter-initial name valid.
    static let safePrefix = "app_"

    /// Whether `name` is valid as it is.
    static func isValid(_ name: String, maxLength: Int = 40, isEvent: Bool = true) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCIILetter, name.unicodeScalars.count <= maxLength else { return false }
        guard name.unicodeScalars.allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit || $0 == "_" }) else { return false }
        if reservedPrefixes.contains(where: { name.hasPrefix($0) }) { return false }
        return !(isEvent && reservedEventNames.contains(name))
    }

    /// A valid name made from `name`: spaces and punctuation become `_`, common
    /// accented letters lose their accents, other non-ASCII is dropped, a reserved
    /// or non-letter start gets `app_`, and the result is cut to `maxLength`.
    static func normalize(_ name: String, maxLength: Int = 40, isEvent: Bool = true) -> (name: String, changes: Changes) {
        var changes: Changes = []
        var result = ""
        for scalar in name.unicodeScalars {
            if scalar.isASCIILetter || scalar.isASCIIDigit || scalar == "_" {
                result.unicodeScalars.append(scalar)
            } else if let plain = transliteration[scalar] {
                result += plain
                changes.insert(.characters)
            } else if scalar.isASCII {
                result += "_"
                changes.insert(.characters)
            } else {
                changes.insert(.characters)
            }
        }
        let needsPrefix = result.unicodeScalars.first.map { !$0.isASCIILetter } ?? true
            || reservedPrefixes.contains(where: { result.hasPrefix($0) })
            || (isEvent && reservedEventNames.contains(result))
        if needsPrefix {
            result = safePrefix + result
            changes.insert(.prefixed)
        }
        if result.unicodeScalars.count > maxLength {
            result = String(String.UnicodeScalarView(result.unicodeScalars.prefix(maxLength)))
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

extension Unicode.Scalar {
    var isASCIILetter: Bool { (value >= 0x41 && value <= 0x5A) || (value >= 0x61 && value <= 0x7A) }
    var isASCIIDigit: Bool { value >= 0x30 && value <= 0x39 }
}
