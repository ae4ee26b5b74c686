/// Where a destination's records go.
public enum OutputTarget: Sendable, Equatable {
    /// Gzip files under `--out`, named by the template.
    case files(PathTemplate)
    /// Plain NDJSON on stdout (`path: "-"` or `--stdout NAME`).
    case stdout
}

/// `input:` settings.
public struct InputSettings: Sendable {
    /// `max_line_bytes` (default 1MiB, at most 1GiB): longer lines are rejected
    /// `line_too_long`. A line up to this size is held whole, and the parser's
    /// index keeps 32-bit offsets, hence the ceiling.
    public var maxLineBytes = 1 << 20
    public static let maxLineBytesLimit = 1 << 30
    /// `reorder_buffer` (default 256MiB): how much memory the lines held to merge
    /// several inputs in event time may take; beyond it the oldest is let out early.
    public var reorderBufferBytes = 256 << 20
}

/// One entry of `destinations:`, resolved.
public struct DestinationSettings {
    public var name: String
    /// `type`: the provider format.
    public var type: DestinationType
    /// `events` (default `["*"]`): names and globs, later entries win.
    public var events: [String]
    /// `path` (default `{dest}/{date}/{dest}-{hour}-{seq}.ndjson.gz`), or `-` for stdout.
    public var target: OutputTarget
    /// Where `path:` is written in the file (where the destination is, for the default path).
    public var pathLocation: (line: Int, column: Int) = (1, 1)
    /// `gzip_level` (default 6).
    public var gzipLevel: Int
    /// `rotate: {max_bytes, max_events, max_age}`.
    public var rotation: RotationPolicy
    /// `rename` (default none): event name → the name this destination gets, before its name rules.
    public var rename: [[UInt8]: String] = [:]
    /// `consent_category` (default: the type's, see `DestinationType.defaultConsentCategory`;
    /// `null` for none): the consent category the destination is mapped to. The `privacy`
    /// stage withholds an event from it when the event's `categoryPreferences` deny it.
    public var consentCategory: String?
    /// The configured adapter.
    public var destination: any Destination
    /// Its type's side outputs (`outputs:`), in the type's order.
    public var sideOutputs: [SideOutputSettings] = []
    /// `send:`: how `sluice send` delivers its files; nil without one.
    public var send: SendSettings?
}

/// `rejects:` settings.
public struct RejectsSettings: Sendable {
    /// `path` (default `rejects/{date}/rejects-{seq}.ndjson.gz`).
    public var template: PathTemplate
    /// Where `path:` is written in the file (`rejects:`, or the file's start, for the default path).
    public var pathLocation: (line: Int, column: Int) = (1, 1)
    public var gzipLevel = 6
    public var rotation = RotationPolicy()
    /// `raw: keep` (default `scrub`): rejected lines are written as they came
    /// even when the pipeline has a `privacy` stage, whose rules otherwise
    /// scrub them (and their details) first.
    public var keepRaw = false
}
