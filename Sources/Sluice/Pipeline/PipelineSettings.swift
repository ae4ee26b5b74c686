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
    /// Whether the pipeline file gave `reorder_buffer` (`sluice serve` has a smaller default).
    public var reorderBufferGiven = false
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
