/// Finds which earlier outputs' path templates a template may overlap, without
/// comparing every pair: thousands of destinations take a moment, not minutes.
///
/// Each template's name pattern (`PathTemplate.nameAtoms`) starts with a head
/// of one-character atoms (bytes and single digits) before its first atom that
/// may stand for several characters (`{seq}`'s tail, `{shard}`). Two names can
/// be equal only if the heads agree where both have one: byte for byte, a digit
/// for any digit byte. The heads go into a trie (a digit atom is an edge of its
/// own); a query walks only the edges its own head can match, so templates
/// that differ in their literal text (`{dest}/…` for different names) never
/// meet. What the walk finds is a candidate, decided by `PathTemplate.intersect`.
struct PathTemplateOverlapIndex {
    private struct Node {
        var children: [UInt16: Int] = [:]
        /// Templates whose head ends here.
        var ending: [Int] = []
        /// Every template whose head passes through or ends here.
        var below: [Int] = []
    }

    private static let digitEdge: UInt16 = 256
    private var nodes = [Node()]

    /// The head of a pattern as trie edges: bytes, and `digitEdge` for a digit atom.
    private static func head(_ atoms: [PathTemplate.NameAtom]) -> [UInt16] {
        var edges: [UInt16] = []
        for atom in atoms {
            switch atom {
            case .byte(let byte): edges.append(UInt16(byte))
            case .digit: edges.append(digitEdge)
            default: return edges
            }
        }
        return edges
    }

    /// Adds template `id`, whose pattern is `atoms`.
    mutating func insert(_ id: Int, atoms: [PathTemplate.NameAtom]) {
        var node = 0
        nodes[0].below.append(id)
        for edge in Self.head(atoms) {
            if let next = nodes[node].children[edge] {
                node = next
            } else {
                nodes.append(Node())
                nodes[node].children[edge] = nodes.count - 1
                node = nodes.count - 1
            }
            nodes[node].below.append(id)
        }
        nodes[node].ending.append(id)
    }

    /// The templates added so far whose names may be some of `atoms`' names, in the order they were added.
    func candidates(for atoms: [PathTemplate.NameAtom]) -> [Int] {
        let head = Self.head(atoms)
        var found: [Int] = []
        // (node, position in head): the trie path so far matches head[..<position].
        var stack = [(0, 0)]
        while let (node, position) = stack.popLast() {
            // A template whose head ends here goes on with a repeating atom: it may match the rest.
            found += nodes[node].ending
            guard position < head.count else {
                // This head ends: whatever goes on below may match its repeating rest.
                found += nodes[node].below
                continue
            }
            let edge = head[position]
            if edge == Self.digitEdge {
                for (child, next) in nodes[node].children where child == Self.digitEdge || (child >= 48 && child <= 57) {
                    stack.append((next, position + 1))
                }
            } else {
                if let next = nodes[node].children[edge] { stack.append((next, position + 1)) }
                if edge >= 48 && edge <= 57, let next = nodes[node].children[Self.digitEdge] { stack.append((next, position + 1)) }
            }
        }
        return Array(Set(found)).sorted()
    }
}
