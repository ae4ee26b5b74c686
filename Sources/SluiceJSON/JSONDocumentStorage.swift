// Unsafe code: a document's tape and line live in one allocation, a
// `ManagedBuffer` whose elements are the tape's nodes with the line's bytes
// right after them (bound to `UInt8` when the storage is made), in room for
// `byteCapacity` bytes. Both are written by `make`'s caller before the
// storage is shared, and changed after only by `JSONSplice.apply` while its
// one document holds the only reference; every pointer is handed out inside
// a closure that keeps the storage alive.

extension JSONDocument {
    /// The sizes a document's storage records in its header.
    @usableFromInline
    struct StorageHeader {
        @usableFromInline let nodeCount: Int
        @usableFromInline var byteCount: Int
        /// The bytes the allocation has room for after the nodes (at least `byteCount`).
        let byteCapacity: Int
        @usableFromInline let hasInsignificantWhitespace: Bool

        init(nodeCount: Int, byteCount: Int, byteCapacity: Int, hasInsignificantWhitespace: Bool) {
            self.nodeCount = nodeCount
            self.byteCount = byteCount
            self.byteCapacity = byteCapacity
            self.hasInsignificantWhitespace = hasInsignificantWhitespace
        }
    }

    /// The line and its tape in one allocation, never changed once shared.
    ///
    /// One object rather than two arrays in an object: a document costs one
    /// allocation and one free, not three, and reading it goes through one
    /// reference with no array of its own to retain.
    /// It is the tape, as a collection of nodes; the line's bytes are read with `withBytes`.
    @usableFromInline
    final class Storage: ManagedBuffer<StorageHeader, JSONNode>, RandomAccessCollection {
        /// A storage for `nodeCount` nodes and `byteCount` bytes, which `initialize`
        /// writes, every one of them, through the pointers it is given.
        static func make(nodeCount: Int, byteCount: Int, hasInsignificantWhitespace: Bool,
                         initialize: (_ nodes: UnsafeMutablePointer<JSONNode>, _ bytes: UnsafeMutablePointer<UInt8>) -> Void) -> Storage {
            let stride = MemoryLayout<JSONNode>.stride
            let byteSlots = (byteCount + stride - 1) / stride
            let made = create(minimumCapacity: nodeCount + byteSlots) { _ in
                StorageHeader(nodeCount: nodeCount, byteCount: byteCount, byteCapacity: byteSlots * stride,
                              hasInsignificantWhitespace: hasInsignificantWhitespace)
            }
            let storage = unsafeDowncast(made, to: Storage.self)
            storage.withUnsafeMutablePointerToElements { nodes in
                // Bound for all the room after the nodes: an in-place splice may grow the line into it.
                let bytes = UnsafeMutableRawPointer(nodes + nodeCount).bindMemory(to: UInt8.self, capacity: byteSlots * stride)
                initialize(nodes, bytes)
            }
            return storage
        }

        /// A storage holding copies of `nodes` and `bytes`.
        static func make(nodes: UnsafeBufferPointer<JSONNode>, bytes: UnsafeBufferPointer<UInt8>,
                         hasInsignificantWhitespace: Bool) -> Storage {
            make(nodeCount: nodes.count, byteCount: bytes.count, hasInsignificantWhitespace: hasInsignificantWhitespace) { to, toBytes in
                if let from = nodes.baseAddress { to.initialize(from: from, count: nodes.count) }
                if let from = bytes.baseAddress { toBytes.initialize(from: from, count: bytes.count) }
            }
        }

        @inlinable var startIndex: Int { 0 }
        @inlinable var endIndex: Int { count }

        /// The number of nodes on the tape.
        @inlinable var count: Int {
            @inline(__always) get { withUnsafeMutablePointerToHeader { $0.pointee.nodeCount } }
        }

        /// The number of bytes in the line.
        @inlinable var byteCount: Int {
            @inline(__always) get { withUnsafeMutablePointerToHeader { $0.pointee.byteCount } }
        }

        @inlinable var hasInsignificantWhitespace: Bool {
            @inline(__always) get { withUnsafeMutablePointerToHeader { $0.pointee.hasInsignificantWhitespace } }
        }

        /// The node at `index`, bounds-checked as an array's element is.
        @inlinable subscript(index: Int) -> JSONNode {
            @inline(__always) get {
                withUnsafeMutablePointers { header, nodes in
                    precondition(UInt(bitPattern: index) < UInt(bitPattern: header.pointee.nodeCount), "Index out of range")
                    return nodes[index]
                }
            }
        }

        /// Calls `body` with the tape.
        @inlinable @inline(__always)
        func withUnsafeBufferPointer<R, E: Error>(_ body: (UnsafeBufferPointer<JSONNode>) throws(E) -> R) throws(E) -> R {
            try withUnsafeMutablePointers { (header, nodes) throws(E) -> R in
                try body(UnsafeBufferPointer(start: nodes, count: header.pointee.nodeCount))
            }
        }

        /// Calls `body` with the line's bytes.
        @inlinable @inline(__always)
        func withBytes<R, E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
            try withUnsafeMutablePointers { (header, nodes) throws(E) -> R in
                let bytes = UnsafeRawPointer(nodes + header.pointee.nodeCount).assumingMemoryBound(to: UInt8.self)
                return try body(UnsafeBufferPointer(start: bytes, count: header.pointee.byteCount))
            }
        }

        /// Calls `body` with the line's bytes, as raw bytes.
        @inlinable @inline(__always)
        func withRawBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
            try withBytes { (bytes) throws(E) -> R in try body(UnsafeRawBufferPointer(bytes)) }
        }
    }
}
