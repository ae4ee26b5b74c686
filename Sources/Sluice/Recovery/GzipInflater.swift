import CZlib

/// A zlib stream set up to inflate gzip members, with its input and output
/// buffers, for reading a `.part` file back (`GzipMemberScan`, `CutMemberSalvage`).
/// Its pointers are valid while the inflater lives: a caller keeps it alive
/// (`withExtendedLifetime`) for as long as it uses them.
final class GzipInflater {
    static let bufferSize = 256 * 1024

    let stream: UnsafeMutablePointer<z_stream>
    let input: UnsafeMutablePointer<UInt8>
    let output: UnsafeMutablePointer<UInt8>

    init() {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        _ = sluice_inflateInit2(stream, 16 + MAX_WBITS)
        input = .allocate(capacity: GzipInflater.bufferSize)
        output = .allocate(capacity: GzipInflater.bufferSize)
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
        input.deallocate()
        output.deallocate()
    }
}
