// Unsafe code: constant keys are read from their `StaticString` storage,
// valid for the life of the program.

/// Allocation-free walks over a document's objects, for the provider encoders
/// (which run once per event per destination, so an array per call shows).
extension JSONDocument {
    /// Calls `body` with the key and value tape indexes of each member of the
    /// object at `object`, in order (removed members left out); nothing if it is not an object.
    @inlinable @inline(__always)
    public func forEachMember(of object: Int, _ body: (_ key: Int, _ value: Int) -> Void) {
        guard tape[object].kind == .object else { return }
        let end = Int(tape[object].next)
        var index = object + 1
        while index < end {
            let following = Int(tape[index + 1].next)
            if !edits.isRemoved(index) { body(index, index + 1) }
            index = following
        }
    }

    /// Whether the string (a key) at `node` is `literal`, compared after unescaping.
    @inlinable @inline(__always)
    public func string(_ node: Int, is literal: StaticString) -> Bool {
        stringEquals(tape[node], UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// The value under `key` (a constant) in the object at `object`.
    @inlinable @inline(__always)
    public func member(_ key: StaticString, of object: Int) -> Int? {
        member(UnsafeRawBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount), of: object)
    }

    /// The length of the string at `node` in bytes once decoded (the raw length
    /// when it has no escapes: the common case costs nothing).
    @inlinable @inline(__always)
    public func decodedLength(_ node: Int) -> Int {
        let n = tape[node]
        if n.flags & JSONNode.hasEscapes == 0 { return Int(n.end - n.start) - 2 }
        return withString(node) { $0.count } ?? 0
    }

    /// The first byte of the string at `node` as written (0 for an empty
    /// string): a cheap filter before comparing it with names (`\\` for an
    /// escaped one, which may spell any name).
    @inlinable @inline(__always)
    public func firstRawByte(_ node: Int) -> UInt8 {
        let n = tape[node]
        return n.end &- n.start > 2 ? storage.withBytes { $0[Int(n.start) &+ 1] } : 0
    }

    /// Whether `node` is a string with no escapes, so its raw text is its JSON form and its bytes.
    @inlinable @inline(__always)
    public func isPlainString(_ node: Int) -> Bool {
        tape[node].kind == .string && tape[node].flags & JSONNode.hasEscapes == 0
    }
}
