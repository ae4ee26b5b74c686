/// What one destination took, wrote and refused (`"destinations"` in `--stats`).
public struct DestinationCounts: Sendable {
    public var name: String
    public var type: String
    /// Events that reached this destination.
    public var events = 0
    /// Records written (a timed event may become two).
    public var records = 0
    /// Events this destination refused, by reason.
    public var refused: [String: Int] = [:]
    /// Events routed here that the destination does not take at all (`unsupported_type`), by reason.
    public var notTaken: [String: Int] = [:]
    /// What the adapter changed to fit the provider, by kind.
    public var changes: [(name: String, value: Int)] = []
    /// Files completed and renamed.
    public var files = 0
    /// Records that did not reach a finished file (a write, fsync or rename
    /// failed, or the run stopped before the file was finished).
    public var notDelivered = 0
    /// Whether the records went to stdout (`--stdout`, `path: "-"`) instead of files.
    public var toStdout = false
    /// Record bytes handed to the files (or stdout) so far, and their gzip size.
    public var uncompressedBytes = 0
    public var compressedBytes = 0
    /// Its side outputs (profiles, groups, user mappings), in its type's order: the
    /// records above are its events' file set's, these the others'.
    public var outputs: [OutputCounts] = []
}

/// One side output of a destination (`mixpanel.profiles`): its records, files and bytes.
public struct OutputCounts: Sendable {
    /// The kind: `profiles`, `groups`, `user_mappings`.
    public var name: String
    public var records = 0
    public var files = 0
    public var uncompressedBytes = 0
    public var compressedBytes = 0
    /// Records that did not reach a finished file.
    public var notDelivered = 0

    public init(name: String) { self.name = name }
}
