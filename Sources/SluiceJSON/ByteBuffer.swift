// Unsafe code: `ByteBuffer` keeps its bytes in memory it allocates
// (`storage`), so an append is a capacity check and a copy, without an array's
// uniqueness checks, on the reading thread for every record. It owns `storage`
// (freed in deinit) and writes only below `allocated`; `reserve` makes room
// before every write. `bytes` is valid until the next change.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where JSON text is appended: the encoders' helpers are generic over it, so
/// records go straight into an output's `ByteBuffer` while the same helpers
/// still fill plain arrays elsewhere (rejects' details, tests, state).
public protocol ByteSink {
    var count: Int { get }
    mutating func append(_ byte: UInt8)
    mutating func append<Bytes: Collection>(contentsOf bytes: Bytes) where Bytes.Element == UInt8
    /// Appends raw bytes (the common case: a value copied from an input line).
    mutating func append(raw bytes: UnsafeRawBufferPointer)
    /// Removes the bytes from `start` on (a refused or partly written record).
    mutating func removeSubrange(_ range: PartialRangeFrom<Int>)
    /// Reads what was appended so far (GA4 looks back at the keys it wrote).
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
    /// Appends `lead`, then `bytes`, then `trail`, `quoted` putting `"` on both
    /// sides of `bytes`: the start of an object member (`,"key":`) in one step.
    mutating func append(_ lead: UInt8, _ bytes: UnsafeRawBufferPointer, quoted: Bool, _ trail: UInt8)
}

extension ByteSink {
    @inlinable @inline(__always)
    public mutating func append(_ lead: UInt8, _ bytes: UnsafeRawBufferPointer, quoted: Bool, _ trail: UInt8) {
        append(lead)
        if quoted { append(UInt8(ascii: "\"")) }
        append(raw: bytes)
        if quoted { append(UInt8(ascii: "\"")) }
        append(trail)
    }
}

extension Array: ByteSink where Element == UInt8 {
    @inlinable @inline(__always)
    public mutating func append(raw bytes: UnsafeRawBufferPointer) {
        // As bytes, not raw memory: the contiguous copy, not the generic sequence path.
        append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
    }
    @inlinable
    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try withUnsafeBytes(body) }
}

