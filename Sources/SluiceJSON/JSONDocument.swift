// Unsafe code: member look-ups compare keys through pointers into the line's
// bytes and the index (`ShortBytes` loads up to 16 bytes as two words); every
// pointer is taken inside `withUnsafe…` on arrays the document holds.

/// The kind of one JSON value on the tape.
public enum JSONKind: UInt8, Sendable {
    case object, array, string, number, `true`, `false`, null
}

/// One JSON value's place in its line: a flat "tape" entry, the simdjson idea.
///
/// Containers are followed on the tape by their contents (objects as key, value,
/// key, value, ...); `next` is the index just past the whole subtree, so a
/// reader skips a value in O(1). Offsets are byte offsets into the document's
/// `bytes`; `start` of a string is its opening quote, `end` is one past the end.
@usableFromInline
struct JSONNode: Sendable, Equatable {
    @usableFromInline var kind: JSONKind
    /// Bit 0: the string holds at least one backslash escape.
    @usableFromInline var flags: UInt8
    @usableFromInline var start: UInt32
    @usableFromInline var end: UInt32
    @usableFromInline var next: UInt32

    @usableFromInline static let hasEscapes: UInt8 = 1

    @usableFromInline
    init(kind: JSONKind, flags: UInt8, start: UInt32, end: UInt32, next: UInt32) {
        self.kind = kind
        self.flags = flags
        self.start = start
        self.end = end
        self.next = next
    }
}

/// A parsed JSON object: the original bytes, an index of every value, and the
/// changes stages made (kept beside the bytes, never applied in place).
///
/// An unchanged document is written back as its original bytes (minus
/// insignificant whitespace), so values pass through exactly: `1e21`, `-0.0`
/// and 2^63 keep their text.
///
/// Sendable: the storage (a `ManagedBuffer`, which is not) is written before
/// the document is made, and changed after only by a splice that finds it
/// uniquely referenced (`isKnownUniquelyReferenced`), so no other document, on
/// any thread, sees the change (copy on write); the edits are a value.
public struct JSONDocument: @unchecked Sendable {
    /// The line and its tape (`JSONDocumentStorage.swift`), never changed once
    /// made: one reference, so that an event costs one retain, not three, each
    /// time it is copied on its way through the stages and the destinations.
    @usableFromInline var storage: Storage
    /// A copy of the line's text, as read (stages' edits are kept beside it).
    /// Code that only reads the bytes borrows them instead (`withRawBytes`, `appendRaw`, `write`).
    public var bytes: [UInt8] { storage.withBytes { Array($0) } }
    /// The number of bytes in the line.
    @inlinable public var byteCount: Int { storage.byteCount }
    /// The index of every value (see `JSONNode`): internal to this module;
    /// the rest of Sluice reads values through `JSONNodeAccess.swift`.
    @inlinable var tape: Storage {
        @inline(__always) get { storage }
    }
    /// True when the original text has whitespace outside strings.
    @inlinable public var hasInsignificantWhitespace: Bool { storage.hasInsignificantWhitespace }
    /// The bytes the parsed line takes in memory: its text and its index (not
    /// counting the allocation's header, nor edits). What a holder of parsed
    /// lines counts against its limit.
    public var memoryBytes: Int { storage.byteCount + storage.count * MemoryLayout<JSONNode>.stride }
    /// Changes applied by stages, in the order they were made.
    @usableFromInline var edits: JSONEdits

    init(storage: Storage) {
        self.storage = storage
        self.edits = JSONEdits()
    }

    /// Parses one JSON text that must be an object.
    public static func parse(_ bytes: [UInt8]) throws(JSONError) -> JSONDocument {
        try bytes.withUnsafeBufferPointer { buffer throws(JSONError) in
            try parse(buffer)
        }
    }

    /// Parses one JSON text that must be an object; copies the bytes only on success.
    public static func parse(_ buffer: UnsafeBufferPointer<UInt8>) throws(JSONError) -> JSONDocument {
        try parse(buffer, scratch: JSONParser.scratch(for: buffer))
    }

    /// The same with `scratch`, tape space to reuse from line to line (a reader
    /// parsing many keeps one; not optional here: unwrapping one costs a retain per line).
    public static func parse(_ buffer: UnsafeBufferPointer<UInt8>, scratch: JSONParseScratch) throws(JSONError) -> JSONDocument {
        var parser = JSONParser(buffer: buffer, scratch: scratch)
        let storage = try parser.parseDocument()
        guard storage[0].kind == .object else {
            throw JSONError(kind: .notAnObject, offset: 0)
        }
        return JSONDocument(storage: storage)
    }

    /// The deepest nesting a document may have (`nesting_too_deep` beyond it).
    public static var maxDepth: Int { JSONParser.maxDepth }

    /// True once any stage changed the document.
    @inlinable public var isModified: Bool { !edits.isEmpty }

