// Safe ways into a document's bytes for the stages and the encoders: keys
// looked up and compared as arrays or spans, a value's text lent as a
// `Span<UInt8>`, a whole-document walk through `JSONView`, and the byte
// primitives the walks need (span equality, appends, eight-bytes-at-a-time
// tests, hashing).
//
// Unsafe code: the spans are made from the storage's pointers inside the
// closure that lends them (the storage is alive for the call); `JSONView`
// holds the storage it points into, so a view that outlives its closure still
// points at live memory, and it checks every node index and byte range it is
// given. `SpanWords` loads eight bytes at a time only inside the span it is
// given.

extension JSONDocument {
    /// The index of the value stored under `key` (UTF-8) in the object at `object`.
    @inlinable @inline(__always)
    public func member(_ key: [UInt8], of object: Int = 0) -> Int? {
        key.withUnsafeBytes { member($0, of: object) }
    }

    /// The same for a key lent as a span.
    @inlinable @inline(__always)
    public func member(_ key: Span<UInt8>, of object: Int = 0) -> Int? {
        key.withUnsafeBytes { member($0, of: object) }
    }

    /// Whether the string (a key) at `node` equals `key`, compared after unescaping.
    @inlinable @inline(__always)
    public func stringEquals(_ node: Int, _ key: [UInt8]) -> Bool {
        key.withUnsafeBytes { stringEquals(tape[node], $0) }
    }

    /// The same for a key lent as a span.
    @inlinable @inline(__always)
    public func stringEquals(_ node: Int, _ key: Span<UInt8>) -> Bool {
        key.withUnsafeBytes { stringEquals(tape[node], $0) }
    }

    /// Calls `body` with the value's text exactly as written (a string's quotes included).
    @inlinable @inline(__always)
    public func withSpan<R>(of node: Int, _ body: (Span<UInt8>) throws -> R) rethrows -> R {
        let start = Int(tape[node].start), end = Int(tape[node].end)
        return try storage.withBytes { try body($0.span.extracting(start..<end)) }
    }

    /// Calls `body` with the decoded UTF-8 of the string at `node` (nil if not a string).
    @inlinable
    public func withStringSpan<R>(_ node: Int, _ body: (Span<UInt8>) -> R) -> R? {
        let n = tape[node]
        guard n.kind == .string else { return nil }
        if n.flags & JSONNode.hasEscapes == 0 {
            return storage.withBytes { body($0.span.extracting(Int(n.start + 1)..<Int(n.end - 1))) }
        }
        let decoded = storage.withBytes { JSONString.unescape(UnsafeBufferPointer(rebasing: $0[Int(n.start + 1)..<Int(n.end - 1)])) }
        return body(decoded.span)
    }

    /// Calls `body` with the whole line's text as read (stages' pending edits not applied).
    @inlinable @inline(__always)
    public func withLineSpan<R>(_ body: (Span<UInt8>) throws -> R) rethrows -> R {
        try storage.withBytes { try body($0.span) }
    }

    /// Calls `body` with a view of the document for a walk over every value.
    @inlinable @inline(__always)
    public func withView<R>(_ body: (JSONView) throws -> R) rethrows -> R {
        try body(JSONView(storage))
    }
}

/// A document's index and bytes for walks that visit every value (privacy
/// redaction, dedupe fingerprints): the reads of `JSONDocument`, each a bounds
/// check and a load, with nothing retained per read. The view holds the
/// document's storage, which does not change while it is shared.
public struct JSONView {
    @usableFromInline let storage: JSONDocument.Storage
    @usableFromInline let nodes: UnsafePointer<JSONNode>
    @usableFromInline let bytes: UnsafePointer<UInt8>
    /// The number of nodes.
    public let count: Int
    /// The number of bytes in the line.
    public let byteCount: Int

    @usableFromInline
    init(_ storage: JSONDocument.Storage) {
        self.storage = storage
        var nodes: UnsafePointer<JSONNode>?
        var bytes: UnsafePointer<UInt8>?
        var count = 0, byteCount = 0
        storage.withUnsafeMutablePointers { header, start in
            nodes = UnsafePointer(start)
            bytes = UnsafeRawPointer(start + header.pointee.nodeCount).assumingMemoryBound(to: UInt8.self)
            count = header.pointee.nodeCount
            byteCount = header.pointee.byteCount
        }
        self.nodes = nodes!
        self.bytes = bytes!
        self.count = count
        self.byteCount = byteCount
    }

