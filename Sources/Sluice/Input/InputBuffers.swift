/// How large an input's buffers are, from how many inputs are read at once.
///
/// One input at a time (one input, `--concat`) reads 256 KiB at a time and
/// holds up to 1 MiB of a gzip member before checking the rest of it ahead
/// (64 MiB on a pipe, before the rest goes to a temporary file). Inputs
/// merged in event time are all open at once, each waiting its turn with its
/// buffers filled, so each reads 64 KiB at a time, and their member holds
/// share one budget, `holdBudget` divided among the inputs (a power of two,
/// 64 KiB at least, 1 MiB at most in a file). What is read and checked is the
/// same whatever the sizes: a smaller hold only means a member larger than it
/// is checked ahead (inflated twice) rather than held.
struct InputBuffers: Equatable {
    /// One read: the line reader's from its source, and gzip's of compressed bytes.
    var readBytes: Int
    /// How much of a gzip member a regular file holds before the rest is checked ahead.
    var fileHoldBytes: Int
    /// How much of a gzip member a pipe holds in memory before the rest goes to a temporary file.
    var pipeHoldBytes: Int

    /// The sizes for an input read on its own.
    static let single = InputBuffers(readBytes: 256 * 1024, fileHoldBytes: 1024 * 1024, pipeHoldBytes: 64 * 1024 * 1024)
    /// One read of an input merged with others.
    static let mergedReadBytes = 64 * 1024
    /// What the member holds of the inputs merged at once may take together (beyond their floor).
    static let holdBudget = 64 * 1024 * 1024
    /// The least a member hold takes: a member up to this size is never inflated twice.
    static let minimumHoldBytes = 64 * 1024

    /// The sizes for each of `count` inputs open at once.
    static func forOpenInputs(_ count: Int) -> InputBuffers {
        guard count > 1 else { return single }
        let share = holdBudget / count
        func hold(_ most: Int) -> Int {
            var size = minimumHoldBytes
            while size * 2 <= min(share, most) { size *= 2 }
            return size
        }
        return InputBuffers(readBytes: mergedReadBytes, fileHoldBytes: hold(single.fileHoldBytes),
                            pipeHoldBytes: hold(single.pipeHoldBytes))
    }
}
