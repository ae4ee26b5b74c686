import Foundation
import SluiceJSON

/// Amplitude's HTTP V2 API (`api: v2`, the default) or Batch Event Upload API
/// (`api: batch`), as https://amplitude.com/docs/apis/analytics/http-v2 and
/// https://amplitude.com/docs/apis/analytics/batch-event-upload document them:
///
/// - `POST https://api2.amplitude.com/2/httpapi` (EU residency:
///   `https://api.eu.amplitude.com/2/httpapi`); Batch: `/batch` on the same hosts.
/// - Body: `{"api_key":KEY,"events":[…],"options":{"min_id_length":N}}`,
///   `Content-Type: application/json`; the API key is the credential (no header).
///   `options` only when the destination's `min_id_length` is not 5, as the
///   records were written with it.
/// - Limits: HTTP V2 "under 1 MB with fewer than 2000 events per request" (413
///   beyond); Batch 20 MB, 2000 events. `sluice run` writes files of 2000 events
///   and 998,976 bytes: with the envelope, one request.
/// - 400 names the events it refused: `events_with_invalid_fields`,
///   `events_with_missing_fields` and `events_with_invalid_id_lengths` (field →
///   indexes), `silenced_events` (indexes). Amplitude ingests none of a batch it
///   answers 400 to: "When a 400 response lists rejected events, remove those
///   events and resend the rest"
///   (https://amplitude.com/docs/apis/analytics/http-api-batching-retries), so
///   those records go to the send-rejects and the rest are sent again.
/// - 429: too many events for a device or user, per second or per day; the
///   request is not ingested. Its body names them: `throttled_events` (indexes
///   over the per-second limit: "pause sending events for that device or user
///   for 30 seconds"), `exceeded_daily_quota_users` / `_devices` (ids over the
///   daily limit). As Amplitude's own SDKs do (amplitude-python's and
///   analytics-node's 429 handling: an event of an over-quota user or device
///   is dropped with "exceeded daily quota", a throttled one retried after a
///   delay, the others retried at once), the over-quota events go to the
///   send-rejects, the rest is sent again at once and the throttled ones after
///   the backoff. A 429 that names none retries the whole batch.
/// - Dedup: `insert_id` on the same `device_id`, within 7 days.
struct AmplitudeHTTP: ProviderAPI {
    let maxRecords = 2000
    let maxBytes: Int
    let defaultURL: String
    let prefix: String
    let suffix: String
    var acceptsPartially: Bool { false }

    /// [v2] a wrong or missing key is a 400 ("Invalid API key", `missing_field: api_key`), not a 401.
    func refusesCredentials(status: Int, body: [UInt8]) -> Bool { AmplitudeHTTP.isInvalidKey(status: status, body: body) }

    /// HTTP V2 says `Invalid API key`; the older form endpoints (`/groupidentify`,
    /// `/usermap`, `api.amplitude.com`) answer a bare `invalid_api_key`.
    static func isInvalidKey(status: Int, body: [UInt8]) -> Bool {
        let text = String(decoding: body.prefix(2048), as: UTF8.self).lowercased()
        return status == 400 && (text.contains("invalid api key") || text.contains("invalid_api_key")
                                 || text.contains("\"missing_field\":\"api_key\""))
    }

    static func make(settings: SendSettings, secret: String) -> Result<AmplitudeHTTP, SendFailure> {
        let host = settings.region == "eu" ? "api.eu.amplitude.com" : "api2.amplitude.com"
        let api = settings.options["api"] ?? "v2"
        guard api == "v2" || api == "batch" else {
            return .failure(.configuration("send: api must be v2 or batch, not '\(api)'"))
        }
        var key: [UInt8] = []
        JSONString.appendQuoted(secret, to: &key)
        var suffix = "]"
        if let minimum = settings.options["min_id_length"], minimum != "5", Int(minimum) != nil {
            suffix += ",\"options\":{\"min_id_length\":\(minimum)}"
        }
        return .success(AmplitudeHTTP(maxBytes: api == "batch" ? 20_000_000 - 1024 : 1_000_000 - 1024,
                                      defaultURL: "https://\(host)" + (api == "batch" ? "/batch" : "/2/httpapi"),
                                      prefix: "{\"api_key\":" + String(decoding: key, as: UTF8.self) + ",\"events\":[",
                                      suffix: suffix + "}"))
    }