    // MARK: - Reading

    /// The index of the value stored under `key` in the object at `object`, if any.
    /// With duplicate keys the first one is found.
    public func member(_ key: String, of object: Int = 0) -> Int? {
        var key = key
        return key.withUTF8 { member(UnsafeRawBufferPointer($0), of: object) }
    }

    /// The index of the value stored under `key` (raw UTF-8) in the object at `object`.
    public func member(_ key: UnsafeRawBufferPointer, of object: Int = 0) -> Int? {
        guard tape[object].kind == .object else { return nil }
        if edits.isEmpty {
            // No member removed: keys compared by their raw length, then their bytes,
            // through pointers (every event looks up several paths this way).
            return storage.withUnsafeBufferPointer { tape in
                storage.withRawBytes { bytes -> Int? in
                    let end = Int(tape[object].next)
                    let rawLength = key.count + 2
                    var index = object + 1
                    while index < end {
                        let keyNode = tape[index]
                        if keyNode.flags & JSONNode.hasEscapes == 0 {
                            if Int(keyNode.end &- keyNode.start) == rawLength
                                && (rawLength == 2 || ShortBytes.equal(bytes.baseAddress! + Int(keyNode.start) + 1, key.baseAddress!, key.count)) {
                                return index + 1
                            }
                        } else if stringEquals(keyNode, key) {
                            return index + 1
                        }
                        index = Int(tape[index + 1].next)
                    }
                    return nil
                }
            }
        }
        let end = Int(tape[object].next)
        var index = object + 1
        while index < end {
            let keyNode = tape[index]
            if !edits.isRemoved(index) && stringEquals(keyNode, key) {
                return index + 1
            }
            index = Int(tape[index + 1].next)
        }
        return nil
    }

    /// Follows a dotted path of object keys from the root.
    @inlinable public func find(_ path: JSONPath) -> Int? {
        find(path, keys: 0..<path.components.count, from: 0)
    }

    /// Follows the keys `keys` of `path` (a range of its components) from the object at `node`.
    public func find(_ path: JSONPath, keys: Range<Int>, from node: Int) -> Int? {
        precondition(keys.lowerBound >= 0 && keys.upperBound <= path.keyEnds.count, "JSONDocument.find: keys out of the path")
        return path.keyBytes.withUnsafeBytes { bytes in
            path.keyEnds.withUnsafeBufferPointer { ends in
                var node = node
                for index in keys {
                    let start = index == 0 ? 0 : ends[index - 1]
                    guard let next = member(UnsafeRawBufferPointer(rebasing: bytes[start..<ends[index]]), of: node) else { return nil }
                    node = next
                }
                return node
            }
        }
    }

    /// The keys and value indexes of the object at `object`, in order (removed ones left out).
    public func members(of object: Int) -> [(key: Int, value: Int)] {
        guard tape[object].kind == .object else { return [] }
        var result: [(key: Int, value: Int)] = []
        let end = Int(tape[object].next)
        var index = object + 1
        while index < end {
            if !edits.isRemoved(index) { result.append((index, index + 1)) }
            index = Int(tape[index + 1].next)
        }
        return result
    }

    /// The element indexes of the array at `array`.
    public func elements(of array: Int) -> [Int] {
        guard tape[array].kind == .array else { return [] }
        var result: [Int] = []
        let end = Int(tape[array].next)
        var index = array + 1
        while index < end {
            result.append(index)
            index = Int(tape[index].next)
        }
        return result
    }

    /// The raw text of a value, exactly as it was in the input: a copy
    /// (`withRawBytes` lends it without one).
    public func rawBytes(_ node: Int) -> [UInt8] {
        withRawBytes(node) { Array($0) }
    }

    /// Appends the JSON text of the value at `node` as it is in the line (the
    /// encoders' most frequent copy: through a pointer, with no slice to retain).
    @inlinable @inline(__always)
    public func appendRaw<Out: ByteSink>(_ node: Int, to out: inout Out) {
        let start = Int(tape[node].start), end = Int(tape[node].end)
        storage.withBytes { out.append(contentsOf: UnsafeBufferPointer(rebasing: $0[start..<end])) }
    }

    /// `lead`, the node's text as it is, then `trail`: an event's key as a member's start (`,"key":`).
    @inlinable @inline(__always)
    public func appendRaw<Out: ByteSink>(_ node: Int, to out: inout Out, lead: UInt8, trail: UInt8) {
        let start = Int(tape[node].start), end = Int(tape[node].end)
        storage.withRawBytes { out.append(lead, UnsafeRawBufferPointer(rebasing: $0[start..<end]), quoted: false, trail) }
    }

