/// Writes JSON text together with its tape (what `JSONParser` would make of
/// it), so a stage can add a value it builds itself without parsing it again.
///
/// Offsets are from the start of `bytes`, `next` indexes from the start of
/// `nodes`; `JSONDocument.insertingMember` moves them into place. Keys and
/// strings given here must need no escaping (the builder checks in debug).
struct JSONTapeBuilder {
    private(set) var bytes: [UInt8] = []
    private(set) var nodes: [JSONNode] = []
    /// Open objects: their node index, and whether they have a member yet.
    private var open: [(node: Int, hasMembers: Bool)] = []

    init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
        nodes.reserveCapacity(32)
    }

    mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        nodes.removeAll(keepingCapacity: true)
        open.removeAll(keepingCapacity: true)
    }

    /// `"key":` (after a comma when the open object already has a member).
    mutating func key(_ key: [UInt8]) {
        assert(!key.contains { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 })
        if let last = open.indices.last {
            if open[last].hasMembers { bytes.append(UInt8(ascii: ",")) }
            open[last].hasMembers = true
        }
        let start = bytes.count
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: key)
        bytes.append(UInt8(ascii: "\""))
        scalar(.string, from: start)
        bytes.append(UInt8(ascii: ":"))
    }

    /// The same with the key's text prepared once: `"key":` (quotes and colon included).
    mutating func key(prepared: [UInt8]) {
        if let last = open.indices.last {
            if open[last].hasMembers { bytes.append(UInt8(ascii: ",")) }
            open[last].hasMembers = true
        }
        let start = bytes.count
        bytes.append(contentsOf: prepared)
        nodes.append(JSONNode(kind: .string, flags: 0, start: UInt32(start), end: UInt32(bytes.count - 1),
                              next: UInt32(nodes.count + 1)))
    }

    /// Prepares a key for `key(prepared:)`.
    static func prepare(_ key: String) -> [UInt8] { Array("\"\(key)\":".utf8) }

    mutating func beginObject() {
        open.append((nodes.count, false))
        nodes.append(JSONNode(kind: .object, flags: 0, start: UInt32(bytes.count), end: 0, next: 0))
        bytes.append(UInt8(ascii: "{"))
    }

    mutating func endObject() {
        let node = open.removeLast().node
        bytes.append(UInt8(ascii: "}"))
        nodes[node].end = UInt32(bytes.count)
        nodes[node].next = UInt32(nodes.count)
    }

    /// A string value of bytes that need no escaping.
    mutating func string(appending body: (inout [UInt8]) -> Void) {
        let start = bytes.count
        bytes.append(UInt8(ascii: "\""))
        body(&bytes)
        bytes.append(UInt8(ascii: "\""))
        scalar(.string, from: start)
    }

    mutating func integer(_ value: Int64) {
        let start = bytes.count
        appendInteger(value, to: &bytes)
        scalar(.number, from: start)
    }

    mutating func boolean(_ value: Bool) {
        let start = bytes.count
        bytes.append(contentsOf: value ? Self.trueText : Self.falseText)
        scalar(value ? .true : .false, from: start)
    }

    /// A value already parsed: its text and tape (as `JSONDocument` holds them).
    mutating func value(_ text: [UInt8], tape: [JSONNode]) {
        let byteShift = UInt32(bytes.count)
        let nodeShift = UInt32(nodes.count)
        bytes.append(contentsOf: text)
        for var node in tape {
            node.start += byteShift
            node.end += byteShift
            node.next += nodeShift
            nodes.append(node)
        }
    }

    private mutating func scalar(_ kind: JSONKind, from start: Int) {
        nodes.append(JSONNode(kind: kind, flags: 0, start: UInt32(start), end: UInt32(bytes.count), next: UInt32(nodes.count + 1)))
    }

    private static let trueText = Array("true".utf8)
    private static let falseText = Array("false".utf8)
}
