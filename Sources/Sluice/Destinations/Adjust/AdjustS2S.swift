import Foundation
import SluiceJSON

/// Adjust's server-to-server events, as https://dev.adjust.com/en/api/s2s-api/events documents them:
///
/// - `POST https://s2s.adjust.com/event`, the parameters as
///   `application/x-www-form-urlencoded` (case-sensitive names): each member of
///   a line `sluice run` wrote (`s2s=1`, `app_token`, `event_token`, the device
///   id, `created_at_unix`, …), `callback_params` and `partner_params` as
///   their JSON text.
/// - Auth: `Authorization: Bearer S2S_TOKEN` (the app's S2S security token).
/// - One request per line: the API takes one event a request.
/// - 200 `{"status":"OK"}`. 400 (a malformed or refused event), 404 (device not
///   found), 413, 451 (the device opted out) refuse that event: it goes to the
///   send-rejects with Adjust's `error`. 401 and 403: the token is refused.
/// - Dedup: none by id; Adjust refuses an event whose time is earlier than one
///   it already has for the same device and event token, so a re-sent event is
///   refused (400), not counted twice.
struct AdjustS2S: ProviderAPI {
    let maxRecords = 1
    let maxBytes = 64 * 1024
    let authorization: String

    static func make(settings: SendSettings, secret: String) -> Result<AdjustS2S, SendFailure> {
        .success(AdjustS2S(authorization: "Bearer " + secret))
    }

    func url(endpoint: String?) -> String { endpoint ?? "https://s2s.adjust.com/event" }

    func request(records: ArraySlice<UInt8>, count: Int, gzipped: [UInt8]?) -> (headers: [(String, String)], body: [UInt8]) {
        var line = Array(records)
        if line.last == 0x0A { line.removeLast() }
        var form: [(name: String, value: [UInt8])] = []
        if let document = try? JSONDocument.parse(line), document.kind(0) == .object {
            for (key, value) in document.members(of: 0) {
                let name = document.string(key) ?? ""
                let text = document.kind(value) == .string
                    ? Array((document.string(value) ?? "").utf8)
                    : Array(document.rawBytes(value))
                form.append((name, text))
            }
        }
        return ([("Authorization", authorization), ("Content-Type", "application/x-www-form-urlencoded")],
                FormEncoding.body(form))
    }

    func refusedRecords(in body: [UInt8], count: Int) -> [(index: Int, reason: String)]? {
        guard let document = try? JSONDocument.parse(body), document.kind(0) == .object,
              let error = document.member("error", of: 0).flatMap({ document.string($0) }) else { return nil }
        return (0..<count).map { ($0, error) }
    }

    var refusingStatuses: Set<Int> { [404, 451] }
}

extension AdjustDestination {
    /// `sluice send`: each line to the S2S `/event` endpoint.
    static let delivery = ProviderDelivery { settings, secret, _ in AdjustS2S.make(settings: settings, secret: secret).map { $0 } }
}
