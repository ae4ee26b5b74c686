// Unsafe code: the inflated bytes are handed to the deflater as an
// `UnsafeRawBufferPointer` slice of `GzipInflater`'s output (zlib's C API), and
// compressed chunks to write(2) the same way; the slice is at most what was
// produced, and each pointer is used only during its call.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The whole lines of a gzip member cut short by a crash, written again as a
/// complete member of their own.
///
/// A run killed while deflate was writing a member leaves that member without
/// its end; everything deflate had written decodes to the records before the
/// cut. `GzipMemberScan` counted the bytes up to the last newline; this
/// decodes exactly those again and compresses them, so the half record after
/// them is left out and the salvaged file ends with a whole line.
enum CutMemberSalvage {
    /// Inflates the member starting at `offset` of `fd`, compresses its first
    /// `lineBytes` bytes of data into one gzip member and writes it to `out`.
    static func write(from fd: Int32, offset: Int, lineBytes: Int, to out: Int32, outPath: String) throws(RecoveryError) {
        guard lineBytes > 0 else { return }
        let inflater = GzipInflater()
        let deflater = GzipDeflater(level: 6, label: outPath)
        let sink = { (chunk: UnsafeRawBufferPointer) throws(OutputError) in
            let code = FileSystem.writeAll(out, chunk).errno
            if code != 0 { throw OutputError.writeFailed(path: outPath, errno: code) }
        }
        var readOffset = offset
        var remaining = lineBytes
        var atEnd = false
        do {
            while remaining > 0 {
                if inflater.pendingInput == 0 {
                    let n = inflater.refill { pread(fd, $0.baseAddress, $0.count, off_t(readOffset)) }
                    if n < 0 {
                        if errno == EINTR { continue }
                        throw RecoveryError.readFailed(errno: errno)
                    }
                    if n == 0 {
                        atEnd = true
                    } else {
                        readOffset += n
                    }
                }
                let (step, bytes) = inflater.inflate()
                let produced = step.produced
                let take = min(produced, remaining)
                if take > 0 {
                    try deflater.compress(UnsafeRawBufferPointer(rebasing: bytes[0..<take]), sink: sink)
                    remaining -= take
                }
                // The scan decoded these bytes from this very file: running out means it changed.
                let stuck = step.status != .progress && step.status != .stalled
                if remaining > 0 && produced == 0 && (stuck || (atEnd && inflater.pendingInput == 0)) {
                    throw RecoveryError.failed(operation: "decode the cut member of", path: outPath, errno: EIO)
                }
            }
            try deflater.endMember(sink: sink)
        } catch let error as OutputError {
            if case let .writeFailed(path, code) = error { throw .failed(operation: "write", path: path, errno: code) }
            throw .failed(operation: "compress", path: outPath, errno: EIO)
        } catch let error as RecoveryError {
            throw error
        } catch {
            throw .failed(operation: "salvage", path: outPath, errno: EIO)
        }
    }
}
