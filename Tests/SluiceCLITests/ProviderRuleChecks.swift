import Foundation
import SluiceTestSupport
import Testing

/// Each provider's rules, checked on the records Sluice wrote, written from the
/// providers' documentation (reference/providers.md) without any Sluice code:
/// if an adapter breaks a rule, these catch it independently.
enum ProviderRules {
    typealias Record = [String: Any]

    static let mixpanelPlaceholders: Set<String> = [
        "00000000-0000-0000-0000-000000000000", "anon", "anonymous", "nil", "none", "null", "n/a", "na",
        "undefined", "unknown", "<nil>", "0", "-1", "true", "false", "[]", "{}",
    ]
    static let amplitudeRejectedIDs: Set<String> = [
        "anonymous", "nil", "none", "null", "n/a", "na", "undefined", "unknown",
        "00000000-0000-0000-0000-000000000000", "{}", "lmy47d", "0", "-1",
    ]
    static let ga4ReservedEvents: Set<String> = [
        "ad_activeview", "ad_click", "ad_exposure", "ad_impression", "ad_query", "ad_reward", "adunit_exposure",
        "app_background", "app_clear_data", "app_exception", "app_remove", "app_store_refund",
        "app_store_subscription_cancel", "app_store_subscription_convert", "app_store_subscription_renew",
        "app_update", "app_upgrade", "dynamic_link_app_open", "dynamic_link_app_update", "dynamic_link_first_open",
        "error", "first_open", "first_visit", "in_app_purchase", "notification_dismiss", "notification_foreground",
        "notification_open", "notification_receive", "os_update", "session_start", "session_start_with_rollout",
        "user_engagement",
    ]
    static let ga4ReservedUserProperties: Set<String> = [
        "first_open_time", "first_visit_time", "last_deep_link_referrer", "user_id", "first_open_after_install",
    ]

    /// Every string in a JSON value, at any depth (keys not included).
    static func strings(in value: Any) -> [String] {
        switch value {
        case let text as String: return [text]
        case let object as [String: Any]: return object.values.flatMap(strings(in:))
        case let array as [Any]: return array.flatMap(strings(in:))
        default: return []
        }
    }

    static func isInteger(_ value: Any?) -> Bool {
        guard let number = value as? NSNumber else { return false }
        return number.doubleValue == number.doubleValue.rounded() && !(value is String)
    }

    /// GA4: `[A-Za-z][A-Za-z0-9_]*`, at most `max` characters, no reserved prefix.
    static func isGA4Name(_ name: String, max: Int = 40, userProperty: Bool = false) -> Bool {
        guard let first = name.unicodeScalars.first, ("a"..."z").contains(first) || ("A"..."Z").contains(first),
              name.unicodeScalars.count <= max,
              name.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" })
        else { return false }
        let prefixes = userProperty ? ["firebase_", "ga_", "google_"] : ["firebase_", "ga_", "google_", "gtag."]
        return !prefixes.contains { name.hasPrefix($0) }
    }

