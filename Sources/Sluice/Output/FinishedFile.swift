/// A file a run finished (renamed from `.part` to its name): what `--stats`
/// lists under `files`, and what `--staging` moves into place.
public struct FinishedFile: Sendable, Equatable {
    /// The destination's name, or `rejects`.
    public var destination: String
    /// The destination's side output the file is of (`profiles`), nil for its events and the rejects.
    public var output: String? = nil
    /// Relative to the directory the run writes under (`--out`, or the
    /// `--staging` directory), or absolute when the path template is.
    public var path: String
    public var records: Int
    public var uncompressedBytes: Int
    public var compressedBytes: Int

    /// The path as it is on disk when the files are under `root` (`""`: `path` is that already,
    /// as in a `--stats` file read back).
    public func path(under root: String) -> String {
        path.hasPrefix("/") || root.isEmpty ? path : root + "/" + path
    }
}

/// The files each output keeps a record of, for `--stats`: a run that writes
/// a file a minute for months must not grow without bound, so beyond
/// `maxListed` per output the files are only counted.
struct FinishedFileList {
    static let maxListed = 10_000

    private(set) var listed: [FinishedFile] = []
    private(set) var notListed = 0

    mutating func append(_ file: FinishedFile) {
        if listed.count < Self.maxListed { listed.append(file) } else { notListed += 1 }
    }
}
