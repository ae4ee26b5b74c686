// Unsafe code: it fills the caller's `UnsafeMutableRawBufferPointer`, as every
// `ByteSource` does, with one copy from its array; the copy is at most the
// smaller of the buffer's room and the bytes left.

/// Bytes already in memory, read like a file: a test case's input events.
final class MemoryByteSource: ByteSource {
    private let bytes: [UInt8]
    @exclusivity(unchecked) private(set) var bytesConsumed = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let count = min(buffer.count, bytes.count - bytesConsumed)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { raw in
            buffer.baseAddress!.copyMemory(from: raw.baseAddress! + bytesConsumed, byteCount: count)
        }
        bytesConsumed += count
        return count
    }

    var isRegularFile: Bool { true }

    func close() {}
}
