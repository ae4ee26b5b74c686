import SluiceJSON

/// The exempt fields given as plain paths, as a tree of keys the walk follows
/// down: a member whose key completes an exempt path is skipped whole.
///
/// Flat storage (one byte buffer; each node's children side by side), so
/// following it retains nothing. A member's key is looked up by its length and
/// its first eight bytes (read where the key is, `JSONView.head`): a bit test
/// for the length, then one of 64 slots per node for the bytes, which names the
/// only child it can be; a key of up to 16 bytes is then compared as two words,
/// a longer one byte for byte.
struct ExemptKeys {
    /// No exempt path continues below here.
    static let none = -1
    /// The member is exempt.
    static let skip = -2
    /// A slot no child's key falls in, and one two or more fall in.
    private static let emptySlot: Int32 = -1
    private static let sharedSlot: Int32 = -2

    private struct Entry {
        var keyStart: Int
        var keyLength: Int
        var terminal: Bool
        /// This entry's children: `entries[firstChild..<firstChild + childCount]`.
        var firstChild = 0
        var childCount = 0
        /// Bit `length % 64` set for each child's key length.
        var childLengths: UInt64 = 0
        /// The key's first eight bytes and its last eight (`ByteSpans.head`; 0 for a key of up to eight).
        var head: UInt64 = 0
        var tail: UInt64 = 0
    }

    private var bytes: [UInt8] = []
    /// Entry 0 is the root.
    private var entries: [Entry] = []
    /// 64 per entry, by `slot(head)`: the child whose key falls there, `emptySlot` or `sharedSlot`.
    private var slots: [Int32] = []

    init(_ paths: [JSONPath]) {
        // A plain tree first, then laid out breadth first so that siblings are adjacent.
        var keys: [[UInt8]] = [[]]
        var children: [[Int]] = [[]]
        var terminal = [false]
        for path in paths {
            var node = 0
            for component in path.components {
                if let next = children[node].first(where: { keys[$0] == component }) {
                    node = next
                } else {
                    keys.append(component)
                    children.append([])
                    terminal.append(false)
                    children[node].append(keys.count - 1)
                    node = keys.count - 1
                }
            }
            terminal[node] = true
        }
        var order = [0]
        var position = 0
        while position < order.count {
            order.append(contentsOf: children[order[position]])
            position += 1
        }
        var slot = [Int](repeating: 0, count: keys.count)
        for (index, node) in order.enumerated() { slot[node] = index }
        func head(_ key: [UInt8]) -> UInt64 { key.withSpan { ByteSpans.head($0) } }
        func tail(_ key: [UInt8]) -> UInt64 { key.count > 8 ? key.withSpan { ByteSpans.head($0.extracting((key.count - 8)...)) } : 0 }
        for node in order {
            let lengths = children[node].reduce(UInt64(0)) { $0 | ExemptKeys.lengthBit(keys[$1].count) }
            entries.append(Entry(keyStart: bytes.count, keyLength: keys[node].count, terminal: terminal[node],
                                 firstChild: children[node].first.map { slot[$0] } ?? 0, childCount: children[node].count,
                                 childLengths: lengths, head: head(keys[node]), tail: tail(keys[node])))
            bytes.append(contentsOf: keys[node])
            var nodeSlots = [Int32](repeating: ExemptKeys.emptySlot, count: 64)
            for child in children[node] {
                let index = ExemptKeys.slot(head(keys[child]))
                nodeSlots[index] = nodeSlots[index] == ExemptKeys.emptySlot ? Int32(slot[child]) : ExemptKeys.sharedSlot
            }
            slots.append(contentsOf: nodeSlots)
        }
    }

    /// `child(of:_:)` for the member whose key is the string at `key` in `json`,
    /// read where it is (see the type's comment).
    @inline(__always)
    func child(of node: Int, keyAt key: Int, in json: JSONView) -> Int {
        guard node >= 0 else { return ExemptKeys.none }
        let length = json.rawLength(key) &- 2
        if entries[node].childLengths & ExemptKeys.lengthBit(length) == 0 { return ExemptKeys.none }
        let head = json.head(ofStringBody: key)
        let found = slots[node &* 64 &+ ExemptKeys.slot(head)]
        if found == ExemptKeys.emptySlot { return ExemptKeys.none }
        if found == ExemptKeys.sharedSlot { return json.withStringBody(key) { child(of: node, $0) } }
        let candidate = Int(found)
        guard entries[candidate].keyLength == length, entries[candidate].head == head else { return ExemptKeys.none }
        if length > 16 {
            return json.withStringBody(key) { child(of: node, $0) }
        } else if length > 8 {
            guard json.tail(ofStringBody: key) == entries[candidate].tail else { return ExemptKeys.none }
        }
        return entries[candidate].terminal ? ExemptKeys.skip : candidate
    }

    /// The tree node for the member with key `key` (its raw text, without quotes) below `node`:
    /// `skip` when exempt, `none` when off every path.
    func child(of node: Int, _ key: Span<UInt8>) -> Int {
        guard node >= 0 else { return ExemptKeys.none }
        let length = key.count
        let entries = self.entries.span
        if entries[node].childLengths & ExemptKeys.lengthBit(length) == 0 { return ExemptKeys.none }
        let first = entries[node].firstChild
        let count = entries[node].childCount
        let head = ByteSpans.head(key)
        for index in first..<(first + count) where entries[index].keyLength == length && entries[index].head == head {
            // Keys of up to eight bytes are equal when their heads are.
            let start = entries[index].keyStart
            if length <= 8 || ByteSpans.equal(bytes.span.extracting(start..<start + length), key) {
                return entries[index].terminal ? ExemptKeys.skip : index
            }
        }
        return ExemptKeys.none
    }

    @inline(__always)
    private static func lengthBit(_ length: Int) -> UInt64 { 1 << UInt64(length & 63) }

    /// One of 64 slots for a key's first eight bytes (a multiplicative hash's top six bits).
    @inline(__always)
    private static func slot(_ head: UInt64) -> Int { Int(truncatingIfNeeded: (head &* 0x9E37_79B9_7F4A_7C15) >> 58) }
}
