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
    /// `gzip_members` (default `GzipMembers.byDefault`: `file` for a type
    /// `sluice send` delivers, when its files are of request size; `blocks` otherwise).
    public var gzipMembers: GzipMembers = .blocks
}

/// Where a destination's records go.
public enum OutputTarget: Sendable, Equatable {
    /// Gzip files under `--out`, named by the template.
    case files(PathTemplate)
    /// Plain NDJSON on stdout (`path: "-"` or `--stdout NAME`).
    case stdout
}

/// One side output of a destination (`SideOutputKind`), resolved from the
/// destination's `outputs:`:
///
/// ```yaml
/// mixpanel:
///   type: mixpanel
///   outputs:
///     profiles: {path: "mixpanel/profiles/{date}/profiles-{shard}-{seq}.ndjson.gz", rotate: {max_events: 200}}
/// ```
///
/// `path` (default the kind's `{dest}/KIND/{date}/{dest}-KIND-{hour}-{seq}.ndjson.gz`, with
/// `{shard}-` before `{hour}` when the destination's path has `{shard}`),
/// `rotate` (default the kind's, its endpoint's request limits) and
/// `gzip_level` (default the destination's). Side outputs always write files,
/// also when the destination's events go to stdout.
public struct SideOutputSettings: Sendable {
    public var kind: SideOutputKind
    public var template: PathTemplate
    /// Where `path:` is written in the file (the destination's place for the default path).
    public var pathLocation: (line: Int, column: Int)
    public var gzipLevel: Int
    public var rotation: RotationPolicy
    /// `gzip_members` (default the destination's, if it says, else as for the destination's events).
    public var gzipMembers: GzipMembers = .blocks
}
