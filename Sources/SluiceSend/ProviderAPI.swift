import Sluice

/// One provider's import API as `sluice send` uses it: where requests go,
/// how many records and bytes one takes, how a batch becomes a request, and
/// what its refusals say. Each provider's file cites its documentation beside
/// each rule.
protocol ProviderAPI: Sendable {
    /// Records per request, at most.
    var maxRecords: Int { get }
    /// Uncompressed bytes of records per request, at most.
    var maxBytes: Int { get }
    /// The URL of a request (a `--endpoint` replaces the default one, query included).
    func url(endpoint: String?) -> String
    /// Headers with the credentials, and the body, for `records` (whole lines with their newlines).
    /// `gzipped` is the same records already as one gzip file (a finished file sent whole), when at hand.
    func request(records: ArraySlice<UInt8>, count: Int, gzipped: [UInt8]?) -> (headers: [(String, String)], body: [UInt8])
    /// From a 400's body, the records it refused (by index in the batch) with the provider's reason;
    /// nil when the body names none (then every record of the batch is refused with `summary`).
    func refusedRecords(in body: [UInt8], count: Int) -> [(index: Int, reason: String)]?
}

/// Builds the provider's API from a destination's settings and its credentials.
enum ProviderAPIs {
    /// Every provider `sluice send` delivers to; `DestinationType.send` says the same for `validate`.
    static func make(type: String, settings: SendSettings, secret: String) -> Result<any ProviderAPI, SendFailure> {
        switch type {
        case "mixpanel": return MixpanelImport.make(settings: settings, secret: secret).map { $0 }
        default: return .failure(.configuration("sluice send does not deliver to \(type)"))
        }
    }
}
