import Foundation
import SluiceJSON

/// GA4's Measurement Protocol, as
/// https://developers.google.com/analytics/devguides/collection/protocol/ga4/sending-events documents it:
///
/// - `POST https://www.google-analytics.com/mp/collect?api_secret=SECRET&measurement_id=G-…`
///   (a web stream) or `&firebase_app_id=…` (an app stream); EU collection:
///   `region1.google-analytics.com` ("If you want your data to be collected in the EU, use
///   https://region1.google-analytics.com/mp/collect", the protocol's reference page).
///   The API secret is the credential, in the query.
/// - One request per line: each line `sluice run` writes is a whole request body
///   (at most 25 events, under 130 kB); there is no batch endpoint.
/// - "The Measurement Protocol always returns a 2xx status code if the HTTP
///   request was received": invalid events are dropped without an error.
///   `--validate` posts to `/debug/mp/collect` instead, which answers
///   `validationMessages: [{fieldPath, description, validationCode}]`; those go
///   to the send-rejects, and nothing is marked sent (it is a check, not a send).
/// - Dedup: none. A request sent twice is two events.
struct GA4MeasurementProtocol: ProviderAPI {
    let maxRecords = 1
    let maxBytes = 130_000
    let defaultURL: String
    let query: String
    /// Posting to the validation endpoint (`--validate`).
    let validate: Bool

    static func make(settings: SendSettings, secret: String, validate: Bool) -> Result<GA4MeasurementProtocol, SendFailure> {
        let host = settings.region == "eu" ? "region1.google-analytics.com" : "www.google-analytics.com"
        let stream: String
        if let id = settings.options["measurement_id"] {
            stream = "measurement_id=" + percentEncoded(id)
        } else if let id = settings.options["firebase_app_id"] {
            stream = "firebase_app_id=" + percentEncoded(id)
        } else {
            return .failure(.configuration("send: needs measurement_id or firebase_app_id"))
        }
        return .success(GA4MeasurementProtocol(defaultURL: "https://\(host)" + (validate ? "/debug/mp/collect" : "/mp/collect"),
                                               query: "api_secret=" + percentEncoded(secret) + "&" + stream, validate: validate))
    }

    static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }

    func url(endpoint: String?) -> String {
        let base = endpoint ?? defaultURL
        return base + (base.contains("?") ? "&" : "?") + query
    }

    /// With `--validate`, only ever the validation endpoint: an `--endpoint`
    /// ending in `/mp/collect` becomes its `/debug/mp/collect`; one ending in
    /// neither is refused, so a check can never ingest.
    func checkedURL(endpoint: String?) -> Result<String, SendFailure> {
        guard validate, let endpoint else { return .success(url(endpoint: endpoint)) }
        guard let debug = GA4MeasurementProtocol.validationEndpoint(for: endpoint) else {
            return .failure(.configuration("--validate posts only to GA4's validation endpoint; the --endpoint must end in "
                + "/debug/mp/collect (or /mp/collect, which becomes it), not \(endpoint)"))
        }
        return .success(url(endpoint: debug))
    }

    /// `…/debug/mp/collect` as it is, `…/mp/collect` as `…/debug/mp/collect` (query kept); nil for any other path.
    static func validationEndpoint(for endpoint: String) -> String? {
        let query = endpoint.firstIndex(of: "?")
        let path = query.map { String(endpoint[..<$0]) } ?? endpoint
        let rest = query.map { String(endpoint[$0...]) } ?? ""
        var trimmed = path
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        if trimmed.hasSuffix("/debug/mp/collect") { return trimmed + rest }
        if trimmed.hasSuffix("/mp/collect") { return String(trimmed.dropLast("/mp/collect".count)) + "/debug/mp/collect" + rest }
        return nil
    }

    func request(records: ArraySlice<UInt8>, count: Int, gzipped: [UInt8]?) -> (headers: [(String, String)], body: [UInt8]) {
        var body = Array(records)
        if body.last == 0x0A { body.removeLast() }
        return ([("Content-Type", "application/json")], body)
    }

    func refusedRecords(in body: [UInt8], count: Int) -> [(index: Int, reason: String)]? { nil }

    /// [mp-send] "Events can be backdated up to 72 hours": a request whose `timestamp_micros`
    /// (its event's time) is older than that when it goes would be dropped without an error.
    static let maxAgeMs: Int64 = 72 * 3_600_000

    func outdatedRecords(_ records: ArraySlice<UInt8>, count: Int, nowMs: Int64) -> [(index: Int, reason: String)] {
        var outdated: [(index: Int, reason: String)] = []
        var index = 0
        var start = records.startIndex
        while start < records.endIndex {
            let end = records[start...].firstIndex(of: 0x0A) ?? records.endIndex
            if let micros = GA4MeasurementProtocol.timestampMicros(Array(records[start..<end])),
               micros / 1000 < nowMs - GA4MeasurementProtocol.maxAgeMs {
                let time = EventTime(microseconds: micros).iso8601
                outdated.append((index, "time_out_of_range: \(time) is more than 72 hours before the request, which GA4 does not take"))
            }
            index += 1
            start = end < records.endIndex ? records.index(after: end) : end
        }
        return outdated
    }

    /// A request body's `timestamp_micros`, if it has one.
    static func timestampMicros(_ line: [UInt8]) -> Int64? {
        guard let document = try? JSONDocument.parse(line), document.kind(0) == .object,
              let node = document.member("timestamp_micros", of: 0), document.kind(node) == .number else { return nil }
        return Int64(String(decoding: document.rawBytes(node), as: UTF8.self))
    }

    func refusedInAnswer(_ body: [UInt8], count: Int) -> [(index: Int, reason: String)] {
        guard validate, let messages = GA4MeasurementProtocol.validationMessages(body) else { return [] }
        return (0..<count).map { ($0, messages) }
    }

    /// `/debug/mp/collect`'s `validationMessages`, as one reason; nil when it has none.
    static func validationMessages(_ body: [UInt8]) -> String? {
        guard let document = try? JSONDocument.parse(body), document.kind(0) == .object,
              let messages = document.member("validationMessages", of: 0), document.kind(messages) == .array else { return nil }
        let texts = document.elements(of: messages).map { node -> String in
            let field = document.member("fieldPath", of: node).flatMap { document.string($0) } ?? ""
            let text = document.member("description", of: node).flatMap { document.string($0) } ?? ""
            let code = document.member("validationCode", of: node).flatMap { document.string($0) } ?? ""
            return (field.isEmpty ? "" : field + ": ") + text + (code.isEmpty ? "" : " (\(code))")
        }
        return texts.isEmpty ? nil : texts.joined(separator: "; ")
    }
}

extension GA4Destination {
    /// `sluice send`: each line to `/mp/collect`; `--validate` posts them to `/debug/mp/collect` instead.
    static let delivery = ProviderDelivery(validates: true) { settings, secret, validate in
        GA4MeasurementProtocol.make(settings: settings, secret: secret, validate: validate).map { $0 }
    }
}
