import SluiceJSON

/// The `timed:` stage's settings, resolved from the pipeline file.
///
/// ```yaml
/// stages:
///   - timed: {marker: timed, correlate: [timerId], expire_after: 30m, lateness: 5m,
///             max_open: 1000000, max_open_bytes: 512MiB, on_abandoned: emit, on_orphan_stop: pass}
/// ```
public struct TimedSettings: Sendable {
    /// What happens to a start that is never stopped.
    public enum OnAbandoned: String, Sendable, CaseIterable {
        /// Emit the start, marked `timed: "abandoned"` with an `abandon_reason`.
        case emit
        /// Count it as dropped (`abandoned_timer`); only its properties are kept while it is open.
        case drop
    }

    /// What happens to a stop whose start was never seen.
    public enum OnOrphanStop: String, Sendable, CaseIterable {
        /// Emit the stop, marked `timed: "orphan_stop"`, with no duration.
        case pass
        /// Reject it with the reason `orphan_stop`.
        case reject
    }

    /// `marker` (default `timed`): the field whose value `start` or `stop` makes a
    /// track message half of a timed event; a dotted path from the message root.
    public var marker = JSONPath("timed")
    /// `correlate` (default `[timerId]`): dotted paths from the message root that,
    /// with the identity and the event name, tell concurrent timers apart. An
    /// absent field is part of the key too (it matches only another absent one).
    public var correlate = [JSONPath("timerId")]
    /// `expire_after` (default `30m`): a start with no stop within this much event
    /// time is abandoned (`expired`), and a stop later than this never pairs with it.
    public var expireAfter: Duration = .seconds(30 * 60)
    /// `lateness` (default `5m`): how late (in event time) a message may arrive;
    /// the watermark is the latest event time seen minus this.
    public var lateness: Duration = .seconds(5 * 60)
    /// `max_open` (default 1,000,000): open timers plus stops waiting for a late
    /// start; beyond it the least recently touched one is let go (`evicted`).
    public var maxOpen = 1_000_000
    /// `max_open_bytes` (default 512MiB): the memory the open timers and held stops
    /// may take, each counted as its kept bytes plus `OpenTimerTable.entryOverhead`;
    /// beyond it the least recently touched ones are let go (`evicted`), as beyond `max_open`.
    public var maxOpenBytes = 512 << 20
    /// `on_abandoned` (default `emit`).
    public var onAbandoned = OnAbandoned.emit
    /// `on_orphan_stop` (default `pass`).
    public var onOrphanStop = OnOrphanStop.pass

    public init() {}

    static let keys = ["marker", "correlate", "expire_after", "lateness", "max_open", "max_open_bytes", "on_abandoned", "on_orphan_stop"]
    static let maxOpenLimit = 100_000_000

    /// Reads `timed: {...}` (an empty value means every default), reporting every error.
    static func read(_ node: ConfigValue, _ reader: inout ConfigReader) -> TimedSettings? {
        var settings = TimedSettings()
        if let scalar = node.scalar, ["", "~", "null"].contains(scalar.text) { return settings }
        guard let entries = reader.mapping(node, known: keys, what: "the timed stage") else { return nil }
        let errorsBefore = reader.diagnostics.count
        for entry in entries {
            let what = "timed.\(entry.key)"
            switch entry.key {
            case "marker":
                if let text = reader.string(entry.value, what: what), let path = readPath(text, entry.value, what: what, &reader) {
                    settings.marker = path
                }
            case "correlate":
                if let list = reader.strings(entry.value, what: what) {
                    var paths: [JSONPath] = []
                    for (text, item) in zip(list, entry.value.sequence ?? []) {
                        if let path = readPath(text, item, what: "each entry of \(what)", &reader) { paths.append(path) }
                    }
                    settings.correlate = paths
                }
            case "expire_after":
                if let value = reader.duration(entry.value, what: what) {
                    if value <= .zero {
                        reader.error(entry.value, "\(what) must be longer than 0")
                    } else {
                        settings.expireAfter = value
                    }
                }
            case "lateness":
                if let value = reader.duration(entry.value, what: what) { settings.lateness = value }
            case "max_open":
                if let value = reader.integer(entry.value, what: what, range: 1...maxOpenLimit) { settings.maxOpen = value }
            case "max_open_bytes":
                if let value = reader.size(entry.value, what: what) { settings.maxOpenBytes = value }
            case "on_abandoned":
                if let value = readChoice(entry.value, what: what, OnAbandoned.self, &reader) { settings.onAbandoned = value }
            case "on_orphan_stop":
                if let value = readChoice(entry.value, what: what, OnOrphanStop.self, &reader) { settings.onOrphanStop = value }
            default:
                break
            }
        }
        return reader.diagnostics.count == errorsBefore ? settings : nil
    }

    private static func readPath(_ text: String, _ node: ConfigValue, what: String, _ reader: inout ConfigReader) -> JSONPath? {
        let path = JSONPath(text)
        guard !text.isEmpty, !path.components.contains(where: \.isEmpty) else {
            reader.error(node, "\(what) must be a field name or a dotted path such as context.device.id, not '\(text)'")
            return nil
        }
        return path
    }

    private static func readChoice<Choice: RawRepresentable & CaseIterable>(
        _ node: ConfigValue, what: String, _ type: Choice.Type, _ reader: inout ConfigReader
    ) -> Choice? where Choice.RawValue == String {
        guard let text = reader.string(node, what: what) else { return nil }
        if let value = Choice(rawValue: text) { return value }
        let names = Choice.allCases.map(\.rawValue)
        reader.error(node, "\(what) must be one of \(names.joined(separator: ", ")), not '\(text)'"
            + ConfigReader.suggestion(for: text, among: names))
        return nil
    }
}
