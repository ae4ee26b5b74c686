// Unsafe code: the redaction walk asks for every member of every object on an
// exempt path whether its key continues one, with the key as a buffer pointer
// into the document (`UnsafeJSONView.rawStringBody`); the look-up reads its own
// flat arrays through pointers lent for the call. The look-up and the walk on
// spans and bounds-checked reads cost the privacy stage's benchmark 3% more
// instructions (docs/architecture.md).

import SluiceJSON

/// The exempt fields given as plain paths, as a tree of keys the walk follows
/// down: a member whose key completes an exempt path is skipped whole.
///
/// Flat storage (one byte buffer; each node's children side by side), so
/// following it retains nothing: a member whose key has no child's length
/// (most of them) costs one bit test, one that has costs a length compare per
/// child and the key compared a word at a time (`ShortBytes`).
struct ExemptKeys {
    /// No exempt path continues below here.
    static let none = -1
    /// The member is exempt.
    static let skip = -2

    private struct Entry {
        var keyStart: Int
        var keyLength: Int
        var terminal: Bool
        /// This entry's children: `entries[firstChild..<firstChild + childCount]`.
        var firstChild = 0
        var childCount = 0
        /// Bit `length % 64` set for each child's key length.
        var childLengths: UInt64 = 0
    }

    private var bytes: [UInt8] = []
    /// Entry 0 is the root.
    private var entries: [Entry] = []

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
        for node in order {
            let lengths = children[node].reduce(UInt64(0)) { $0 | ExemptKeys.lengthBit(keys[$1].count) }
            entries.append(Entry(keyStart: bytes.count, keyLength: keys[node].count, terminal: terminal[node],
                                 firstChild: children[node].first.map { slot[$0] } ?? 0, childCount: children[node].count,
                                 childLengths: lengths))
            bytes.append(contentsOf: keys[node])
        }
    }

    /// The tree node for the member with key `key` (its raw text, without quotes) below `node`:
    /// `skip` when exempt, `none` when off every path.
    @inline(__always)
    func child(of node: Int, _ key: UnsafeBufferPointer<UInt8>) -> Int {
        guard node >= 0 else { return ExemptKeys.none }
        let length = key.count
        return entries.withUnsafeBufferPointer { entries in
            if entries[node].childLengths & ExemptKeys.lengthBit(length) == 0 { return ExemptKeys.none }
            let first = entries[node].firstChild
            let count = entries[node].childCount
            return bytes.withUnsafeBufferPointer { own in
                for index in first..<(first + count) where entries[index].keyLength == length {
                    if length == 0 || ShortBytes.equal(own.baseAddress! + entries[index].keyStart, key.baseAddress!, length) {
                        return entries[index].terminal ? ExemptKeys.skip : index
                    }
                }
                return ExemptKeys.none
            }
        }
    }

    @inline(__always)
    private static func lengthBit(_ length: Int) -> UInt64 { 1 << UInt64(length & 63) }
}
