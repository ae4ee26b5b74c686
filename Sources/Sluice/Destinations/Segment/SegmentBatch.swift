import Foundation
import SluiceJSON

/// Segment's HTTP Tracking API batch call, as
/// https://segment.com/docs/connections/sources/catalog/libraries/server/http-api/ documents it:
///
/// - `POST https://api.segment.io/v1/batch`; EU workspaces `https://events.eu1.segmentapis.com/v1/batch`
///   (Regional Segment: the server libraries' "Dublin — `events.eu1.segmentapis.com/v1/`",
///   https://segment.com/docs/connections/sources/catalog/libraries/server/python/#regional-configuration).
/// - Auth: "Authenticate to the Tracking API by sending your project's Write
///   Key along with a request": HTTP basic, the write key as the user name, no password.
/// - Body: `{"batch":[message, …]}`, `Content-Type: application/json`; "a
///   maximum of 500KB per batch request and 32KB per call", at most 2500
///   messages (400 beyond). `sluice run` writes files of 2500 messages and
///   498,976 bytes, so a file and its envelope are one request.
/// - "Segment returns a 200 response for all API requests except errors caused
///   by large payloads and JSON errors (which return 400 responses)": a 400
///   names no record, so the batch is refused whole with Segment's message.
/// - Dedup: by `messageId`, over at least the last 24 hours ("guides/duplicate-data").
struct SegmentBatch: ProviderAPI {
    let maxRecords = 2500
    let maxBytes = 500_000 - 1024
    let defaultURL: String
    let authorization: String

    static func make(settings: SendSettings, secret: String) -> Result<SegmentBatch, SendFailure> {
        let host = settings.region == "eu" ? "events.eu1.segmentapis.com" : "api.segment.io"
        return .success(SegmentBatch(defaultURL: "https://\(host)/v1/batch",
                                     authorization: "Basic " + Data((secret + ":").utf8).base64EncodedString()))
    }

    func url(endpoint: String?) -> String { endpoint ?? defaultURL }

    func request(records: ArraySlice<UInt8>, count: Int, gzipped: [UInt8]?) -> (headers: [(String, String)], body: [UInt8]) {
        ([("Authorization", authorization), ("Content-Type", "application/json")],
         JSONEnvelope.wrap(records, prefix: "{\"batch\":[", suffix: "]}"))
    }

    func refusedRecords(in body: [UInt8], count: Int) -> [(index: Int, reason: String)]? { nil }
}

extension SegmentDestination {
    /// `sluice send`: the lines in `{"batch":[…]}` to `/v1/batch`.
    static let delivery = ProviderDelivery { settings, secret, _ in SegmentBatch.make(settings: settings, secret: secret).map { $0 } }
}