    @inlinable @inline(__always) @usableFromInline
    func node(_ index: Int) -> JSONNode {
        precondition(UInt(bitPattern: index) < UInt(bitPattern: count), "JSONView: node out of range")
        return nodes[index]
    }

    /// The kind of the value at `node`.
    @inlinable @inline(__always)
    public func kind(_ node: Int) -> JSONKind { self.node(node).kind }

    /// The index just past the value at `node` and everything inside it.
    @inlinable @inline(__always)
    public func after(_ node: Int) -> Int { Int(self.node(node).next) }

    /// The byte offset where the value's text starts (a string's opening quote).
    @inlinable @inline(__always)
    public func start(_ node: Int) -> Int { Int(self.node(node).start) }

    /// The byte offset just past the value's text.
    @inlinable @inline(__always)
    public func end(_ node: Int) -> Int { Int(self.node(node).end) }

    /// The length of the value's text as written, quotes included.
    @inlinable @inline(__always)
    public func rawLength(_ node: Int) -> Int {
        let n = self.node(node)
        return Int(n.end &- n.start)
    }

    /// Whether the string at `node` holds a backslash escape.
    @inlinable @inline(__always)
    public func hasEscapes(_ node: Int) -> Bool { self.node(node).flags & JSONNode.hasEscapes != 0 }

    /// Calls `body` with the bytes `range` of the line.
    @inlinable @inline(__always)
    public func withBytes<R>(_ range: Range<Int>, _ body: (Span<UInt8>) throws -> R) rethrows -> R {
        precondition(range.lowerBound >= 0 && range.upperBound <= byteCount, "JSONView: bytes out of range")
        return try withExtendedLifetime(storage) {
            try body(UnsafeBufferPointer(start: bytes + range.lowerBound, count: range.count).span)
        }
    }

    /// Calls `body` with the value's text as written (a string's quotes included).
    @inlinable @inline(__always)
    public func withSpan<R>(of node: Int, _ body: (Span<UInt8>) throws -> R) rethrows -> R {
        let n = self.node(node)
        return try withBytes(Int(n.start)..<Int(n.end), body)
    }

    /// Calls `body` with the bytes of the string at `node` as written, without
    /// its quotes (escapes not decoded).
    @inlinable @inline(__always)
    public func withStringBody<R>(_ node: Int, _ body: (Span<UInt8>) throws -> R) rethrows -> R {
        let n = self.node(node)
        return try withBytes(Int(n.start) + 1..<Int(n.end) - 1, body)
    }

    /// The bytes of the string at `node` without its quotes, decoded (a copy).
    public func decodedString(_ node: Int) -> [UInt8] {
        withStringBody(node) { JSONString.unescape($0) }
    }

    /// Whether `test` holds for any eight-byte word covering the body of the
    /// string at `node` (`SpanWords.any`, reading past the body into the line
    /// where that saves assembling a short word).
    @inlinable @inline(__always)
    public func anyWord(ofStringBody node: Int, _ test: (UInt64) -> Bool) -> Bool {
        let n = self.node(node)
        let start = Int(n.start) + 1, end = Int(n.end) - 1
        precondition(start >= 0 && end <= byteCount, "JSONView: bytes out of range")
        return withExtendedLifetime(storage) {
            SpanWords.any(bytes, from: start, to: end, available: byteCount, test)
        }
    }
}

/// Tests bytes eight at a time: the fast rejects of the privacy detectors.
public enum SpanWords {
    /// Whether `test` holds for any of the words that cover `start..<end` of
    /// `bytes`: whole words, then the last eight bytes again (overlapping); a
    /// range shorter than a word is one word masked to it (read from `bytes`
    /// past `end` when eight bytes are there, else assembled byte by byte).
    /// `test` must be false for a zero byte, which stands for the bytes masked off.
    @inlinable @inline(__always)
    public static func any(_ bytes: Span<UInt8>, from start: Int, to end: Int, _ test: (UInt64) -> Bool) -> Bool {
        precondition(start >= 0 && end <= bytes.count, "SpanWords.any: range out of the span")
        return bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return false }
            return any(base, from: start, to: end, available: buffer.count, test)
        }
    }

    @inlinable @inline(__always) @usableFromInline
    static func any(_ base: UnsafePointer<UInt8>, from start: Int, to end: Int, available: Int, _ test: (UInt64) -> Bool) -> Bool {
        let count = end - start
        if count <= 0 { return false }
        let raw = UnsafeRawPointer(base)
        @inline(__always) func word(_ offset: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
        if count < 8 {
            if start + 8 <= available { return test(word(start) & (~UInt64(0) >> UInt64(64 - 8 * count))) }
            var assembled: UInt64 = 0
            var offset = end
            while offset > start {
                offset -= 1
                assembled = assembled << 8 | UInt64(raw.load(fromByteOffset: offset, as: UInt8.self))
            }
            return test(assembled)
        }
        var offset = start
        while offset + 8 <= end {
            if test(word(offset)) { return true }
            offset += 8
        }
        // The last bytes: the last eight again, overlapping.
        return offset < end && test(word(end - 8))
    }
}

