import Foundation
import SluiceJSON

/// Mixpanel's profile endpoints, where the side outputs `mixpanel.profiles`
/// (`/engage`) and `mixpanel.groups` (`/groups`) go, as the Ingestion API's
/// reference documents them (mixpanel/docs openapi/src/ingestion.openapi.yaml;
/// docs.mixpanel.com/reference/profile-batch-update, /reference/group-batch-update,
/// /reference/user-profile-limits):
///
/// - `POST https://api.mixpanel.com/engage` (`/groups`), the region's host as
///   for `/import` (`api-eu`, `api-in`). Body: "a JSON list of objects as the
///   data parameter of an application/x-www-form-urlencoded POST"
///   (group-batch-update), with `verbose=1` and `ip=0`, as Mixpanel's own
///   library sends it (mixpanel-python `Consumer._write_request`); each update
///   `{"$token","$distinct_id","$set"|…}` (groups: `"$group_key","$group_id"`)
///   as `sluice run` wrote it, one a line.
/// - No gzip: "This API does not support gzip encoding" (profile-batch-update).
/// - Auth: the project token inside each update; no credentials are sent.
/// - Limits: "2000" updates per request and "a maximum of 1 MB" each (user and
///   group profile limits); `sluice run` writes files of 200 updates and 2 MB,
///   and a request holds at most 2 MB form-encoded (a file may take two).
/// - `verbose=1`: "a JSON Object ... `status`, with the value 1 on success and 0
///   on failure, and `error`"; the endpoint "will return a 200 OK even if there
///   are data validation issues", so a 200 with `status: 0` refuses the batch
///   (it names no update: each goes to the send-rejects with the `error`).
///   A 400 (what `verbose=2` answers instead) does the same.
/// - `ip=0`: "Mixpanel will not perform geolocation parsing using the IP
///   address of the request" (a profile gets `$ip` from the message, when it had one).
/// - Dedup: none, and none is needed: `$set`, `$set_once` and `$union` give
///   the same profile when an update is applied twice.
struct MixpanelProfileUpdates: ProviderAPI {
    let maxRecords = 2000
    let maxBytes = 2_000_000
    let defaultURL: String

    /// `path`: `/engage` or `/groups`.
    static func make(settings: SendSettings, path: String) -> MixpanelProfileUpdates {
        let host = MixpanelImport.hosts[settings.region] ?? MixpanelImport.hosts["us"]!
        return MixpanelProfileUpdates(defaultURL: "https://\(host)\(path)")
    }

    func url(endpoint: String?) -> String { endpoint ?? defaultURL }

    var formEncoded: Bool { true }

    func request(records: ArraySlice<UInt8>, count: Int, gzipped: [UInt8]?) -> (headers: [(String, String)], body: [UInt8]) {
        ([("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")],
         FormEncoding.body([("data", JSONEnvelope.wrap(records, prefix: "[", suffix: "]")), ("verbose", [UInt8(ascii: "1")]),
                            ("ip", [UInt8(ascii: "0")])]))
    }

    /// `{"status":0,"error":"…"}` names no update: the whole batch, with the error.
    func refusedRecords(in body: [UInt8], count: Int) -> [(index: Int, reason: String)]? { nil }

    func refusedInAnswer(_ body: [UInt8], count: Int) -> [(index: Int, reason: String)] {
        guard let error = MixpanelProfileUpdates.failure(body) else { return [] }
        return (0..<count).map { ($0, error) }
    }

    /// The `error` of a verbose answer whose `status` is not 1 (or of the plain answer `0`, or of an
    /// answer that says neither: the updates are kept in the send-rejects rather than taken as applied); nil for a success.
    static func failure(_ body: [UInt8]) -> String? {
        let text = String(decoding: body.prefix(64), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text == "1" { return nil }
        if text == "0" { return "Mixpanel answered 0 (the update failed)" }
        guard let document = try? JSONDocument.parse(body), document.kind(0) == .object,
              let status = document.member("status", of: 0) else {
            return "Mixpanel's answer says neither success nor failure: " + ProviderAnswer.summary(body)
        }
        guard String(decoding: document.rawBytes(status), as: UTF8.self) != "1" else { return nil }
        return document.member("error", of: 0).flatMap { document.string($0) } ?? "Mixpanel answered status 0"
    }

    /// An error about the project token (`$token, invalid`) refuses every batch alike: sending stops
    /// (exit 77) instead of putting every update in the send-rejects. The token is the pipeline's `token:`.
    func refusesCredentials(status: Int, body: [UInt8]) -> Bool {
        guard status == 200 || status == 400 || status == 401 || status == 403,
              let error = MixpanelProfileUpdates.failure(body) else { return false }
        return error.lowercased().contains("token")
    }
}
