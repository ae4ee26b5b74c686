import Foundation
import NIOHTTP1

/// The endpoints of the side outputs (see `ProviderEmulator`'s documentation):
/// Mixpanel `/engage` and `/groups`, Amplitude `/groupidentify` and `/usermap`.
extension ProviderEmulator {
    func mixpanelProfiles(_ head: HTTPRequestHead, _ body: [UInt8], _ number: Int,
                          _ reply: Reply) -> Answer {
        let params = formParameters(body)
        guard head.method == .POST, head.uri == provider.path, params["verbose"] == "1" else {
            return reply(404, "{\"error\":\"POST \(provider.path) with verbose=1 expected, got \(head.method) \(head.uri)\",\"status\":0}", [])
        }
        guard head.headers.first(name: "Content-Encoding") == nil,
              head.headers.first(name: "Content-Type") == "application/x-www-form-urlencoded",
              let updates = (try? JSONSerialization.jsonObject(with: Data((params["data"] ?? "").utf8))) as? [[String: Any]],
              !updates.isEmpty else {
            return reply(200, "{\"error\":\"data, missing or invalid (a JSON list, form-encoded, not gzip)\",\"status\":0}", [])
        }
        if updates.count > state.maxRecords || body.count > state.maxBytes {
            return reply(413, "{\"error\":\"request exceeds \(state.maxRecords) updates or \(state.maxBytes) bytes\",\"status\":0}", [])
        }
        let operations: Set<String> = ["$set", "$set_once", "$union", "$add", "$append", "$remove", "$unset", "$delete"]
        for update in updates {
            let ids = provider == .mixpanelGroups ? ["$group_key", "$group_id"] : ["$distinct_id"]
            guard update["$token"] as? String == state.secret else {
                return reply(200, "{\"error\":\"$token, invalid\",\"status\":0}", [])
            }
            for id in ids where (update[id] as? String ?? "").isEmpty {
                return reply(200, "{\"error\":\"Engage API error: \(id), missing or empty\",\"status\":0}", [])
            }
            guard update.keys.filter(operations.contains).count == 1 else {
                return reply(200, "{\"error\":\"exactly one operation expected\",\"status\":0}", [])
            }
            if (update["$set"] as? [String: Any])?["emulator_refuse"] != nil {
                return reply(200, "{\"error\":\"$set: emulator_refuse is refused\",\"status\":0}", [])
            }
        }
        for update in updates { state.imported.append(Imported(line: canonical(update), insertID: "", request: number)) }
        return reply(200, "{\"error\":null,\"status\":1}", [])
    }

    func amplitudeForm(_ head: HTTPRequestHead, _ body: [UInt8], _ number: Int,
                       _ reply: Reply) -> Answer {
        guard head.method == .POST, head.uri == provider.path,
              head.headers.first(name: "Content-Type") == "application/x-www-form-urlencoded" else {
            return reply(404, "{\"error\":\"form POST \(provider.path) expected\"}", [])
        }
        let params = formParameters(body)
        guard params["api_key"] == state.secret else {
            return reply(400, "invalid_api_key", [])  // as the older endpoints on api.amplitude.com answer
        }
        let parameter = provider == .amplitudeGroups ? "identification" : "mapping"
        guard let records = (try? JSONSerialization.jsonObject(with: Data((params[parameter] ?? "").utf8))) as? [[String: Any]] else {
            return reply(400, "{\"code\":400,\"error\":\"\(parameter): a JSON list expected\"}", [])
        }
        let properties = records.reduce(0) { $0 + (($1["group_properties"] as? [String: Any])?.count ?? 0) }
        if records.count > state.maxRecords || body.count > state.maxBytes || properties > 1024 {
            return reply(413, "{\"code\":413,\"error\":\"Payload too large\"}", [])
        }
        let required = provider == .amplitudeGroups ? ["group_type", "group_value"] : ["user_id", "global_user_id"]
        for record in records {
            for field in required where (record[field] as? String ?? "").isEmpty {
                return reply(400, "{\"code\":400,\"error\":\"missing \(field)\"}", [])
            }
        }
        for record in records { state.imported.append(Imported(line: canonical(record), insertID: "", request: number)) }
        return reply(200, "success", [])
    }
}