/// Comparing and hashing bytes lent as spans.
public enum ByteSpans {
    /// Whether `a` and `b` hold the same bytes.
    @inlinable @inline(__always)
    public static func equal(_ a: Span<UInt8>, _ b: Span<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        if a.count == 0 { return true }
        return a.withUnsafeBytes { a in b.withUnsafeBytes { b in ShortBytes.equal(a.baseAddress!, b.baseAddress!, a.count) } }
    }

    /// Whether `a` holds the bytes of `b`.
    @inlinable @inline(__always)
    public static func equal(_ a: Span<UInt8>, _ b: [UInt8]) -> Bool { equal(a, b.span) }

    /// Whether `a` holds the bytes of `b`.
    @inlinable @inline(__always)
    public static func equal(_ a: Span<UInt8>, _ b: StaticString) -> Bool {
        guard a.count == b.utf8CodeUnitCount else { return false }
        if a.count == 0 { return true }
        return a.withUnsafeBytes { ShortBytes.equal($0.baseAddress!, UnsafeRawPointer(b.utf8Start), a.count) }
    }

    /// Whether `a[offset...]` starts with `prefix`.
    @inlinable @inline(__always)
    public static func hasPrefix(_ a: Span<UInt8>, at offset: Int, _ prefix: [UInt8]) -> Bool {
        guard offset >= 0, a.count - offset >= prefix.count else { return false }
        return equal(a.extracting(offset..<offset + prefix.count), prefix.span)
    }

