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

extension PipelineConfiguration {
    /// Reads `destinations.NAME.send`; nil (with errors reported) when it is wrong.
    func readSend(_ node: ConfigValue, name: String, type: DestinationType, destinationOptions: [String: ConfigValue],
                  _ reader: inout ConfigReader) -> SendSettings? {
        let what = "destinations.\(name).send"
        guard let support = type.send else {
            let supported = DestinationRegistry.types.filter { $0.send != nil }.map(\.name)
            reader.error(node, "\(what): sluice send does not deliver to \(type.name); it sends to "
                + supported.joined(separator: ", ") + " (leave `send:` out and upload these files yourself, see docs/sending.md)")
            return nil
        }
        guard let mapping = node.mapping else {
            reader.error(node, "\(what) must be a mapping with credentials_env or credentials_file")
            return nil
        }
        var secretFound = false
        for (keyNode, _) in mapping {
            if let key = keyNode.scalar?.text, SendSettings.secretKeys.contains(key) {
                // Never repeat the value: it may be the secret itself.
                reader.error(keyNode, "\(what).\(key): a secret is never written in the pipeline file (the value is not shown); "
                    + "put it in an environment variable named by credentials_env, or in a file named by credentials_file")
                secretFound = true
            }
        }
        let known = SendSettings.commonKeys + support.keys + (secretFound ? SendSettings.secretKeys : [])
        guard let entries = reader.mapping(node, known: known, what: what) else { return nil }
        let errorsBefore = reader.diagnostics.count
        var credentials: SendSettings.Credentials?
        var settings = SendSettings(credentials: .environment(""), region: support.regions[0])
        for entry in entries {
            switch entry.key {
            case "credentials_env":
                guard let variable = reader.string(entry.value, what: "\(what).credentials_env") else { continue }
                if SecretSource.looksLikeKey(variable) {
                    reader.error(entry.value, "\(what).credentials_env looks like a secret, not the name of an environment variable "
                        + "(such as MIXPANEL_SECRET); the value is not shown. Keep secrets out of the pipeline file")
                    secretFound = true
                } else if credentials != nil {
                    reader.error(entry.value, "\(what) takes credentials_env or credentials_file, not both")
                } else {
                    credentials = .environment(variable)
                }
            case "credentials_file":
                guard let path = reader.string(entry.value, what: "\(what).credentials_file") else { continue }
                if credentials != nil {
                    reader.error(entry.value, "\(what) takes credentials_env or credentials_file, not both")
                } else {
                    credentials = .file(path.hasPrefix("/") ? path : reader.fileDirectory + "/" + path)
                }
            case "region":
                guard let region = reader.string(entry.value, what: "\(what).region") else { continue }
                if support.regions.contains(region) {
                    settings.region = region
                } else {
                    reader.error(entry.value, "\(what).region must be one of \(support.regions.joined(separator: ", ")), not '\(region)'")
                }
            case "concurrency":
                if let value = reader.integer(entry.value, what: "\(what).concurrency", range: 1...64) { settings.concurrency = value }
            case "max_requests_per_second":
                if let text = entry.value.scalar?.text, let value = Double(text), value > 0, value.isFinite {
                    settings.maxRequestsPerSecond = value
                } else {
                    reader.error(entry.value, "\(what).max_requests_per_second must be a number above 0")
                }
            case "after_send":
                guard let text = reader.string(entry.value, what: "\(what).after_send") else { continue }
                if let value = SendSettings.AfterSend(rawValue: text) {
                    settings.afterSend = value
                } else {
                    reader.error(entry.value, "\(what).after_send must be keep, move or delete, not '\(text)'")
                }
            default:
                if SendSettings.secretKeys.contains(entry.key) { continue }
                if let text = reader.string(entry.value, what: "\(what).\(entry.key)") { settings.options[entry.key] = text }
            }
        }
        for key in support.destinationKeys {
            if let text = destinationOptions[key]?.scalar?.text { settings.options[key] = text }
        }
        if !support.oneOf.isEmpty && support.oneOf.filter({ settings.options[$0] != nil }).count != 1 {
            reader.error(node, "\(what) needs one of \(support.oneOf.joined(separator: ", ")) for \(type.name)")
        }
        guard let credentials else {
            if !secretFound { reader.error(node, "\(what) needs credentials_env (a variable's name) or credentials_file (a path)") }
            return nil
        }
        settings.credentials = credentials
        return reader.diagnostics.count == errorsBefore && !secretFound ? settings : nil
    }
}
