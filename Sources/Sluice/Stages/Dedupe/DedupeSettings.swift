/// The `dedupe:` stage's settings, resolved from the pipeline file.
///
/// ```yaml
/// stages:
///   - dedupe: {max_ids: 1000000, window: 24h, on_collision: rename, ignore_fields: [sentAt, receivedAt]}
/// ```
public struct DedupeSettings: Sendable {
    /// What happens to a message whose id was seen with a different payload.
    public enum OnCollision: String, Sendable, CaseIterable {
        /// Keep it, give it a new deterministic `messageId` (the old one plus
        /// `-` and 16 hex digits of its payload hash) and record the old one in
        /// `context.duplicate_of`, so providers that deduplicate on the id
        /// (Mixpanel `$insert_id`, Amplitude `insert_id`) do not drop it downstream.
        case rename
        /// Keep it unchanged.
        case keep
    }

    /// `max_ids` (default 1,000,000): how many ids are remembered; beyond it the
    /// oldest one is forgotten (`evicted`).
    public var maxIDs = 1_000_000
    /// `window` (default none): an id is remembered for this much event time after
    /// it was first seen (the stream's clock: the latest event time seen), then
    /// forgotten (`expired`).
    public var window: Duration?
    /// `on_collision` (default `rename`).
    public var onCollision = OnCollision.rename
    /// `ignore_fields` (default `[sentAt, receivedAt]`): top-level fields left out
    /// when comparing two messages with the same id (a retry restamps them).
    public var ignoreFields = ["sentAt", "receivedAt"]

    public init() {}

    static let keys = ["max_ids", "window", "on_collision", "ignore_fields"]
    static let maxIDsLimit = 100_000_000

    /// Reads `dedupe: {...}` (an empty value means every default), reporting every error.
    static func read(_ node: ConfigValue, _ reader: inout ConfigReader) -> DedupeSettings? {
        var settings = DedupeSettings()
        if let scalar = node.scalar, ["", "~", "null"].contains(scalar.text) { return settings }
        guard let entries = reader.mapping(node, known: keys, what: "the dedupe stage") else { return nil }
        let errorsBefore = reader.diagnostics.count
        for entry in entries {
            let what = "dedupe.\(entry.key)"
            switch entry.key {
            case "max_ids":
                if let value = reader.integer(entry.value, what: what, range: 1...maxIDsLimit) { settings.maxIDs = value }
            case "window":
                if let value = reader.duration(entry.value, what: what) {
                    if value <= .zero {
                        reader.error(entry.value, "\(what) must be longer than 0 (leave it out for no window)")
                    } else {
                        settings.window = value
                    }
                }
            case "on_collision":
                guard let text = reader.string(entry.value, what: what) else { continue }
                if let value = OnCollision(rawValue: text) {
                    settings.onCollision = value
                } else {
                    let names = OnCollision.allCases.map(\.rawValue)
                    reader.error(entry.value, "\(what) must be one of \(names.joined(separator: ", ")), not '\(text)'"
                        + ConfigReader.suggestion(for: text, among: names))
                }
            case "ignore_fields":
                if let list = reader.strings(entry.value, what: what) {
                    for (name, item) in zip(list, entry.value.sequence ?? []) where name.isEmpty || name == "messageId" {
                        reader.error(item, name.isEmpty ? "\(what) holds an empty field name"
                            : "\(what) cannot hold messageId: it is the key, never part of the comparison")
                    }
                    settings.ignoreFields = list
                }
            default:
                break
            }
        }
        return reader.diagnostics.count == errorsBefore ? settings : nil
    }
}
