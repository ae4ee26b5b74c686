import Foundation
import SluiceJSON

/// Amplitude's form-encoded endpoints, where the side outputs
/// `amplitude.groups` (Group Identify API) and `amplitude.user_mappings`
/// (User Mapping API) go:
///
/// - [group-identify] amplitude.com/docs/apis/analytics/group-identify:
///   `POST https://api2.amplitude.com/groupidentify` (EU `api.eu.amplitude.com`),
///   `Content-Type: application/x-www-form-urlencoded`, `api_key=KEY` and
///   `identification=[{"group_type","group_value","group_properties"},…]`;
///   "The maximum number of group identifies per request is 1024. The maximum
///   number of group properties per request is 1024. The maximum byte
///   size/per request is 1 mb." (`sluice run` keeps each file within all three.)
/// - [usermap] amplitude.com/docs/apis/analytics/user-mapping:
///   `POST https://api.amplitude.com/usermap` (EU `api.eu.amplitude.com`),
///   `api_key=KEY` and `mapping=[{"user_id","global_user_id"},…]`;
///   "Max of 2000 requests/events in a batch. Max size of 1MB."
/// - The 1 MB is the body's, as sent: records are counted form-encoded (a
///   JSON quote takes 3 bytes as `%22`), so a file of 998,976 bytes may take
///   two requests.
/// - The API key is in the body, as for HTTP V2, and a wrong one is a 400
///   ("Invalid API key"): the credentials are refused (exit 77). Any other 400
///   names no record: the batch goes to the send-rejects with its message.
/// - Dedup: none, and none is needed: a group identification or a mapping
///   applied twice sets the same properties or the same mapping.
struct AmplitudeFormAPI: ProviderAPI {
    let maxRecords: Int
    let maxBytes: Int
    let defaultURL: String
    /// `identification` or `mapping`.
    let parameter: String
    let key: String

    static func groupIdentify(settings: SendSettings, secret: String) -> AmplitudeFormAPI {
        let host = settings.region == "eu" ? "api.eu.amplitude.com" : "api2.amplitude.com"
        return AmplitudeFormAPI(maxRecords: 1024, maxBytes: 1_000_000 - 1024, defaultURL: "https://\(host)/groupidentify",
                                parameter: "identification", key: secret)
    }

    static func userMap(settings: SendSettings, secret: String) -> AmplitudeFormAPI {
        let host = settings.region == "eu" ? "api.eu.amplitude.com" : "api.amplitude.com"
        return AmplitudeFormAPI(maxRecords: 2000, maxBytes: 1_000_000 - 1024, defaultURL: "https://\(host)/usermap",
                                parameter: "mapping", key: secret)
    }

    func url(endpoint: String?) -> String { endpoint ?? defaultURL }

    var formEncoded: Bool { true }

    func request(records: ArraySlice<UInt8>, count: Int, gzipped: [UInt8]?) -> (headers: [(String, String)], body: [UInt8]) {
        ([("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "*/*")],
         FormEncoding.body([("api_key", Array(key.utf8)), (parameter, JSONEnvelope.wrap(records, prefix: "[", suffix: "]"))]))
    }

    func refusesCredentials(status: Int, body: [UInt8]) -> Bool { AmplitudeHTTP.isInvalidKey(status: status, body: body) }

    func refusedRecords(in body: [UInt8], count: Int) -> [(index: Int, reason: String)]? { nil }
}