    func url(endpoint: String?) -> String { endpoint ?? defaultURL }

    func request(records: ArraySlice<UInt8>, count: Int, gzipped: [UInt8]?) -> (headers: [(String, String)], body: [UInt8]) {
        ([("Content-Type", "application/json"), ("Accept", "*/*")], JSONEnvelope.wrap(records, prefix: prefix, suffix: suffix))
    }

    func throttledRecords(in body: [UInt8], records: ArraySlice<UInt8>, count: Int) -> ThrottledRecords? {
        guard let document = try? JSONDocument.parse(body), document.kind(0) == .object else { return nil }
        func keys(_ name: String) -> Set<String> {
            guard let map = document.member(name, of: 0), document.kind(map) == .object else { return [] }
            return Set(document.members(of: map).compactMap { document.string($0.key) })
        }
        let users = keys("exceeded_daily_quota_users"), devices = keys("exceeded_daily_quota_devices")
        var result = ThrottledRecords()
        if let throttled = document.member("throttled_events", of: 0), document.kind(throttled) == .array {
            for node in document.elements(of: throttled) {
                if let index = Int(String(decoding: document.rawBytes(node), as: UTF8.self)), (0..<count).contains(index) {
                    result.throttled.insert(index)
                }
            }
        }
        if !users.isEmpty || !devices.isEmpty {
            for (index, line) in records.split(separator: 0x0A).prefix(count).enumerated() {
                guard let event = try? JSONDocument.parse(Array(line)), event.kind(0) == .object else { continue }
                if let node = event.member("user_id", of: 0), let user = event.string(node), users.contains(user) {
                    result.refused[index] = "429: exceeded_daily_quota_users (the user is over Amplitude's daily event limit)"
                } else if let node = event.member("device_id", of: 0), let device = event.string(node), devices.contains(device) {
                    result.refused[index] = "429: exceeded_daily_quota_devices (the device is over Amplitude's daily event limit)"
                }
            }
        }
        for index in result.refused.keys { result.throttled.remove(index) }
        return result.refused.isEmpty && result.throttled.isEmpty ? nil : result
    }

    func refusedRecords(in body: [UInt8], count: Int) -> [(index: Int, reason: String)]? {
        guard let document = try? JSONDocument.parse(body), document.kind(0) == .object else { return nil }
        var reasons: [Int: String] = [:]
        func indexes(_ node: Int) -> [Int] {
            document.kind(node) == .array
                ? document.elements(of: node).compactMap { Int(String(decoding: document.rawBytes($0), as: UTF8.self)) }
                    .filter { (0..<count).contains($0) }
                : []
        }
        for (key, what) in [("events_with_invalid_fields", "invalid"), ("events_with_missing_fields", "missing"),
                            ("events_with_invalid_id_lengths", "too short")] {
            guard let map = document.member(key, of: 0), document.kind(map) == .object else { continue }
            for (keyNode, value) in document.members(of: map) {
                let field = document.string(keyNode) ?? "?"
                for index in indexes(value) where reasons[index] == nil { reasons[index] = "\(field): \(what)" }
            }
        }
        if let silenced = document.member("silenced_events", of: 0) {
            for index in indexes(silenced) where reasons[index] == nil { reasons[index] = "silenced device or user" }
        }
        return reasons.isEmpty ? nil : reasons.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}

extension AmplitudeDestination {
    /// `sluice send`: events to HTTP V2 (or Batch), the side outputs to `/groupidentify` and `/usermap`.
    static let delivery = ProviderDelivery(sideOutputs: [
        "groups": { settings, secret in AmplitudeFormAPI.groupIdentify(settings: settings, secret: secret) },
        "user_mappings": { settings, secret in AmplitudeFormAPI.userMap(settings: settings, secret: secret) },
    ]) { settings, secret, _ in
        AmplitudeHTTP.make(settings: settings, secret: secret).map { $0 }
    }
}
