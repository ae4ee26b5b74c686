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
// a pointer for the duration of the call (the storage is alive for it). The
// stages and encoders use the span forms of `JSONSpans.swift` instead.

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
}
