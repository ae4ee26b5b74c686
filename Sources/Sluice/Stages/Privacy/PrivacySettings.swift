import Crypto
import SluiceJSON

/// The `privacy:` stage's settings, resolved from the pipeline file.
///
/// ```yaml
/// stages:
///   - privacy:
///       consent: {field: context.consent.analytics, categories: context.consent.categoryPreferences, unlisted: deny}
///       drop: [context.device.advertisingId, "properties.*_password"]
///       allow: null
///       ip: {fields: [context.ip], v4_keep_bits: 24, v6_keep_bits: 48}
///       pseudonymize: {fields: [userId, traits.email], key_env: SLUICE_HMAC_KEY}
///       redact: {detectors: [email, phone, card, ip, iban, url_email], paths: ["**"], keys: true}
///       patterns: {order_ref: "ORD-[0-9]{8}"}
/// ```
///
/// `privacy: {}` is already safe: consent, IP truncation and every detector
/// are on; only pseudonymization, which needs a key, is off.
public struct PrivacySettings: Sendable {
    /// `consent` (default on; `false` turns it off).
    public struct Consent: Sendable {
        /// `field` (default `context.consent.analytics`): `false` there (or `"false"`, `0`)
        /// means the person opted out: the event goes nowhere, dropped `consent`.
        public var field: JSONPath? = JSONPath("context.consent.analytics")
        /// `categories` (default `context.consent.categoryPreferences`): an object of
        /// category → boolean (Segment's consent object). A destination whose
        /// `consent_category` is not `true` there does not get the event.
        public var categories: JSONPath? = JSONPath("context.consent.categoryPreferences")
        /// `unlisted` (default `deny`, Segment's rule): what a category missing from
        /// an event's preferences means. Events without the object are not filtered.
        public var unlistedAllowed = false
    }

    /// `ip` (default on; `false` turns it off).
    public struct IPTruncation: Sendable {
        /// `fields` (default `[context.ip]`): where an IP address is truncated rather than redacted.
        public var fields = [FieldPattern("context.ip")!]
        /// `v4_keep_bits` (default 24, 0-32): the leading bits of an IPv4 address kept; the rest are zeroed.
        public var v4KeepBits = 24
        /// `v6_keep_bits` (default 48, 0-128): the same for IPv6 (the Google Analytics convention).
        public var v6KeepBits = 48
    }

    /// `pseudonymize` (default off: it needs a key).
    ///
    /// `@unchecked Sendable`: a value whose fields are all Sendable but `key`, a
    /// `SymmetricKey`: an immutable value (a `let` of copy-on-write bytes, with
    /// no API that writes them) that swift-crypto 3.12 does not mark `Sendable`.
    public struct Pseudonymization: @unchecked Sendable {
        /// `fields`: values replaced by the lowercase hex of their HMAC-SHA-256.
        public var fields: [FieldPattern] = []
        /// The key, from `key_env` (default `SLUICE_HMAC_KEY`) or `key_file`; never from the file's text.
        public var key: SymmetricKey
        /// Where the key came from, for messages: `env SLUICE_HMAC_KEY` or `file /etc/…`.
        public var keySource: String
        /// `normalize_emails` (default true): an email is trimmed and lowercased
        /// before hashing, so `A@x.com ` and `a@x.com` get the same pseudonym.
        public var normalizeEmails = true
    }

    /// `redact` (default on, every detector; `false` turns it off).
    public struct Redaction: Sendable {
        /// `detectors` (default all): `email`, `url_email`, `phone`, `card`, `ip`, `iban`.
        public var detectors = Set(PIIDetector.allCases)
        /// `paths` (default `["**"]`: everywhere): where detection looks. A field
        /// named here is searched with everything below it.
        public var paths = [FieldPattern("**")!]
        /// `exempt` (default `PrivacySettings.defaultExempt`): fields (with everything below
        /// them) that only the email detectors search: ids, timestamps, version strings.
        public var exempt = PrivacySettings.defaultExempt
        /// `keys` (default true): object keys are searched too (a key that is an email becomes `[email]`).
        public var keys = true
        /// `tokens` (default `[email]`, `[phone]`, `[card]`, `[ip]`, `[iban]`): what a match becomes, by detector.
        public var tokens: [PIIDetector: String] = [:]

        public func token(_ detector: PIIDetector) -> String { tokens[detector] ?? detector.defaultToken }
    }

    /// One entry of `patterns`: `name: "regex"` or `name: {match: "regex", token: "[x]"}`.
    public struct Pattern: Sendable {
        public var name: String
        public var source: String
        /// Default `[name]`.
        public var token: String
        var program: PatternProgram
    }

    public var consent: Consent? = Consent()
    /// `drop` (default none): fields removed, with `*`/`**` wildcards.
    public var drop: [FieldPattern] = []
    /// `allow` (default `null`: off): when a list, each object it names the top of
    /// (`properties`, `traits`) keeps only the listed paths; other objects are untouched.
    public var allow: [FieldPattern]?
    public var ip: IPTruncation? = IPTruncation()
    public var pseudonymize: Pseudonymization?
    public var redact: Redaction? = Redaction()
    /// `patterns` (default none): custom detectors, applied where `redact.paths` says, after the built-in ones.
    public var patterns: [Pattern] = []

    public init() {}

    /// Structural fields no detector should touch: identifiers and times that
    /// other stages and providers need as they are, and version strings that
    /// can read as IPv4 addresses (`1.2.3.4`).
    public static let defaultExempt: [FieldPattern] = [
        "type", "messageId", "anonymousId", "timestamp", "originalTimestamp", "sentAt", "receivedAt",
        "context.app.version", "context.app.build", "context.os.version", "context.library.version",
        "context.session.id",
    ].map { FieldPattern($0)! }
}
