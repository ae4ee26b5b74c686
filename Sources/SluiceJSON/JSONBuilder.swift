// Unsafe code: the builder keeps its nodes and open objects in memory it
// allocates (`nodeBase`, `openBase`), so adding a member is a capacity check
// and a store, not an array's uniqueness check (the `session` stage adds eight
// to every event). It owns both (freed in deinit) and writes below their
// capacities, growing them first.

/// Writes JSON text together with its index (what `JSONParser` would make of
/// it), so a stage can add a value it builds itself without parsing it again
/// (`JSONDocument.insertingMember(_:into:)`).
///
/// Offsets are from the start of `bytes`, `next` indexes from the start of
/// the nodes; `insertingMember` moves them into place. Keys and strings given
/// here must need no escaping (the builder checks in debug).
///
/// A class that a stage keeps and resets for each event: the text goes into a
/// `ByteBuffer` and the nodes into memory of its own, so a member costs a
/// capacity check and a copy, not an array's uniqueness checks and generic
/// appends (the `session` stage writes eight members into every event).
public final class JSONBuilder {
    // Unsafe code: the builder owns `nodeBase` and `openBase` (allocated here,
    // freed in deinit) and writes below their capacities, growing them first.
    @usableFromInline let text: ByteBuffer
    @exclusivity(unchecked) @usableFromInline var nodeBase: UnsafeMutablePointer<JSONNode>
    @exclusivity(unchecked) @usableFromInline var nodeCount = 0
    @exclusivity(unchecked) @usableFromInline var nodeCapacity: Int
    /// Open objects, innermost last: each one's node index, shifted left
    /// once, with the low bit set when it has a member already.
    @exclusivity(unchecked) @usableFromInline var openBase: UnsafeMutablePointer<Int>
    @exclusivity(unchecked) @usableFromInline var openCount = 0
    @exclusivity(unchecked) @usableFromInline var openCapacity: Int

    public init(capacity: Int = 256) {
        text = ByteBuffer(capacity: capacity)
        nodeCapacity = 32
        nodeBase = .allocate(capacity: nodeCapacity)
        openCapacity = 8
        openBase = .allocate(capacity: openCapacity)
    }

    deinit {
        nodeBase.deallocate()
        openBase.deallocate()
    }

    /// The JSON text written so far, as an array (a copy).
    public var bytes: [UInt8] { text.array }

    /// The text written so far, valid until the next change.
    @inlinable var textBytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: text.base, count: text.count) }

    /// The nodes written so far, valid until the next change.
    @inlinable var nodes: UnsafeBufferPointer<JSONNode> { UnsafeBufferPointer(start: nodeBase, count: nodeCount) }

    @inlinable
    public func reset() {
        text.removeAll()
        nodeCount = 0
        openCount = 0
    }

    /// `"key":` (after a comma when the open object already has a member).
    @inlinable
    public func key(_ key: [UInt8]) {
        assert(!key.contains { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 })
        key.withUnsafeBytes { self.key(raw: $0) }
    }

    /// The same with a key written in the code.
    @inlinable
    public func key(_ key: StaticString) {
        self.key(raw: UnsafeRawBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
    }

    @inlinable
    func key(raw key: UnsafeRawBufferPointer) {
        var start = text.count
        if openCount > 0 {
            let last = openBase[openCount &- 1]
            if last & 1 != 0 {
                // `,"key":` in one append; the key's node starts after the comma.
                text.append(UInt8(ascii: ","), key, quoted: true, UInt8(ascii: ":"))
                start &+= 1
                push(JSONNode(kind: .string, flags: 0, start: UInt32(start), end: UInt32(text.count &- 1),
                              next: UInt32(nodeCount &+ 1)))
                return
            }
            openBase[openCount &- 1] = last | 1
        }
        text.append(UInt8(ascii: "\""))
        text.append(raw: key)
        text.append(UInt8(ascii: "\""))
        push(JSONNode(kind: .string, flags: 0, start: UInt32(start), end: UInt32(text.count), next: UInt32(nodeCount &+ 1)))
        text.append(UInt8(ascii: ":"))
    }

    @inlinable
    public func beginObject() {
        if openCount == openCapacity { growOpen() }
        openBase[openCount] = nodeCount << 1
        openCount &+= 1
        push(JSONNode(kind: .object, flags: 0, start: UInt32(text.count), end: 0, next: 0))
        text.append(UInt8(ascii: "{"))
    }

    @inlinable
    public func endObject() {
        precondition(openCount > 0, "JSONBuilder.endObject without an open object")
        openCount &-= 1
        let node = openBase[openCount] >> 1
        text.append(UInt8(ascii: "}"))
        nodeBase[node].end = UInt32(text.count)
        nodeBase[node].next = UInt32(nodeCount)
    }

    /// A string value of `count` bytes that need no escaping, written by `body`
    /// into the space it is given.
    @inlinable
    public func string(count: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Void) {
        let start = text.count
        text.reserve(count &+ 2)
        text.append(UInt8(ascii: "\""))
        body(text.base + text.count)
        text.advance(by: count)
        text.append(UInt8(ascii: "\""))
        scalar(.string, from: start)
    }

    @inlinable
    public func integer(_ value: Int64) {
        let start = text.count
        var out = text
        appendInteger(value, to: &out)
        scalar(.number, from: start)
    }

    @inlinable
    public func boolean(_ value: Bool) {
        let start = text.count
        let literal: StaticString = value ? "true" : "false"
        text.append(raw: UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
        scalar(value ? .true : .false, from: start)
    }

    /// A value already parsed (an interned one).
    @inlinable
    public func value(_ fragment: JSONFragment) {
        let byteShift = UInt32(text.count)
        let nodeShift = UInt32(nodeCount)
        // Through pointers: reading the fragment's arrays whole would retain them.
        fragment.text.withUnsafeBytes { text.append(raw: $0) }
        fragment.nodes.withUnsafeBufferPointer { fragmentNodes in
            for var node in fragmentNodes {
                node.start += byteShift
                node.end += byteShift
                node.next += nodeShift
                push(node)
            }
        }
    }

    @inlinable
    func scalar(_ kind: JSONKind, from start: Int) {
        push(JSONNode(kind: kind, flags: 0, start: UInt32(start), end: UInt32(text.count), next: UInt32(nodeCount &+ 1)))
    }

    @inlinable @inline(__always)
    func push(_ node: JSONNode) {
        if nodeCount == nodeCapacity { growNodes() }
        nodeBase[nodeCount] = node
        nodeCount &+= 1
    }

    @usableFromInline @inline(never)
    func growNodes() {
        nodeBase = nodeBase.movedToDoubledSpace(count: nodeCount, capacity: &nodeCapacity)
    }

    @usableFromInline @inline(never)
    func growOpen() {
        openBase = openBase.movedToDoubledSpace(count: openCount, capacity: &openCapacity)
    }
}