    /// Feeds `bytes` to `hasher` in one call (`[UInt8]`'s own hashing feeds it byte by byte).
    @inlinable @inline(__always)
    public static func combine(_ bytes: Span<UInt8>, into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    /// The same for an array.
    @inlinable @inline(__always)
    public static func combine(_ bytes: [UInt8], into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    /// Copies `source` into `array` from `offset` on (which must have room for it).
    @inlinable @inline(__always)
    public static func copy(_ source: Span<UInt8>, into array: inout [UInt8], at offset: Int) {
        precondition(offset >= 0 && offset + source.count <= array.count, "ByteSpans.copy: out of the array")
        guard !source.isEmpty else { return }
        source.withUnsafeBufferPointer { from in
            array.withUnsafeMutableBufferPointer { to in
                (to.baseAddress! + offset).update(from: from.baseAddress!, count: from.count)
            }
        }
    }

    /// Whether `text` is `lowered` with its ASCII upper-case letters made lower case.
    @inlinable
    public static func equalFoldingASCII(_ lowered: [UInt8], _ text: Span<UInt8>) -> Bool {
        guard lowered.count == text.count else { return false }
        for index in text.indices {
            let byte = text[index]
            if lowered[index] != (byte &- 65 < 26 ? byte | 0x20 : byte) { return false }
        }
        return true
    }

    /// The UTF-8 of a name known when compiling, as an array.
    @inlinable
    public static func array(_ text: StaticString) -> [UInt8] {
        Array(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Whether `needle` (not empty) occurs in `bytes` (memchr for its first byte, then a comparison).
    @inlinable
    public static func contains(_ bytes: Span<UInt8>, _ needle: [UInt8]) -> Bool {
        precondition(!needle.isEmpty, "ByteSpans.contains: an empty needle")
        return bytes.withUnsafeBytes { raw in
            needle.withUnsafeBytes { key in
                guard let base = raw.baseAddress else { return false }
                var offset = 0
                while raw.count - offset >= key.count {
                    guard let hit = memchr(base + offset, Int32(key[0]), raw.count - offset - key.count + 1) else { return false }
                    if memcmp(hit, key.baseAddress!, key.count) == 0 { return true }
                    offset = UnsafeRawPointer(hit) - base + 1
                }
                return false
            }
        }
    }

    /// The index of the first `byte` in `bytes` at or after `from`, if any (memchr).
    @inlinable
    public static func firstIndex(of byte: UInt8, in bytes: Span<UInt8>, from: Int = 0) -> Int? {
        precondition(from >= 0 && from <= bytes.count, "ByteSpans.firstIndex: start out of the span")
        return bytes.withUnsafeBufferPointer { buffer -> Int? in
            guard from < buffer.count, let base = buffer.baseAddress else { return nil }
            guard let hit = memchr(base + from, Int32(byte), buffer.count - from) else { return nil }
            return UnsafeRawPointer(hit) - UnsafeRawPointer(base)
        }
    }
}

extension Array {
    /// Calls `body` with the elements as a span: for an array read out of a
    /// class or another place a span cannot be borrowed from for longer than the read.
    @inlinable @inline(__always)
    public func withSpan<R, E: Error>(_ body: (Span<Element>) throws(E) -> R) throws(E) -> R {
        try withUnsafeBufferPointer { (buffer) throws(E) -> R in try body(buffer.span) }
    }
}

extension Array where Element == UInt8 {
    /// A copy of the bytes of `span`.
    @inlinable
    public init(copying span: Span<UInt8>) {
        self = span.withUnsafeBufferPointer { Array($0) }
    }

    /// Appends the bytes of `span`: the array's contiguous copy (`ByteSink`'s
    /// generic `append(span:)` would go through a raw buffer, a slower path).
    @inlinable @inline(__always)
    public mutating func append(span: Span<UInt8>) {
        span.withUnsafeBufferPointer { append(contentsOf: $0) }
    }

    /// Makes the array hold the bytes of `span`, keeping its capacity: one
    /// replacement, not a removal and an append.
    @inlinable @inline(__always)
    public mutating func replaceAll(with span: Span<UInt8>) {
        span.withUnsafeBufferPointer { replaceSubrange(indices, with: $0) }
    }
}

extension JSONBuilder {
    /// A string value of bytes that need no escaping, copied from `bytes`.
    @inlinable
    public func string(unescaped bytes: RawSpan) {
        string(count: bytes.byteCount) { target in
            bytes.withUnsafeBytes { source in
                if let from = source.baseAddress { UnsafeMutableRawPointer(target).copyMemory(from: from, byteCount: source.count) }
            }
        }
    }
}

extension TextLimit {
    /// `appendCut` of bytes lent as a span.
    @discardableResult @inlinable
    public static func appendCut<Out: ByteSink>(_ bytes: Span<UInt8>, maxBytes: Int = .max, maxScalars: Int = .max,
                                                to out: inout Out) -> Bool {
        bytes.withUnsafeBufferPointer { appendCut($0, maxBytes: maxBytes, maxScalars: maxScalars, to: &out) }
    }

    /// The number of characters (Unicode scalars) in valid UTF-8 lent as a span.
    @inlinable @inline(__always)
    public static func scalarCount(_ bytes: Span<UInt8>) -> Int {
        bytes.withUnsafeBytes { scalarCount($0) }
    }
}

extension UTF8Validation {
    /// `isValid` of bytes lent as a span.
    @inlinable
    public static func isValid(_ bytes: Span<UInt8>) -> Bool {
        bytes.withUnsafeBufferPointer { isValid($0) }
    }
}

extension JSONString {
    /// Decodes the escapes of a string body lent as a span.
    public static func unescape(_ body: Span<UInt8>) -> [UInt8] {
        body.withUnsafeBufferPointer { unescape($0) }
    }
}

extension ByteSink {
    /// Appends the UTF-8 of a name known when compiling.
    @inlinable @inline(__always)
    public mutating func append(utf8 text: StaticString) {
        append(raw: UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends the bytes of `span`.
    @inlinable @inline(__always)
    public mutating func append(span: Span<UInt8>) {
        span.withUnsafeBytes { append(raw: $0) }
    }

    /// `lead`, `bytes` (quoted: between `"`), then `trail`, as `append(_:_:quoted:_:)`.
    @inlinable @inline(__always)
    public mutating func append(_ lead: UInt8, span bytes: Span<UInt8>, quoted: Bool, _ trail: UInt8) {
        bytes.withUnsafeBytes { append(lead, $0, quoted: quoted, trail) }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
