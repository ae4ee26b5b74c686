/// A destination's `send:` block: how `sluice send` delivers its finished
/// files to the provider's API. Checked by `validate` like the rest of the
/// file; the credentials themselves are never in it, only where to find them.
///
/// ```yaml
/// mixpanel:
///   type: mixpanel
///   send: {credentials_env: MIXPANEL_SECRET, region: eu, concurrency: 4, max_requests_per_second: 10, after_send: move}
/// ```
public struct SendSettings: Sendable, Equatable {
    /// Where the credentials are: an environment variable's name, or a file's path.
    public enum Credentials: Sendable, Equatable {
        case environment(String)
        case file(String)
    }

    /// What becomes of a file once every record of it was acknowledged (or refused).
    public enum AfterSend: String, Sendable, Equatable, CaseIterable {
        /// Left where it is; the ledger remembers it was sent.
        case keep
        /// Moved to `sent/` under the output root, at the same relative path (the default).
        case move
        /// Removed.
        case delete
    }

    public var credentials: Credentials
    /// `region` (default: the provider's first, `us`): which of the provider's regional endpoints.
    public var region: String
    /// `concurrency` (default 2, 1 to 64): requests in flight at once for this destination.
    public var concurrency = 2
    /// `max_requests_per_second` (default: no limit): requests started per second, at most.
    public var maxRequestsPerSecond: Double?
    /// `after_send` (default `move`).
    public var afterSend = AfterSend.move
    /// The provider's own keys (`project_id` for a Mixpanel service account), as written.
    public var options: [String: String] = [:]

    public init(credentials: Credentials, region: String) {
        self.credentials = credentials
        self.region = region
    }

    /// The keys every `send:` block takes.
    public static let commonKeys = ["credentials_env", "credentials_file", "region", "concurrency",
                                    "max_requests_per_second", "after_send"]
    /// Keys that would hold a secret: refused with a message that says where a secret goes (the value is never shown).
    static let secretKeys = ["api_key", "api_secret", "secret", "project_secret", "token", "write_key", "password",
                             "credentials", "key", "s2s_token", "service_account"]
}

/// What `sluice send` can do for a destination type: the keys its `send:` takes
/// beyond the common ones, and its regions (the first is the default).
public struct SendSupport: Sendable {
    public let keys: [String]
    public let regions: [String]
    /// The destination's own keys its requests repeat (Amplitude's `min_id_length`), copied into `options` when set.
    public let destinationKeys: [String]
    /// Keys of `keys` of which exactly one must be given (GA4: `measurement_id` or `firebase_app_id`).
    public let oneOf: [String]

    public init(keys: [String] = [], regions: [String] = ["us"], destinationKeys: [String] = [], oneOf: [String] = []) {
        self.keys = keys
        self.regions = regions
        self.destinationKeys = destinationKeys
        self.oneOf = oneOf
    }
}
