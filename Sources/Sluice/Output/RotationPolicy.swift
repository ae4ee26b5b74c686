/// When a destination's current file is closed and the next one started.
///
/// Stdout and memory have no files, but keep the same limits: a full "file"
/// is handed on early there, so their writes come at the same records as a
/// file output's would.
public struct RotationPolicy: Sendable, Equatable {
    /// `max_events`: records per file (default 1,000,000).
    public var maxEvents: Int = 1_000_000
    /// `max_bytes`: uncompressed record bytes per file (default 64MiB), so a
    /// file maps onto a provider's uncompressed request limit.
    public var maxBytes: Int = 64 << 20
    /// `max_age`: wall-clock time a file stays open (default 5m).
    public var maxAge: Duration? = .seconds(300)

    public init() {}
}
