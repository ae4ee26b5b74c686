/// Writes JSON text together with its index (what `JSONParser` would make of
/// it), so a stage can add a value it builds itself without parsing it again
/// (`JSONDocument.insertingMember(_:into:)`).
///
/// Offsets are from the start of `bytes`, `next` indexes from the start of
/// `nodes`; `insertingMember` moves them into place. Keys and strings given
/// here must need no escaping (the builder checks in debug).
public struct JSONBuilder {
    /// The JSON text written so far.
    @inlinable public var bytes: [UInt8] { text }
    @usableFromInline var text: [UInt8] = []
    @usableFromInline var nodes: [JSONNode] = []
    /// Open objects: their node index, and whether they have a member yet.
    @usableFromInline var open: [(node: Int, hasMembers: Bool)] = []

    @inlinable
    public init(capacity: Int = 256) {
        text.reserveCapacity(capacity)
        nodes.reserveCapacity(32)
    }

    @inlinable
    public mutating func reset() {
        text.removeAll(keepingCapacity: true)
        nodes.removeAll(keepingCapacity: true)
        open.removeAll(keepingCapacity: true)
    }

    /// `"key":` (after a comma when the open object already has a member).
    @inlinable
    public mutating func key(_ key: [UInt8]) {
        assert(!key.contains { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 })
        if let last = open.indices.last {
            if open[last].hasMembers { text.append(UInt8(ascii: ",")) }
            open[last].hasMembers = true
        }
        let start = text.count
        text.append(UInt8(ascii: "\""))
        key.withUnsafeBufferPointer { text.append(contentsOf: $0) }
        text.append(UInt8(ascii: "\""))
        scalar(.string, from: start)
        text.append(UInt8(ascii: ":"))
    }

    /// The same with the key's text prepared once: `"key":` (quotes and colon included).
    @inlinable
    public mutating func key(prepared: [UInt8]) {
        if let last = open.indices.last {
            if open[last].hasMembers { text.append(UInt8(ascii: ",")) }
            open[last].hasMembers = true
        }
        let start = text.count
        // Through a pointer: `append(contentsOf:)` takes an array argument owned, a retain per key.
        prepared.withUnsafeBufferPointer { text.append(contentsOf: $0) }
        nodes.append(JSONNode(kind: .string, flags: 0, start: UInt32(start), end: UInt32(text.count - 1),
                              next: UInt32(nodes.count + 1)))
    }

    /// Prepares a key for `key(prepared:)`.
    public static func prepare(_ key: String) -> [UInt8] { Array("\"\(key)\":".utf8) }

    @inlinable
    public mutating func beginObject() {
        open.append((nodes.count, false))
        nodes.append(JSONNode(kind: .object, flags: 0, start: UInt32(text.count), end: 0, next: 0))
        text.append(UInt8(ascii: "{"))
    }

    @inlinable
    public mutating func endObject() {
        let node = open.removeLast().node
        text.append(UInt8(ascii: "}"))
        nodes[node].end = UInt32(text.count)
        nodes[node].next = UInt32(nodes.count)
    }

    /// A string value of bytes that need no escaping.
    @inlinable
    public mutating func string(appending body: (inout [UInt8]) -> Void) {
        let start = text.count
        text.append(UInt8(ascii: "\""))
        body(&text)
        text.append(UInt8(ascii: "\""))
        scalar(.string, from: start)
    }

    @inlinable
    public mutating func integer(_ value: Int64) {
        let start = text.count
        appendInteger(value, to: &text)
        scalar(.number, from: start)
    }

    @inlinable
    public mutating func boolean(_ value: Bool) {
        let start = text.count
        if value {
            Self.trueText.withUnsafeBufferPointer { text.append(contentsOf: $0) }
        } else {
            Self.falseText.withUnsafeBufferPointer { text.append(contentsOf: $0) }
        }
        scalar(value ? .true : .false, from: start)
    }

    /// A value already parsed (an interned one).
    @inlinable
    public mutating func value(_ fragment: JSONFragment) {
        let byteShift = UInt32(text.count)
        let nodeShift = UInt32(nodes.count)
        fragment.text.withUnsafeBufferPointer { text.append(contentsOf: $0) }
        fragment.nodes.withUnsafeBufferPointer { fragmentNodes in
            for var node in fragmentNodes {
                node.start += byteShift
                node.end += byteShift
                node.next += nodeShift
                nodes.append(node)
            }
        }
    }

    @inlinable
    mutating func scalar(_ kind: JSONKind, from start: Int) {
        nodes.append(JSONNode(kind: kind, flags: 0, start: UInt32(start), end: UInt32(text.count), next: UInt32(nodes.count + 1)))
    }

    @usableFromInline static let trueText = Array("true".utf8)
    @usableFromInline static let falseText = Array("false".utf8)
}
