import Foundation

/// One provider's import API as `sluice send` uses it: where requests go,
/// how many records and bytes one takes, how a batch becomes a request, and
/// what its refusals say. Each provider's file, in its folder beside its
/// encoder, cites its documentation beside each rule; the HTTP transport,
/// retries and the ledger are `sluice send`'s own (SluiceSend).
public protocol ProviderAPI: Sendable {
    /// Records per request, at most.
    var maxRecords: Int { get }
    /// Uncompressed bytes of records per request, at most, as the body holds them.
    var maxBytes: Int { get }
    /// Whether the records go into the body form-encoded (`%XX` for most punctuation), so a record
    /// takes more bytes there than its length (batches count them with `FormEncoding.encodedCount`).
    var formEncoded: Bool { get }
    /// The URL of a request (a `--endpoint` replaces the default one, query included).
    func url(endpoint: String?) -> String
    /// The same, or why `endpoint` cannot be used (`--validate` given an ingesting endpoint).
    func checkedURL(endpoint: String?) -> Result<String, SendFailure>
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
    /// What a 429 says of each record of the batch (`records`, whole lines), when it names them
    /// (Amplitude): nil when it names none, and the whole batch is tried again.
    func throttledRecords(in body: [UInt8], records: ArraySlice<UInt8>, count: Int) -> ThrottledRecords?
    /// Records the provider would drop if they were sent at `nowMs` (ms since the epoch), by
    /// index in the batch, with the reason (GA4: dated more than 72 hours before the request):
    /// they go to the send-rejects instead of the request.
    func outdatedRecords(_ records: ArraySlice<UInt8>, count: Int, nowMs: Int64) -> [(index: Int, reason: String)]
}

/// A 429 that names records: those refused for good (over a daily quota), those
/// to send again after a wait (throttled), by index in the batch; the others
/// were not taken either and are sent again at once.
public struct ThrottledRecords: Sendable, Equatable {
    public var refused: [Int: String]
    public var throttled: Set<Int>

    public init(refused: [Int: String] = [:], throttled: Set<Int> = []) {
        self.refused = refused
        self.throttled = throttled
    }
}

extension ProviderAPI {
    public var formEncoded: Bool { false }
    public func checkedURL(endpoint: String?) -> Result<String, SendFailure> { .success(url(endpoint: endpoint)) }
    public var acceptsPartially: Bool { true }
    public func refusesCredentials(status: Int, body: [UInt8]) -> Bool { false }
    public var refusingStatuses: Set<Int> { [] }
    public func refusedInAnswer(_ body: [UInt8], count: Int) -> [(index: Int, reason: String)] { [] }
    public func throttledRecords(in body: [UInt8], records: ArraySlice<UInt8>, count: Int) -> ThrottledRecords? { nil }
    public func outdatedRecords(_ records: ArraySlice<UInt8>, count: Int, nowMs: Int64) -> [(index: Int, reason: String)] { [] }
}

/// How `sluice send` delivers a destination type's files: the API its events
/// go to, built from the `send:` block and the credentials; whether
/// `--validate` checks them against a validation endpoint; and the APIs its
/// side outputs go to. The registry line (`DestinationType.delivery`) gives it.
public struct ProviderDelivery: Sendable {
    /// Builds the events' API from the destination's `send:` settings and its secret; `validate`: `--validate`.
    public typealias EventsAPI = @Sendable (_ settings: SendSettings, _ secret: String, _ validate: Bool)
        -> Result<any ProviderAPI, SendFailure>
    /// Builds a side output's API from the destination's `send:` settings and its secret.
    public typealias SideOutputAPI = @Sendable (_ settings: SendSettings, _ secret: String) -> any ProviderAPI

    public let events: EventsAPI
    /// Whether `--validate` posts its events to a validation endpoint (the others are skipped then).
    public let validates: Bool
    /// Per side output kind (`SideOutputKind.name`), the API its files go to; a kind not here is not sent.
    public let sideOutputs: [String: SideOutputAPI]

    public init(validates: Bool = false, sideOutputs: [String: SideOutputAPI] = [:], events: @escaping EventsAPI) {
        self.events = events
        self.validates = validates
        self.sideOutputs = sideOutputs
    }
}

/// Why sending stopped, or a destination could not be sent to.
public enum SendFailure: Error, Equatable, CustomStringConvertible {
    /// The provider refused the credentials (401, 403): exit 77.
    case unauthorized(String)
    /// Retried past `--max-retry-time`, or another `sluice send` holds the ledger: exit 75.
    case tryAgain(String)
    /// The provider answered in a way a retry cannot change (an unexpected 4xx): exit 69.
    case unavailable(String)
    /// A file could not be read, or a ledger or rejects file written: exit 74.
    case io(String)
    /// A finished file that is not whole gzip: exit 65.
    case data(String)
    /// Missing or unusable credentials or `send:` settings: exit 78.
    case configuration(String)

    public var description: String {
        switch self {
        case let .unauthorized(text), let .tryAgain(text), let .unavailable(text), let .io(text), let .data(text),
             let .configuration(text):
            return text
        }
    }
}

/// A provider's answer in a message.
public enum ProviderAnswer {
    /// The start of a response body, one line.
    public static func summary(_ body: [UInt8]) -> String {
        let text = String(decoding: body.prefix(300), as: UTF8.self)
        return text.replacingOccurrences(of: "\n", with: " ") + (body.count > 300 ? "…" : "")
    }
}
