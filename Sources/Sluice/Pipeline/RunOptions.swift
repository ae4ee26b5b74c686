/// How a run is set up beyond the pipeline file (the `run` command's options
/// the runner itself needs; see `RunRequest` for the rest).
public struct RunOptions: Sendable {
    /// `--out`: the root that relative output paths are under.
    public var outDirectory = "out"
    /// `--stdout NAME`: that destination writes plain NDJSON to stdout instead of files.
    public var stdoutDestination: String?
    /// `--flush-interval`: the longest finished data waits in a `.part` file before its gzip member is ended.
    public var flushInterval: Duration = .seconds(5)
    /// `--compression-threads`: the threads that deflate every file output's
    /// blocks; nil: one per core the process may use.
    public var compressionThreads: Int?
    /// When set, every destination and the rejects go here instead of files or
    /// stdout, and `outDirectory` is not touched: `sluice test`'s spy.
    public var memoryOutputs: MemoryOutputs?
    /// `--state FILE`: restore the stages' state from it at the start, save it there at the end.
    public var statePath: String?
    /// `--final` (with `--state`): the last run of a series; what the stages hold is let
    /// out at the end (as without `--state`) instead of carried; sessions and ids are still saved.
    public var finalRun = false
    /// `--watermark-end TIME`: the event time every stage treats as the end of
    /// input (the latest of all shards), so timers expire alike in each.
    public var watermarkEnd: EventTime?
    /// `--shard ID` (or `SLUICE_SHARD`): what `{shard}` becomes in paths; nil: not sharded (`all`).
    public var shard: ShardID?
    /// `--staging DIR`: files are written under DIR and moved under `outDirectory`
    /// only when the run succeeds (`StagingArea`); the `--state` file is saved after that.
    public var stagingDirectory: String?

    /// With `stagingDirectory`: `{seq}` also skips the numbers whose names are
    /// taken under `outDirectory`, so a series of staged runs into one `--out`
    /// (`sluice serve`'s epochs) never names a file twice. A redone epoch
    /// finds `--out` as its first attempt did and picks the same names.
    public var seqSkipsNamesUnderOut = false
    /// What the file outputs' buffers may take together (`OutputBudget`); nil:
    /// `OutputBudget.totalBytes`. `sluice serve` gives its epochs less.
    public var outputBufferBytes: Int?

    /// Where relative output paths are written: the staging directory, else `--out`.
    public var writeRoot: String { stagingDirectory ?? outDirectory }
    /// `--reorder-window`: how far behind its input's latest event time a line may be
    /// and still be merged in order; nil: the largest `lateness` of the pipeline's stages (5m without).
    public var reorderWindow: Duration?
    /// `--concat`: several inputs are read one after another, not merged in event time.
    public var concatenateInputs = false
    /// `--order`: exact (every event in event order, an external sort) or window; nil: exact
    /// when every input is a file or directory, else window (`InputOrder.resolve`).
    public var order: InputOrder?
    /// `--tmp DIR`: where exact order spills its sorted runs; nil: under `outDirectory`.
    public var temporaryDirectory: String?

    public init() {}
}

/// A run that stopped on an error after finishing what it could: the summary
/// of what was done, and the error. An input error (corrupt gzip, unreadable
/// file) still lets the other inputs run and every output finish; an output
/// error (disk full) stops the run, and the failing destination's files stay `.part`.
public struct RunFailure: Error, Sendable {
    public var summary: RunSummary
    public var error: any Error & Sendable
}
