/// What reading one input took (`"inputs"` in `--stats`).
public struct InputCounts: Sendable {
    public var path: String
    public var lines: Int64 = 0
    public var bytes = 0
    /// Set when the input stopped early (corrupt gzip, read error).
    public var error: String?
}

/// What the reorder buffer of a merge of several inputs did (`"reorder"` in `--stats`).
public struct ReorderCounts: Sendable {
    public var inputs: Int
    /// How far behind its input's latest event time a line may be and still be put in order.
    public var windowMilliseconds: Int64
    /// How much the held lines may take before the oldest is let out early.
    public var bufferBytes: Int
    /// Lines held right now (part of `in_flight`; 0 at the end).
    public var held = 0
    public var heldHighWater = 0
    public var heldBytesHighWater = 0
    /// Lines let out before their turn because the held lines took more than `bufferBytes`.
    public var letOutFull = 0
    /// Events let out behind a later one (later than the window in their input, or let out early by a full buffer).
    public var outOfOrder = 0
}

/// What putting the inputs in order took (`"order"` in `--stats`).
public struct OrderCounts: Sendable {
    public enum Mode: String, Sendable {
        /// Every event in `EventOrder` (an external sort).
        case exact
        /// Several inputs merged through a reorder window (`reorder` says more).
        case window
        /// As read: one stream, or `--concat`.
        case asRead = "as_read"
    }
    public var mode: Mode
    /// How exact order was reached: merged through a window as wide as the inputs' disorder, or sorted.
    public enum Method: String, Sendable { case window, sort }
    public var method: Method = .sort
    /// The window's width (the inputs' largest disorder), with `method` window.
    public var windowMilliseconds: Int64 = 0
    /// Lines the first read recorded to choose the method.
    public var surveyedLines = 0
    public var inputs: Int
    /// What the held events may take before they are sorted and spilled to disk (`input.reorder_buffer`).
    public var budgetBytes: Int
    /// Events of the inputs' in-order starts: counted on the first read, read again when they go out.
    public var inOrderLines = 0
    /// Events sorted in memory at the end (never spilled).
    public var sortedInMemory = 0
    public var spilledRuns = 0
    public var spilledLines = 0
    /// The spilled runs' size on disk (gzip).
    public var spilledBytes = 0
    /// Times the runs on disk were merged into one before the last merge (more than 64 of them).
    public var runMerges = 0
    public var heldBytesHighWater = 0
    /// Events held right now (part of `in_flight`; 0 at the end).
    public var held = 0
    /// Events an earlier run left pending in the `--state` file, ordered with this run's.
    public var carriedIn = 0
    /// Events within the stages' lateness of the latest event time, left pending in the `--state` file.
    public var pending = 0

    public init(mode: Mode, inputs: Int, budgetBytes: Int) {
        self.mode = mode
        self.inputs = inputs
        self.budgetBytes = budgetBytes
    }
}
