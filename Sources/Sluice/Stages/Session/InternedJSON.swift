/// JSON texts stored once however many holders share them, counted by reference,
/// each with its tape (parsed once, when first interned).
///
/// The `session` stage keeps each device's settings and allowlisted traits
/// here: most devices share a handful of distinct values (`{"plan":"pro"}`),
/// so a device pays a 4-byte id instead of an array. An id whose last holder
/// lets go is reused. Id 0 is "none" and is never counted.
struct InternedJSON {
    private var texts: [[UInt8]] = [[]]
    private var tapes: [[JSONNode]] = [[]]
    private var references: [UInt32] = [0]
    private var ids: [[UInt8]: UInt32] = [:]
    private var freeIDs: [UInt32] = []

    /// Distinct texts held right now.
    var count: Int { ids.count }

    subscript(id: UInt32) -> [UInt8] { texts[Int(id)] }

    func tape(_ id: UInt32) -> [JSONNode] { tapes[Int(id)] }

    /// The id of `text` (one compact JSON value), with one more reference to it.
    mutating func intern(_ text: [UInt8]) -> UInt32 {
        if let id = ids[text] {
            references[Int(id)] += 1
            return id
        }
        // Values are objects here (settings, traits); wrap to parse any value all the same.
        let tape: [JSONNode]
        if let parsed = try? JSONDocument.parse(Array(#"{"v":"#.utf8) + text + Array("}".utf8)) {
            tape = parsed.tape[2...].map { node in
                var node = node
                node.start -= 5
                node.end -= 5
                node.next -= 2
                return node
            }
        } else {
            preconditionFailure("interned text is not one JSON value")
        }
        let id: UInt32
        if let reused = freeIDs.popLast() {
            id = reused
            texts[Int(id)] = text
            tapes[Int(id)] = tape
            references[Int(id)] = 1
        } else {
            id = UInt32(texts.count)
            texts.append(text)
            tapes.append(tape)
            references.append(1)
        }
        ids[text] = id
        return id
    }

    /// Every id held right now, in increasing order, with its text.
    func forEachHeld(_ body: (UInt32, [UInt8]) -> Void) {
        for id in 1..<texts.count where references[id] > 0 { body(UInt32(id), texts[id]) }
    }

    /// Whether `text` is one JSON value, as `intern` requires.
    static func isOneValue(_ text: [UInt8]) -> Bool {
        text.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(buffer: buffer)
            var tape: [JSONNode] = []
            return (try? parser.parseDocument(into: &tape)) != nil
        }
    }

    mutating func retain(_ id: UInt32) {
        if id != 0 { references[Int(id)] += 1 }
    }

    mutating func release(_ id: UInt32) {
        guard id != 0 else { return }
        references[Int(id)] -= 1
        if references[Int(id)] == 0 {
            ids[texts[Int(id)]] = nil
            texts[Int(id)] = []
            tapes[Int(id)] = []
            freeIDs.append(id)
        }
    }
}