    static func checkMixpanel(_ record: Record, line: String) {
        #expect(Set(record.keys) == ["event", "properties"], "\(line)")
        guard let event = record["event"] as? String, let properties = record["properties"] as? [String: Any] else {
            Issue.record("not a Mixpanel import record: \(line)")
            return
        }
        #expect(!event.isEmpty)
        #expect(isInteger(properties["time"]) && (properties["time"] as! NSNumber).int64Value >= 31_536_000_000, "time: \(line)")
        let distinct = properties["distinct_id"] as? String ?? ""
        #expect(!distinct.isEmpty && !mixpanelPlaceholders.contains(distinct.lowercased()), "distinct_id: \(line)")
        let insertID = properties["$insert_id"] as? String ?? ""
        #expect(!insertID.isEmpty && insertID.utf8.count <= 36
                && insertID.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") },
                "$insert_id: \(line)")
        #expect(properties.count < 255, "\(properties.count) properties")
        #expect(properties.keys.allSatisfy { $0.utf8.count <= 255 })
        // The ID Merge API's `$merge` and `$create_alias` carry the project token; no other event does.
        let identityEvent = event == "$merge" || event == "$create_alias"
        #expect(!properties.keys.contains { ["$ignore", "$bucket", "bucket"].contains($0) || ($0 == "token" && !identityEvent) })
        for text in strings(in: properties) { #expect(text.utf8.count <= 255, "a \(text.utf8.count)-byte string") }
        if let duration = properties["$duration"] { #expect(duration is NSNumber, "$duration: \(line)") }
    }

    static func checkAmplitude(_ record: Record, line: String, minIDLength: Int = 5) {
        guard let type = record["event_type"] as? String else {
            Issue.record("no event_type: \(line)")
            return
        }
        #expect(!type.isEmpty && type.unicodeScalars.count <= 1024)
        let ids = ["user_id", "device_id"].compactMap { record[$0] as? String }
        #expect(!ids.isEmpty, "neither id: \(line)")
        for id in ids {
            #expect(id.unicodeScalars.count >= minIDLength && !amplitudeRejectedIDs.contains(id.lowercased()), "id \(id)")
        }
        #expect(isInteger(record["time"]) && isInteger(record["session_id"]), "\(line)")
        #expect(((record["session_id"] as? NSNumber)?.int64Value ?? 0) >= -1)
        #expect(!(record["insert_id"] as? String ?? "").isEmpty)
        for text in strings(in: record) { #expect(text.unicodeScalars.count <= 1024) }
        if type == "$identify" {
            #expect((record["user_properties"] as? [String: Any])?["$set"] is [String: Any], "\(line)")
        } else {
            #expect(record["event_properties"] is [String: Any], "\(line)")
        }
    }

    /// `sessions`: the `session` stage ran, so every event has a `session_id`.
    static func checkGA4(_ record: Record, line: String, sessions: Bool) {
        #expect(Set(record.keys).isSubset(of: ["app_instance_id", "client_id", "user_id", "timestamp_micros", "user_properties", "events"]),
                "\(line)")
        let id = record["app_instance_id"] as? String ?? ""
        #expect(id.count == 32 && id.unicodeScalars.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) }, "\(line)")
        #expect(isInteger(record["timestamp_micros"]))
        // No booleans or nulls anywhere (GA4 drops events with them without a word).
        #expect(line.range(of: #"(?<!\\)":(true|false|null)"#, options: .regularExpression) == nil, "\(line)")
        let events = record["events"] as? [[String: Any]] ?? []
        #expect((1...25).contains(events.count))
        for event in events {
            let name = event["name"] as? String ?? ""
            #expect(isGA4Name(name) && !ga4ReservedEvents.contains(name), "event name \(name)")
            let params = event["params"] as? [String: Any] ?? [:]
            #expect(params.count <= 25, "\(params.count) params")
            #expect(isInteger(params["engagement_time_msec"]) && (params["engagement_time_msec"] as! NSNumber).int64Value >= 1)
            if sessions { #expect(isInteger(params["session_id"]), "no session_id: \(line)") }
            for (key, value) in params {
                #expect(isGA4Name(key), "param name \(key)")
                if key == "items" {
                    checkGA4Items(value, line: line)
                    continue
                }
                #expect(value is String || value is NSNumber, "\(key) is \(value)")
                let limit = ["page_title": 300, "page_referrer": 420, "page_location": 1000][key] ?? 100
                if let text = value as? String { #expect(text.unicodeScalars.count <= limit, "\(key): \(text.count) characters") }
            }
        }
        let userProperties = record["user_properties"] as? [String: Any] ?? [:]
        #expect(userProperties.count <= 25)
        for (name, wrapper) in userProperties {
            #expect(isGA4Name(name, max: 24, userProperty: true) && !ga4ReservedUserProperties.contains(name), "user property \(name)")
            let value = (wrapper as? [String: Any])?["value"]
            #expect(value is String || value is NSNumber)
            if let text = value as? String { #expect(text.unicodeScalars.count <= 36) }
        }
    }

    /// GA4's item params (developers.google.com/analytics/devguides/collection/ga4/ecommerce): at most
    /// 200 items, each with an `item_id` or an `item_name`; the Measurement Protocol takes 10 custom
    /// item params beside GA4's own, strings or numbers, text at most 100 characters; a body under 130 kB.
    static let ga4ItemParams: Set<String> = [
        "item_id", "item_name", "affiliation", "coupon", "discount", "index", "item_brand", "item_category", "item_category2",
        "item_category3", "item_category4", "item_category5", "item_list_id", "item_list_name", "item_variant", "location_id",
        "price", "quantity", "promotion_id", "promotion_name", "creative_name", "creative_slot",
    ]

    static func checkGA4Items(_ value: Any, line: String) {
        #expect(line.utf8.count < 130_000, "a \(line.utf8.count)-byte request body")
        guard let items = value as? [[String: Any]] else {
            Issue.record("items is not a list of objects: \(line.prefix(300))")
            return
        }
        #expect((1...200).contains(items.count), "\(items.count) items")
        for item in items {
            #expect(item["item_id"] is String || item["item_name"] is String, "an item without id or name: \(item)")
            #expect(item.keys.filter { !ga4ItemParams.contains($0) }.count <= 10, "custom item params: \(item.keys)")
            for (key, value) in item {
                #expect(isGA4Name(key), "item param name \(key)")
                #expect(value is String || value is NSNumber, "\(key) is \(value)")
                if let text = value as? String { #expect(text.unicodeScalars.count <= 100) }
            }
            for number in ["price", "quantity", "index", "discount"] where item[number] != nil {
                #expect(item[number] is NSNumber && !(item[number] is String), "\(number): \(item)")
            }
        }
    }

    static func checkAdjust(_ record: Record, line: String, appToken: String, tokens: Set<String>) {
        #expect((record["s2s"] as? NSNumber)?.intValue == 1)
        #expect(record["app_token"] as? String == appToken)
        #expect(tokens.contains(record["event_token"] as? String ?? ""), "\(line)")
        #expect(isInteger(record["created_at_unix"]))
        #expect(["idfa", "gps_adid", "idfv", "android_id", "web_uuid"].contains { record[$0] is String }, "no device id: \(line)")
        for key in ["callback_params", "partner_params"] {
            guard let params = record[key] else { continue }
            #expect((params as? [String: Any])?.values.allSatisfy { $0 is String } == true, "\(key) not string→string: \(line)")
        }
        if let revenue = record["revenue"] {
            #expect(((revenue as? NSNumber)?.doubleValue ?? 0) >= 0.001)
            #expect((record["currency"] as? String)?.count == 3)
        }
    }

    /// Mixpanel's `/engage` (`group: false`) or `/groups` update: the token, who, one
    /// operation; at most 2000 properties, names and strings at most 255 bytes.
    static func checkMixpanelProfile(_ record: Record, line: String, group: Bool) {
        #expect(!(record["$token"] as? String ?? "").isEmpty, "$token: \(line)")
        let who: Set<String> = group ? ["$group_key", "$group_id"] : ["$distinct_id"]
        for key in who {
            let id = record[key] as? String ?? ""
            #expect(!id.isEmpty && !mixpanelPlaceholders.contains(id.lowercased()), "\(key): \(line)")
        }
        let operations = Set(record.keys).subtracting(who).subtracting(["$token", "$ip"])
        #expect(operations.count == 1 && operations.isSubset(of: group ? ["$set"] : ["$set", "$set_once", "$union"]), "\(line)")
        guard let operation = operations.first, let properties = record[operation] as? [String: Any] else {
            Issue.record("no operation object: \(line)")
            return
        }
        #expect(!properties.isEmpty && properties.count <= 2000)
        #expect(properties.keys.allSatisfy { $0.utf8.count <= 255 })
        for text in strings(in: properties) { #expect(text.utf8.count <= 255, "a \(text.utf8.count)-byte string") }
    }

    /// Amplitude's `/groupidentify` identification: type, value, properties; strings at most 1024 characters.
    static func checkAmplitudeGroup(_ record: Record, line: String) -> Int {
        #expect(Set(record.keys) == ["group_type", "group_value", "group_properties"], "\(line)")
        #expect(!(record["group_type"] as? String ?? "").isEmpty && !(record["group_value"] as? String ?? "").isEmpty)
        for text in strings(in: record) { #expect(text.unicodeScalars.count <= 1024) }
        let properties = record["group_properties"] as? [String: Any] ?? [:]
        #expect(!properties.isEmpty && properties.count <= 1024)
        return properties.count
    }

    /// Amplitude's `/usermap` mapping: two user ids Amplitude keeps.
    static func checkAmplitudeUserMapping(_ record: Record, line: String, minIDLength: Int = 5) {
        #expect(Set(record.keys) == ["user_id", "global_user_id"], "\(line)")
        for key in ["user_id", "global_user_id"] {
            let id = record[key] as? String ?? ""
            #expect(id.unicodeScalars.count >= minIDLength && !amplitudeRejectedIDs.contains(id.lowercased()), "\(key): \(line)")
        }
        #expect(record["user_id"] as? String != record["global_user_id"] as? String)
    }

    static func checkSegment(_ record: Record, line: String) {
        #expect(["track", "screen", "page", "identify", "group", "alias"].contains(record["type"] as? String ?? ""), "\(line)")
        #expect((record["messageId"] as? String ?? "").count <= 100)
        #expect(line.utf8.count <= 32 * 1024)
        #expect(record["anonymousId"] is String || record["userId"] is String)
    }
}
