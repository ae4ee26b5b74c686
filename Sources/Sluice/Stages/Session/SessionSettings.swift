/// The `session:` stage's settings, resolved from the pipeline file.
///
/// ```yaml
/// stages:
///   - session: {inactivity: 30m, max_length: 24h, max_devices: 1000000, lateness: 5m,
///               sign_out_events: [signed_out], attach: {settings: true, traits: [plan]}}
/// ```
public struct SessionSettings: Sendable {
    /// `inactivity` (default `30m`): a gap in a device's event time longer than
    /// this starts a new session (the Mixpanel, GA4 and web-SDK default).
    public var inactivity: Duration = .seconds(30 * 60)
    /// `max_length` (default `24h`): a session older than this is ended at the
    /// device's next event (PostHog's rule).
    public var maxLength: Duration = .seconds(24 * 3600)
    /// `max_devices` (default 1,000,000): devices tracked at once; beyond it the
    /// least recently active one is forgotten (`evicted`), and its next event
    /// starts a fresh session.
    public var maxDevices = 1_000_000
    /// `lateness` (default `5m`): how late an event may arrive and still be placed
    /// in the session that was current at its time; the watermark is the latest
    /// event time seen minus this.
    public var lateness: Duration = .seconds(5 * 60)
    /// `sign_out_events` (default `[signed_out]`): track event names that mark a
    /// sign-out; after one, a message without `userId` starts a new session.
    public var signOutEvents = ["signed_out"]
    /// `attach.settings` (default `true`): copy the device's settings (from its
    /// latest `session` message) into `context.session.settings`.
    public var attachSettings = true
    /// `attach.traits` (default none): trait names (from `identify` messages) copied
    /// into `context.session.traits`. An allowlist, because traits often hold PII.
    public var attachTraits: [String] = []

    public init() {}

    static let keys = ["inactivity", "max_length", "max_devices", "lateness", "sign_out_events", "attach"]
    static let attachKeys = ["settings", "traits"]
    static let maxDevicesLimit = 100_000_000

    /// Reads `session: {...}` (an empty value means every default), reporting every error.
    static func read(_ node: ConfigValue, _ reader: inout ConfigReader) -> SessionSettings? {
        var settings = SessionSettings()
        if let scalar = node.scalar, ["", "~", "null"].contains(scalar.text) { return settings }
        guard let entries = reader.mapping(node, known: keys, what: "the session stage") else { return nil }
        let errorsBefore = reader.diagnostics.count
        for entry in entries {
            let what = "session.\(entry.key)"
            switch entry.key {
            case "inactivity":
                if let value = positiveDuration(entry.value, what: what, &reader) { settings.inactivity = value }
            case "max_length":
                if let value = positiveDuration(entry.value, what: what, &reader) { settings.maxLength = value }
            case "lateness":
                if let value = reader.duration(entry.value, what: what) { settings.lateness = value }
            case "max_devices":
                if let value = reader.integer(entry.value, what: what, range: 1...maxDevicesLimit) { settings.maxDevices = value }
            case "sign_out_events":
                if let list = reader.strings(entry.value, what: what) {
                    for (name, item) in zip(list, entry.value.sequence ?? []) where name.isEmpty {
                        reader.error(item, "\(what) holds an empty event name")
                    }
                    settings.signOutEvents = list
                }
            case "attach":
                readAttach(entry.value, &settings, &reader)
            default:
                break
            }
        }
        return reader.diagnostics.count == errorsBefore ? settings : nil
    }

    private static func readAttach(_ node: ConfigValue, _ settings: inout SessionSettings, _ reader: inout ConfigReader) {
        guard let entries = reader.mapping(node, known: attachKeys, what: "session.attach") else { return }
        for entry in entries {
            switch entry.key {
            case "settings":
                if let value = reader.boolean(entry.value, what: "session.attach.settings") { settings.attachSettings = value }
            case "traits":
                if let list = reader.strings(entry.value, what: "session.attach.traits") {
                    var seen: Set<String> = []
                    for (name, item) in zip(list, entry.value.sequence ?? []) {
                        if name.isEmpty { reader.error(item, "session.attach.traits holds an empty trait name") }
                        if !seen.insert(name).inserted { reader.error(item, "session.attach.traits names '\(name)' twice") }
                    }
                    settings.attachTraits = list
                }
            default:
                break
            }
        }
    }

    /// Whole microseconds of `duration` (event time is kept in µs).
    static func microseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
    }

    private static func positiveDuration(_ node: ConfigValue, what: String, _ reader: inout ConfigReader) -> Duration? {
        guard let value = reader.duration(node, what: what) else { return nil }
        if value <= .zero {
            reader.error(node, "\(what) must be longer than 0")
            return nil
        }
        return value
    }
}