    /// Calls `body` with the decoded UTF-8 of the string at `node` (nil if not a string).
    @inlinable
    public func withString<R>(_ node: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R? {
        let n = tape[node]
        guard n.kind == .string else { return nil }
        if n.flags & JSONNode.hasEscapes == 0 {
            return storage.withRawBytes { raw in
                body(UnsafeRawBufferPointer(rebasing: raw[Int(n.start + 1)..<Int(n.end - 1)]))
            }
        }
        let decoded = storage.withBytes { JSONString.unescape(UnsafeBufferPointer(rebasing: $0[Int(n.start + 1)..<Int(n.end - 1)])) }
        return decoded.withUnsafeBytes(body)
    }

    /// The decoded string at `node`, or nil if it is not a string.
    public func string(_ node: Int) -> String? {
        withString(node) { String(decoding: $0, as: UTF8.self) }
    }

    /// The decoded string at a path, or nil if absent or not a string.
    public func string(at path: JSONPath) -> String? {
        find(path).flatMap { string($0) }
    }

    /// Whether the string node equals `key` (compared after unescaping).
    @inlinable
    func stringEquals(_ node: JSONNode, _ key: UnsafeRawBufferPointer) -> Bool {
        guard node.kind == .string else { return false }
        if node.flags & JSONNode.hasEscapes == 0 {
            let length = Int(node.end - node.start) - 2
            guard length == key.count else { return false }
            return storage.withRawBytes { raw in
                guard length > 0 else { return true }
                return ShortBytes.equal(raw.baseAddress! + Int(node.start) + 1, key.baseAddress!, length)
            }
        }
        let decoded = storage.withBytes { JSONString.unescape(UnsafeBufferPointer(rebasing: $0[Int(node.start + 1)..<Int(node.end - 1)])) }
        return decoded.elementsEqual(key)
    }
}

/// Byte comparison for the short texts keys and names are: up to 16 bytes as
/// two overlapping loads per side instead of a call to memcmp, which costs
/// more than the comparison (keys are compared several times per event).
public enum ShortBytes {
    /// Whether the `count` bytes at `a` and `b` are the same.
    @inlinable @inline(__always)
    public static func equal(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ count: Int) -> Bool {
        if count >= 8 {
            if count > 16 { return memcmp(a, b, count) == 0 }
            return a.loadUnaligned(as: UInt64.self) == b.loadUnaligned(as: UInt64.self)
                && (a + count - 8).loadUnaligned(as: UInt64.self) == (b + count - 8).loadUnaligned(as: UInt64.self)
        }
        if count >= 4 {
            return a.loadUnaligned(as: UInt32.self) == b.loadUnaligned(as: UInt32.self)
                && (a + count - 4).loadUnaligned(as: UInt32.self) == (b + count - 4).loadUnaligned(as: UInt32.self)
        }
        var index = 0
        while index < count {
            if a.load(fromByteOffset: index, as: UInt8.self) != b.load(fromByteOffset: index, as: UInt8.self) { return false }
            index &+= 1
        }
        return true
    }
}

/// A dotted path of object keys (`context.ip`), split once at configuration time.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    public let components: [[UInt8]]
    /// The components end to end, and where each ends: what `find` reads (each
    /// array taken out of `components` for a look-up costs a retain and a release).
    let keyBytes: [UInt8]
    let keyEnds: [Int]

    public init(_ dotted: String) {
        components = dotted.split(separator: ".", omittingEmptySubsequences: false).map { Array($0.utf8) }
        keyBytes = components.flatMap { $0 }
        var end = 0
        keyEnds = components.map { component in
            end += component.count
            return end
        }
    }

    public var description: String {
        components.map { String(decoding: $0, as: UTF8.self) }.joined(separator: ".")
    }
}

/// Why a line is not a JSON object, with the byte offset where it went wrong.
public struct JSONError: Error, Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case unexpectedEnd
        case unexpectedByte(UInt8)
        case invalidEscape
        case invalidUTF8
        case controlCharacterInString
        case invalidNumber
        case nestingTooDeep
        case duplicateKey
        case trailingContent
        case notAnObject
        case emptyInput
    }

    public var kind: Kind
    public var offset: Int

    public var message: String {
        switch kind {
        case .unexpectedEnd: return "unexpected end of input at byte \(offset)"
        case .unexpectedByte(let byte):
            return "unexpected byte 0x\(String(byte, radix: 16, uppercase: false)) at byte \(offset)"
        case .invalidEscape: return "invalid escape sequence at byte \(offset)"
        case .invalidUTF8: return "invalid UTF-8 at byte \(offset)"
        case .controlCharacterInString: return "unescaped control character in string at byte \(offset)"
        case .invalidNumber: return "invalid number at byte \(offset)"
        case .nestingTooDeep: return "nesting deeper than \(JSONParser.maxDepth) at byte \(offset)"
        case .duplicateKey: return "duplicate key at byte \(offset)"
        case .trailingContent: return "content after the JSON value at byte \(offset)"
        case .notAnObject: return "the line is JSON but not an object"
        case .emptyInput: return "empty input"
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