/// The buffer an output's records are encoded into and handed to its
/// compression thread in: an append is a capacity check and a copy.
///
/// `[UInt8].append(contentsOf:)` costs about 85 instructions and a call into
/// the runtime (the uniqueness check) each time, and encoders make twenty or
/// more appends per record, most of a few bytes: on the reader thread, the one
/// that limits a run, that was several percent of all its work. A class, not a
/// value: one owner at a time (the output filling it, then the worker
/// compressing it), which hands it on rather than copying it.
public final class ByteBuffer: ByteSink {
    // Unsafe code: the buffer owns `storage` (allocated here, freed in deinit)
    // and writes only below `allocated`; `reserve` makes room before every write.
    @exclusivity(unchecked) @usableFromInline var storage: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) @usableFromInline var used = 0
    @exclusivity(unchecked) @usableFromInline var allocated: Int

    /// The first byte; the bytes appended so far are `base[0..<count]`.
    @inlinable public var base: UnsafeMutablePointer<UInt8> { storage }
    @inlinable public var count: Int { used }
    @inlinable public var capacity: Int { allocated }

    public init(capacity: Int = 256) {
        allocated = max(capacity, 16)
        storage = .allocate(capacity: allocated)
    }

    deinit { storage.deallocate() }

    @inlinable public var isEmpty: Bool { used == 0 }

    /// The bytes appended so far, valid until the next change.
    @inlinable public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: storage, count: used) }

    /// A copy of the bytes as an array (tests, in-memory outputs).
    public var array: [UInt8] { Array(UnsafeBufferPointer(start: storage, count: used)) }

    /// Makes room for at least `additional` more bytes.
    @inlinable @inline(__always)
    public func reserve(_ additional: Int) {
        if allocated - used < additional { grow(used + additional) }
    }

    @usableFromInline @inline(never)
    func grow(_ needed: Int) {
        var newCapacity = allocated * 2
        while newCapacity < needed { newCapacity *= 2 }
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        larger.initialize(from: storage, count: used)
        storage.deallocate()
        storage = larger
        allocated = newCapacity
    }

    @inlinable @inline(__always)
    public func append(_ byte: UInt8) {
        if used == allocated { grow(used + 1) }
        storage[used] = byte
        used &+= 1
    }

    @inlinable @inline(__always)
    public func append(raw bytes: UnsafeRawBufferPointer) {
        let length = bytes.count
        guard length > 0 else { return }
        reserve(length)
        ByteBuffer.copy(bytes, to: UnsafeMutableRawPointer(storage + used))
        used &+= length
    }

    /// One capacity check for the lot: encoders start twenty-odd members per record.
    @inlinable @inline(__always)
    public func append(_ lead: UInt8, _ bytes: UnsafeRawBufferPointer, quoted: Bool, _ trail: UInt8) {
        let length = bytes.count
        reserve(length &+ 4)
        var target = storage + used
        target[0] = lead
        target += 1
        if quoted {
            target[0] = UInt8(ascii: "\"")
            target += 1
        }
        if length > 0 { ByteBuffer.copy(bytes, to: UnsafeMutableRawPointer(target)) }
        target += length
        if quoted {
            target[0] = UInt8(ascii: "\"")
            target += 1
        }
        target[0] = trail
        used = target + 1 - storage
    }

    /// Copies `bytes` (not empty) to `target`: most are a key or a short
    /// value, moved as two overlapping words instead of a call to memcpy
    /// (which costs more than the copy).
    @inlinable @inline(__always)
    static func copy(_ bytes: UnsafeRawBufferPointer, to target: UnsafeMutableRawPointer) {
        let length = bytes.count, source = bytes.baseAddress!
        if length <= 16 {
            if length >= 8 {
                target.storeBytes(of: source.loadUnaligned(as: UInt64.self), as: UInt64.self)
                (target + length - 8).storeBytes(of: (source + length - 8).loadUnaligned(as: UInt64.self), as: UInt64.self)
            } else if length >= 4 {
                target.storeBytes(of: source.loadUnaligned(as: UInt32.self), as: UInt32.self)
                (target + length - 4).storeBytes(of: (source + length - 4).loadUnaligned(as: UInt32.self), as: UInt32.self)
            } else {
                for offset in 0..<length { target.storeBytes(of: source.load(fromByteOffset: offset, as: UInt8.self), toByteOffset: offset, as: UInt8.self) }
            }
        } else {
            memcpy(target, source, length)
        }
    }

    @inlinable @inline(__always)
    public func append<Bytes: Collection>(contentsOf bytes: Bytes) where Bytes.Element == UInt8 {
        if let done: Void = bytes.withContiguousStorageIfAvailable({ append(raw: UnsafeRawBufferPointer($0)) }) {
            return done
        }
        reserve(bytes.count)
        for byte in bytes {
            storage[used] = byte
            used += 1
        }
    }

    /// Counts `count` bytes the caller wrote at `base + self.count`, after
    /// `reserve` made room for them.
    @inlinable @inline(__always)
    public func advance(by count: Int) {
        precondition(count >= 0 && count <= allocated - used, "ByteBuffer.advance past the reserved space")
        used &+= count
    }

    public func removeSubrange(_ range: PartialRangeFrom<Int>) {
        precondition(range.lowerBound >= 0 && range.lowerBound <= used, "ByteBuffer.removeSubrange out of bounds")
        used = range.lowerBound
    }

    @inlinable
    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try body(bytes) }

    /// Empties the buffer, keeping its memory.
    public func removeAll() { used = 0 }
}
