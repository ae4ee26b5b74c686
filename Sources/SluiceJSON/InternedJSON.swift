// Unsafe code: `withUnsafeBytes`/`withUnsafeBufferPointer` over its own arrays,
// to hash a text as one block, to parse one with the parser (which takes a
// buffer), and to read a fragment without copying it (two retains). Every
// pointer is used only during its call; ids are checked against the count.

/// JSON texts stored once however many holders share them, counted by reference,
/// each with its index (parsed once, when first interned).
///
/// The `session` stage keeps each device's settings and allowlisted traits
/// here: most devices share a handful of distinct values (`{"plan":"pro"}`),
/// so a device pays a 4-byte id instead of an array. An id whose last holder
/// lets go is reused. Id 0 is "none" and is never counted.
public struct InternedJSON {
    private var texts: [[UInt8]] = [[]]
    @usableFromInline private(set) var fragments: [JSONFragment] = [JSONFragment(text: [], nodes: [])]
    private var references: [UInt32] = [0]
    private var ids: [Text: UInt32] = [:]
    private var freeIDs: [UInt32] = []

    public init() {}

    /// A text as a dictionary key, hashed as one block of bytes (an array of
    /// bytes hashes element by element: a call per byte).
    private struct Text: Hashable {
        let bytes: [UInt8]

        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    /// Distinct texts held right now.
    public var count: Int { ids.count }

    public subscript(id: UInt32) -> [UInt8] { texts[Int(id)] }

    /// The value `id` with its index, for `JSONBuilder.value`.
    public func fragment(_ id: UInt32) -> JSONFragment { fragments[Int(id)] }

    /// Appends the value `id` to `builder`, read where it is kept (`fragment` hands out a copy: two retains).
    @inlinable
    public func append(_ id: UInt32, to builder: JSONBuilder) {
        precondition(Int(id) < fragments.count, "InternedJSON.append: unknown id")
        fragments.withUnsafeBufferPointer { builder.value($0[Int(id)]) }
    }

    /// The id of `text` (one compact JSON value), with one more reference to it.
    public mutating func intern(_ text: [UInt8]) -> UInt32 {
        if let id = ids[Text(bytes: text)] {
            references[Int(id)] += 1
            return id
        }
        // Values are objects here (settings, traits); wrap to parse any value all the same.
        let nodes: [JSONNode]
        if let parsed = try? JSONDocument.parse(Array(#"{"v":"#.utf8) + text + Array("}".utf8)) {
            nodes = parsed.tape.withUnsafeBufferPointer { tape in
                tape[2...].map { node in
                    var node = node
                    node.start -= 5
                    node.end -= 5
                    node.next -= 2
                    return node
                }
            }
        } else {
            preconditionFailure("interned text is not one JSON value")
        }
        let id: UInt32
        if let reused = freeIDs.popLast() {
            id = reused
            texts[Int(id)] = text
            fragments[Int(id)] = JSONFragment(text: text, nodes: nodes)
            references[Int(id)] = 1
        } else {
            id = UInt32(texts.count)
            texts.append(text)
            fragments.append(JSONFragment(text: text, nodes: nodes))
            references.append(1)
        }
        ids[Text(bytes: text)] = id
        return id
    }

    /// Every id held right now, in increasing order, with its text.
    public func forEachHeld(_ body: (UInt32, [UInt8]) -> Void) {
        for id in 1..<texts.count where references[id] > 0 { body(UInt32(id), texts[id]) }
    }

    /// Whether `text` is one JSON value, as `intern` requires.
    public static func isOneValue(_ text: [UInt8]) -> Bool {
        text.withUnsafeBufferPointer { buffer in
            let scratch = JSONParser.scratch(for: buffer)
            return withExtendedLifetime(scratch) {
                var parser = JSONParser(buffer: buffer, scratch: scratch)
                return (try? parser.parseValue()) != nil
            }
        }
    }

    public mutating func retain(_ id: UInt32) {
        if id != 0 { references[Int(id)] += 1 }
    }

    public mutating func release(_ id: UInt32) {
        guard id != 0 else { return }
        references[Int(id)] -= 1
        if references[Int(id)] == 0 {
            ids[Text(bytes: texts[Int(id)])] = nil
            texts[Int(id)] = []
            fragments[Int(id)] = JSONFragment(text: [], nodes: [])
            freeIDs.append(id)
        }
    }
}

/// One JSON value's text and its index, ready to be copied into a `JSONBuilder`.
public struct JSONFragment: Sendable {
    /// The value's compact JSON text.
    public let text: [UInt8]
    @usableFromInline let nodes: [JSONNode]
}
