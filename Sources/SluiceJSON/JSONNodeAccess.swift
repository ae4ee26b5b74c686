// Reading a document value by value: the small cursor API the rest of Sluice
// uses instead of the tape.
//
// A value is named by its node index (0 is the root object; `member`, `find`,
// `forEachMember` and `elements` give the others). Containers are followed by
// their contents, so a value's children start at `node + 1` (an object's as
// key, value, key, value) and `after(node)` is the index just past the value
// and everything inside it: the next sibling. Byte offsets (`start`, `end`)
// are into `bytes`; a string's include its quotes.
//
// Unsafe code: `withRawBytes` and `withLineBytes` lend the line's bytes through
// a pointer for the duration of the call (the storage is alive for it), and
// `UnsafeJSONView` hands out pointers to a document's index and bytes for the
// one walk that visits every value of every event with no bounds check
// (privacy redaction). They are valid only inside the `withUnsafeView`
// closure that made the view, which keeps the document alive; nothing stores
// a view. The other stages and the encoders use the span forms of
// `JSONSpans.swift`.

extension JSONDocument {
    /// The kind of the value at `node`.
    @inlinable @inline(__always)
    public func kind(_ node: Int) -> JSONKind { tape[node].kind }

    /// The index just past the value at `node` and everything inside it.
    @inlinable @inline(__always)
    public func after(_ node: Int) -> Int { Int(tape[node].next) }

    /// The byte offset in `bytes` where the value's text starts (a string's opening quote).
    @inlinable @inline(__always)
    public func start(_ node: Int) -> Int { Int(tape[node].start) }

    /// The byte offset just past the value's text (past a string's closing quote).
    @inlinable @inline(__always)
    public func end(_ node: Int) -> Int { Int(tape[node].end) }

    /// The length of the value's text as written, quotes included.
    @inlinable @inline(__always)
    public func rawLength(_ node: Int) -> Int { Int(tape[node].end &- tape[node].start) }

    /// Whether the string at `node` holds a backslash escape (so its raw text is not its bytes).
    @inlinable @inline(__always)
    public func hasEscapes(_ node: Int) -> Bool { tape[node].flags & JSONNode.hasEscapes != 0 }

    /// Whether the member whose key is at `key` was removed by an edit (`remove`, `removeMember`).
    @inlinable @inline(__always)
    public func isRemoved(key: Int) -> Bool { edits.isRemoved(key) }

    /// Whether the string (a key) at `node` equals `key`, compared after unescaping.
    @inlinable @inline(__always)
    public func stringEquals(_ node: Int, _ key: UnsafeRawBufferPointer) -> Bool {
        stringEquals(tape[node], key)
    }

    /// Calls `body` with the value's text exactly as written (a string's quotes included).
    @inlinable @inline(__always)
    public func withRawBytes<R>(_ node: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let start = Int(tape[node].start), end = Int(tape[node].end)
        return try storage.withRawBytes { try body(UnsafeRawBufferPointer(rebasing: $0[start..<end])) }
    }

    /// Calls `body` with the whole line's text as read (stages' pending edits not applied).
    @inlinable @inline(__always)
    public func withLineBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try storage.withRawBytes(body)
    }

    /// Calls `body` with the document's index and bytes borrowed through pointers.
    @inlinable @inline(__always)
    public func withUnsafeView<R>(_ body: (UnsafeJSONView) throws -> R) rethrows -> R {
        try storage.withUnsafeMutablePointers { header, nodes in
            let bytes = UnsafeRawPointer(nodes + header.pointee.nodeCount).assumingMemoryBound(to: UInt8.self)
            return try body(UnsafeJSONView(nodes: UnsafeBufferPointer(start: nodes, count: header.pointee.nodeCount),
                                           bytes: UnsafeBufferPointer(start: bytes, count: header.pointee.byteCount)))
        }
    }
}

/// A document's index and bytes through pointers, for the walk that visits
/// every value of every event: the same reads as `JSONView`'s, without a bounds
/// check per read. Valid only inside `withUnsafeView`.
public struct UnsafeJSONView {
    @usableFromInline let nodes: UnsafeBufferPointer<JSONNode>
    /// The document's text.
    public let bytes: UnsafeBufferPointer<UInt8>

    @usableFromInline
    init(nodes: UnsafeBufferPointer<JSONNode>, bytes: UnsafeBufferPointer<UInt8>) {
        self.nodes = nodes
        self.bytes = bytes
    }

    /// The kind of the value at `node`.
    @inlinable @inline(__always)
    public func kind(_ node: Int) -> JSONKind { nodes[node].kind }

    /// The index just past the value at `node` and everything inside it.
    @inlinable @inline(__always)
    public func after(_ node: Int) -> Int { Int(nodes[node].next) }

    /// The byte offset where the value's text starts (a string's opening quote).
    @inlinable @inline(__always)
    public func start(_ node: Int) -> Int { Int(nodes[node].start) }

    /// The byte offset just past the value's text.
    @inlinable @inline(__always)
    public func end(_ node: Int) -> Int { Int(nodes[node].end) }

    /// The length of the value's text as written, quotes included.
    @inlinable @inline(__always)
    public func rawLength(_ node: Int) -> Int { Int(nodes[node].end &- nodes[node].start) }

    /// Whether the string at `node` holds a backslash escape.
    @inlinable @inline(__always)
    public func hasEscapes(_ node: Int) -> Bool { nodes[node].flags & JSONNode.hasEscapes != 0 }

    /// The bytes of the string at `node` as written, without its quotes (escapes not decoded).
    @inlinable @inline(__always)
    public func rawStringBody(_ node: Int) -> UnsafeBufferPointer<UInt8> {
        let string = nodes[node]
        return UnsafeBufferPointer(rebasing: bytes[Int(string.start) + 1..<Int(string.end) - 1])
    }
}
