// Unsafe code: the reader decodes an `UnsafeRawBufferPointer` (a mapped state
// file, not copied into memory), checking every read against `end` so a bad
// file is `corrupt`, never a read out of bounds. The caller owns the bytes and
// keeps them alive while the reader is used.

/// Decodes what a `StateWriter` wrote, checking every read against the end of
/// its bytes: a value that does not fit, a count larger than the bytes left,
/// or a source that is not in the file's table is a `StateError.corrupt`,
/// never a crash or a giant allocation.
///
/// The bytes belong to the caller (a mapped file, an array) and must outlive the reader.
public struct StateReader {
    private let base: UnsafeRawBufferPointer
    private(set) var position: Int
    private let end: Int
    /// The state file's path, for error messages.
    let path: String
    /// The run's `Origin.source` for each source in the file's table.
    private let sourceMap: [Int32]

    init(_ bytes: UnsafeRawBufferPointer, range: Range<Int>? = nil, path: String, sourceMap: [Int32] = []) {
        base = bytes
        let range = range ?? 0..<bytes.count
        position = range.lowerBound
        end = range.upperBound
        self.path = path
        self.sourceMap = sourceMap
    }

    /// Bytes left to read.
    var remaining: Int { end - position }

    /// A `corrupt` error naming what did not fit, and where (the byte read
    /// last, unless `detail` says where already).
    func corrupt(_ detail: String) -> StateError {
        .corrupt(path: path, detail: detail.contains(" at byte ") ? detail : detail + " at byte \(position)")
    }

    @inline(__always)
    private mutating func take(_ count: Int, _ what: @autoclosure () -> String) throws(StateError) -> Int {
        guard count >= 0, count <= end - position else {
            throw corrupt("\(what()) runs past the end of its section at byte \(position)")
        }
        let start = position
        position += count
        return start
    }

    // MARK: - Values

    public mutating func u8() throws(StateError) -> UInt8 {
        base[try take(1, "a byte")]
    }

    public mutating func bool() throws(StateError) -> Bool {
        switch try u8() {
        case 0: return false
        case 1: return true
        case let other: throw corrupt("a flag holds \(other) at byte \(position - 1)")
        }
    }

    public mutating func u32() throws(StateError) -> UInt32 {
        let at = try take(4, "a 32-bit value")
        return UInt32(littleEndian: base.loadUnaligned(fromByteOffset: at, as: UInt32.self))
    }

    public mutating func u64() throws(StateError) -> UInt64 {
        let at = try take(8, "a 64-bit value")
        return UInt64(littleEndian: base.loadUnaligned(fromByteOffset: at, as: UInt64.self))
    }

    public mutating func i64() throws(StateError) -> Int64 { Int64(bitPattern: try u64()) }

    public mutating func varint() throws(StateError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < end else { throw corrupt("a number runs past the end of its section") }
            let byte = base[position]
            position += 1
            guard shift < 64, shift < 63 || byte <= 1 else { throw corrupt("a number is longer than 64 bits at byte \(position - 1)") }
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }

    public mutating func zigzag() throws(StateError) -> Int64 {
        let raw = try varint()
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    /// A varint that must lie in `range` (a slot, an offset, an id).
    public mutating func int(in range: ClosedRange<Int>, _ what: @autoclosure () -> String) throws(StateError) -> Int {
        let raw = try varint()
        guard raw <= UInt64(Int.max), range.contains(Int(raw)) else {
            throw corrupt("\(what()) is \(raw), outside \(range.lowerBound)...\(range.upperBound)")
        }
        return Int(raw)
    }

    /// A count of items that take at least `minimumBytes` each: never more than the bytes left allow.
    public mutating func count(_ what: @autoclosure () -> String, minimumBytes: Int = 1) throws(StateError) -> Int {
        let raw = try varint()
        guard raw <= UInt64(remaining / max(1, minimumBytes)) else {
            throw corrupt("\(what()) says \(raw) items but only \(remaining) bytes are left")
        }
        return Int(raw)
    }

    public mutating func bytes() throws(StateError) -> [UInt8] {
        let length = try count("a byte string")
        let at = try take(length, "a byte string")
        return Array(UnsafeRawBufferPointer(rebasing: base[at..<(at + length)]))
    }

    public mutating func string() throws(StateError) -> String {
        let raw = try bytes()
        guard let text = String(validating: raw, as: UTF8.self) else { throw corrupt("a name is not UTF-8") }
        return text
    }

    /// An origin, with its source mapped to this run's inputs.
    public mutating func origin() throws(StateError) -> Origin {
        let source = try int(in: 0...max(0, sourceMap.count - 1), "a source index")
        guard source < sourceMap.count else { throw corrupt("an origin refers to a source but the file lists none") }
        let line = try varint()
        guard line <= UInt64(Int64.max) else { throw corrupt("a line number is out of range") }
        return Origin(source: sourceMap[source], line: Int64(line))
    }

    /// Checks that a section was read to its last byte.
    public func expectEnd(_ what: String) throws(StateError) {
        if position != end { throw corrupt("\(end - position) bytes are left over at the end of \(what)") }
    }
}
