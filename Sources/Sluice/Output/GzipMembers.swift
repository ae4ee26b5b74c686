/// How a file output's gzip members are laid out (`gzip_members`).
///
/// libdeflate compresses whole buffers, so a member is compressed in one
/// piece: either a block of records or a whole file (docs/performance.md).
public enum GzipMembers: String, Sendable, Equatable, CaseIterable {
    /// A member per block of about 1 MiB of records, each ended after a
    /// record, every one readable on its own (as in BGZF); blocks are
    /// compressed on all the cores at once.
    case blocks
    /// One member per file: its records are held until it closes (or a
    /// `--flush-interval` ends a member early, which `sluice send` undoes for a
    /// file it uploads whole), then compressed in one piece.
    case file

    /// The largest `rotate: max_bytes` for which files of a destination that
    /// `sluice send` delivers are one member each by default: a provider's file
    /// is one request, a few MB at most; larger files are cut into requests by
    /// `send`, each compressed again, so they can be blocks.
    public static let fileMemberDefaultLimit = 16 << 20

    /// The layout when the pipeline does not say: one member per file for the
    /// files `sluice send` delivers (`sent`) when they are of request size,
    /// blocks for the rest (archives, rejects).
    public static func byDefault(sent: Bool, rotation: RotationPolicy) -> GzipMembers {
        sent && rotation.maxBytes <= fileMemberDefaultLimit ? .file : .blocks
    }

    /// The block size a stream cuts at: `Int.max` (never) for one member per file.
    func blockSize(blocks: Int) -> Int { self == .file ? Int.max : blocks }
}
