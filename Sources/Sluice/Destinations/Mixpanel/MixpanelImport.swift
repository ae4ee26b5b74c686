import Foundation
import SluiceJSON

/// Mixpanel's Import API, as https://developer.mixpanel.com/reference/import-events
/// (mixpanel/docs reference/import-events.mdx) documents it:
///
/// - `POST https://api.mixpanel.com/import`; EU residency `api-eu.mixpanel.com`,
///   India `api-in.mixpanel.com` ("Data residency": the region's host).
/// - Body: `application/x-ndjson` (one event per line), `Content-Encoding: gzip`
///   allowed; "up to 2000 events and 2MB uncompressed" per request (newer pages
///   say 10 MB; 2 MB is safe under both and is what `sluice run` writes per file).
/// - `strict=1`: "validate the batch and return errors for records that fail";
///   a 400 is then a partial success with `failed_records: [{index, $insert_id,
///   field, message}]`, the rest imported (`num_records_imported`); "do not retry".
/// - Auth: a service account as HTTP basic `username:secret` with `project_id`
///   in the query, or the project secret as the basic-auth username with an
///   empty password.
/// - 429 and 5xx: back off and retry ("exponential backoff starting at 2s, up to 60s").
/// - Dedup: (event, time, distinct_id, `$insert_id`), so a batch sent twice is imported once.
struct MixpanelImport: ProviderAPI {
    let maxRecords = 2000
    let maxBytes = 2_000_000
    let defaultURL: String
    let authorization: String
    /// A service account's `project_id` query parameter, or empty.
    let projectQuery: String

    /// Per region, the host of the ingestion endpoints (`/import`, `/engage`, `/groups`).
    static let hosts = ["us": "api.mixpanel.com", "eu": "api-eu.mixpanel.com", "in": "api-in.mixpanel.com"]

    static func make(settings: SendSettings, secret: String) -> Result<MixpanelImport, SendFailure> {
        let host = hosts[settings.region] ?? hosts["us"]!
        let isServiceAccount = secret.contains(":")
        var projectQuery = ""
        if isServiceAccount {
            guard let project = settings.options["project_id"], !project.isEmpty, project.allSatisfy(\.isNumber) else {
                return .failure(.configuration("the credentials are a service account (user:secret), which needs the project's "
                    + "numeric project_id in the send: block"))
            }
            projectQuery = "&project_id=" + project
        }
        let basic = Data((isServiceAccount ? secret : secret + ":").utf8).base64EncodedString()
        return .success(MixpanelImport(defaultURL: "https://\(host)/import", authorization: "Basic " + basic,
                                       projectQuery: projectQuery))
    }

    func url(endpoint: String?) -> String {
        let base = endpoint ?? defaultURL
        return base + (base.contains("?") ? "&" : "?") + "strict=1" + projectQuery
    }

    func request(records: ArraySlice<UInt8>, count: Int, gzipped: [UInt8]?) -> (headers: [(String, String)], body: [UInt8]) {
        // Level 1: a request body is sent once, speed counts more than size.
        let body = gzipped ?? GzipDeflater.member(of: records, level: 1)
        return ([("Authorization", authorization), ("Content-Type", "application/x-ndjson"),
                 ("Content-Encoding", "gzip"), ("Accept", "application/json")], body)
    }

    /// `{"code":400,"error":"some data points in the request failed validation",
    /// "failed_records":[{"index":0,"$insert_id":"…","field":"properties.time","message":"…"}],
    /// "num_records_imported":1999,"status":"Bad Request"}`.
    func refusedRecords(in body: [UInt8], count: Int) -> [(index: Int, reason: String)]? {
        guard let document = try? JSONDocument.parse(body), document.kind(0) == .object,
              let failed = document.member("failed_records"), document.kind(failed) == .array else { return nil }
        var refused: [(index: Int, reason: String)] = []
        for node in document.elements(of: failed) {
            guard document.kind(node) == .object, let indexNode = document.member("index", of: node),
                  let index = Int(String(decoding: document.rawBytes(indexNode), as: UTF8.self)),
                  (0..<count).contains(index) else { continue }
            let field = document.member("field", of: node).flatMap { document.string($0) } ?? ""
            let message = document.member("message", of: node).flatMap { document.string($0) } ?? "refused"
            refused.append((index, field.isEmpty ? message : field + ": " + message))
        }
        return refused.isEmpty ? nil : refused
    }
}

extension MixpanelDestination {
    /// `sluice send`: events to `/import`, the side outputs' profile updates to `/engage` and `/groups`.
    static let delivery = ProviderDelivery(sideOutputs: [
        "profiles": { settings, _ in MixpanelProfileUpdates.make(settings: settings, path: "/engage") },
        "groups": { settings, _ in MixpanelProfileUpdates.make(settings: settings, path: "/groups") },
    ]) { settings, secret, _ in
        MixpanelImport.make(settings: settings, secret: secret).map { $0 }
    }
}
