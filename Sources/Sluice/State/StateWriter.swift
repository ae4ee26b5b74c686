// Unsafe code: chunks go to the sink, and to zlib's crc32 (a C API), as
// `UnsafeRawBufferPointer`s over the writer's array, and integers are
// appended through `withUnsafeBytes(of:)` of their little-endian value.
// Pointers are used only during the call; CRC runs are at most `bytes.count`,
// in 1 GiB steps.

import CZlib

/// Encodes a run's state: little-endian fixed-width integers, LEB128 varints
/// (zigzag for signed values that may be negative), length-prefixed bytes,
/// and origins whose source names are interned, so a million entries from one
/// input file name it once.
///
/// Bytes go to `sink` in chunks of about 1 MiB as they are written, with a
/// running CRC-32 (zlib's), so saving a large state never holds a second copy
/// of it; without a sink they stay in `bytes` (tests, small states). Stages
/// write without handling errors: the first sink error is kept and the save
/// reports it at the end (`failure`).
public final class StateWriter {
    private var buffer: [UInt8] = []
    private let sink: ((UnsafeRawBufferPointer) throws(StateError) -> Void)?
    private var flushedCount: UInt64 = 0
    private var runningCRC: uLong = crc32(0, nil, 0)
    /// The first error the sink reported; later writes are discarded.
    private(set) var failure: StateError?
    /// The run's input names, by `Origin.source`.
    private let sourceNames: [String]
    /// For each run source: its index in `sources` plus one, 0 when not used yet.
    private var sourceSlots: [UInt32]
    /// The source names origins referred to, in first-use order (written in the index).
    private(set) var sources: [String] = []

    static let chunkSize = 1 << 20

    /// - Parameters:
    ///   - sourceNames: the names of the run's inputs, indexed by `Origin.source`.
    ///   - sink: where full chunks go; nil keeps everything in `bytes`.
    init(sourceNames: [String] = [], sink: ((UnsafeRawBufferPointer) throws(StateError) -> Void)? = nil) {
        self.sourceNames = sourceNames
        self.sink = sink
        sourceSlots = Array(repeating: 0, count: sourceNames.count)
        buffer.reserveCapacity(sink == nil ? 4096 : Self.chunkSize + 64 * 1024)
    }

    /// Bytes written so far (the offset of the next byte in the file).
    var offset: UInt64 { flushedCount + UInt64(buffer.count) }

    /// Everything written, when there is no sink.
    var bytes: [UInt8] { buffer }

    /// The CRC-32 of everything written so far.
    var checksum: UInt32 {
        let crc = buffer.withUnsafeBytes { StateChecksum.update(runningCRC, $0) }
        return UInt32(truncatingIfNeeded: crc)
    }

    /// Hands everything buffered to the sink (called by the save at the end).
    func flush() {
        guard let sink, !buffer.isEmpty else { return }
        buffer.withUnsafeBytes { raw in
            runningCRC = StateChecksum.update(runningCRC, raw)
            if failure == nil {
                do throws(StateError) { try sink(raw) } catch { failure = error }
            }
        }
        flushedCount += UInt64(buffer.count)
        buffer.removeAll(keepingCapacity: true)
    }

    @inline(__always)
    private func flushIfFull() {
        if sink != nil && buffer.count >= Self.chunkSize { flush() }
    }

    // MARK: - Values

    public func u8(_ value: UInt8) {
        buffer.append(value)
    }

    public func bool(_ value: Bool) { u8(value ? 1 : 0) }

    /// Bytes as they are, no length (the magic).
    func raw(_ value: [UInt8]) {
        buffer.append(contentsOf: value)
        flushIfFull()
    }

    public func u32(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { buffer.append(contentsOf: $0) }
        flushIfFull()
    }

    public func u64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { buffer.append(contentsOf: $0) }
        flushIfFull()
    }

    public func i64(_ value: Int64) { u64(UInt64(bitPattern: value)) }

    /// LEB128: 7 bits a byte, low first; 1 byte below 128, at most 10.
    public func varint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            buffer.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        buffer.append(UInt8(rest))
        flushIfFull()
    }

    public func varint(_ value: Int) {
        precondition(value >= 0, "a varint count is never negative")
        varint(UInt64(value))
    }

    /// A signed value as a zigzag varint (small magnitudes, either sign, stay short).
    public func zigzag(_ value: Int64) {
        varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// A varint length, then the bytes.
    public func bytes<Bytes: Collection>(_ value: Bytes) where Bytes.Element == UInt8 {
        varint(value.count)
        buffer.append(contentsOf: value)
        flushIfFull()
    }

    public func string(_ value: String) { bytes(Array(value.utf8)) }

    /// An input line's origin: its source name (interned) and line number.
    public func origin(_ origin: Origin) {
        let source = Int(origin.source)
        precondition(source >= 0 && source < sourceSlots.count, "an origin from a source the writer was not told about")
        var slot = sourceSlots[source]
        if slot == 0 {
            sources.append(sourceNames[source])
            slot = UInt32(sources.count)
            sourceSlots[source] = slot
        }
        varint(UInt64(slot - 1))
        varint(UInt64(max(0, origin.line)))
    }
}

/// zlib's CRC-32 over buffers of any size.
enum StateChecksum {
    static func update(_ crc: uLong, _ bytes: UnsafeRawBufferPointer) -> uLong {
        var crc = crc
        var offset = 0
        while offset < bytes.count {
            let length = min(bytes.count - offset, 1 << 30)
            crc = crc32(crc, bytes.baseAddress!.advanced(by: offset).assumingMemoryBound(to: Bytef.self), uInt(length))
            offset += length
        }
        return crc
    }

    static func of(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        UInt32(truncatingIfNeeded: update(crc32(0, nil, 0), bytes))
    }
}
