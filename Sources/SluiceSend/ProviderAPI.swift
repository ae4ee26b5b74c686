import Sluice

/// One provider's import API as `sluice send` uses it: where requests go,
/// how many records and bytes one takes, how a batch becomes a request, and
/// what its refusals say. Each provider's file cites its documentation beside
/// each rule.
protocol ProviderAPI: Sendable {
    /// Records per request, at most.
    var maxRecords: Int { get }
    /// Uncompressed bytes of records per request, at most, as the body holds them.
    var maxBytes: Int { get }
    /// Whether the records go into the body form-encoded (`%XX` for most punctuation), so a record
    /// takes more bytes there than its length (`Batches` counts them with `FormEncoding.encodedCount`).
    var formEncoded: Bool { get }
    /// The URL of a request (a `--endpoint` replaces the default one, query included).
    func url(endpoint: String?) -> String
    /// Headers with the credentials, and the body, for `records` (whole lines with their newlines).
    /// `gzipped` is the same records already as one gzip file (a finished file sent whole), when at hand.
    func request(records: ArraySlice<UInt8>, count: Int, gzipped: [UInt8]?) -> (headers: [(String, String)], body: [UInt8])
    /// From a 400's body, the records it refused (by index in the batch) with the provider's reason;
    /// nil when the body names none (then every record of the batch is refused with `summary`).
    func refusedRecords(in body: [UInt8], count: Int) -> [(index: Int, reason: String)]?
    /// Whether a 400 that names records imported the rest (Mixpanel) or nothing (Amplitude: the rest is sent again).
    var acceptsPartially: Bool { get }
    /// Whether an answer other than 401/403 says the credentials are wrong (Amplitude's 400 "Invalid API key").
    func refusesCredentials(status: Int, body: [UInt8]) -> Bool
    /// Statuses besides 400 that refuse the records of the request, not the request (Adjust's 404 "Device not found").
    var refusingStatuses: Set<Int> { get }
    /// Records a 2xx answer refuses all the same (GA4's validation endpoint's `validationMessages`).
    func refusedInAnswer(_ body: [UInt8], count: Int) -> [(index: Int, reason: String)]
}

extension ProviderAPI {
    var formEncoded: Bool { false }
    var acceptsPartially: Bool { true }
    func refusesCredentials(status: Int, body: [UInt8]) -> Bool { false }
    var refusingStatuses: Set<Int> { [] }
    func refusedInAnswer(_ body: [UInt8], count: Int) -> [(index: Int, reason: String)] { [] }
}

/// Builds the provider's API from a destination's settings and its credentials.
enum ProviderAPIs {
    /// Every provider `sluice send` delivers to; `DestinationType.send` says the same for `validate`.
    /// The providers `--validate` checks against a validation endpoint.
    static let validating: Set<String> = ["ga4"]

    static func make(type: String, settings: SendSettings, secret: String, validate: Bool = false)
        -> Result<any ProviderAPI, SendFailure> {
        switch type {
        case "ga4": return GA4MeasurementProtocol.make(settings: settings, secret: secret, validate: validate).map { $0 }
        case "adjust": return AdjustS2S.make(settings: settings, secret: secret).map { $0 }
        case "mixpanel": return MixpanelImport.make(settings: settings, secret: secret).map { $0 }
        case "amplitude": return AmplitudeHTTP.make(settings: settings, secret: secret).map { $0 }
        case "segment": return SegmentBatch.make(settings: settings, secret: secret).map { $0 }
        default: return .failure(.configuration("sluice send does not deliver to \(type)"))
        }
    }

    /// The API a side output (`SideOutputKind`) of a destination of `type` goes to, or nil when there is none.
    static func make(type: String, sideOutput kind: String, settings: SendSettings, secret: String) -> (any ProviderAPI)? {
        switch (type, kind) {
        case ("mixpanel", "profiles"): return MixpanelProfileUpdates.make(settings: settings, path: "/engage")
        case ("mixpanel", "groups"): return MixpanelProfileUpdates.make(settings: settings, path: "/groups")
        case ("amplitude", "groups"): return AmplitudeFormAPI.groupIdentify(settings: settings, secret: secret)
        case ("amplitude", "user_mappings"): return AmplitudeFormAPI.userMap(settings: settings, secret: secret)
        default: return nil
        }
    }
}
