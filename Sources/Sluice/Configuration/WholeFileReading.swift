// Unsafe code: `withUnsafeMutableBytes` lends the chunk array to
// `FileByteSource.read`, whose read(2) fills it: the kernel writes into the
// caller's buffer. The pointer is used only during the call and read(2) is
// given the chunk's own length, so it never writes past it.

/// Reads a whole (small) file as UTF-8.
func readFile(_ path: String, limit: Int? = nil) throws -> String {
    String(decoding: try readFileBytes(path, limit: limit), as: UTF8.self)
}

/// A file longer than the most it may be.
struct FileTooLarge: Error, CustomStringConvertible {
    var limit: Int
    var description: String { "the file is larger than \(limit / (1024 * 1024)) MiB, more than a pipeline file can be" }
}

/// Reads a whole (small) file's bytes; past `limit` bytes, `FileTooLarge`.
/// With `awaitReadable`, a FIFO is opened without waiting, and each read
/// that may block first waits in it (false: a stop came; `InputStopped`).
func readFileBytes(_ path: String, limit: Int? = nil, awaitReadable: ((Int32) -> Bool)? = nil) throws -> [UInt8] {
    let pacing = awaitReadable.map { _ in ReadPacing() }
    let reader = try FileByteSource.open(path, pacing: pacing)
    defer { reader.close() }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
        let n = try chunk.withUnsafeMutableBytes { try reader.read(into: $0) }
        if n == ReadPacing.paused, let pacing, let awaitReadable {
            if case let .read(fd, mayBlock) = pacing.due, mayBlock, !awaitReadable(fd) { pacing.stopRequested = true }
            continue
        }
        if n == 0 { break }
        bytes.append(contentsOf: chunk[..<n])
        if let limit, bytes.count > limit { throw FileTooLarge(limit: limit) }
    }
    return bytes
}
