/// Whether two outputs' path templates can name the same file, so a pipeline
/// whose destinations would fight over files is refused at load time.
///
/// Each filled template is a simple pattern over bytes: literal bytes (the
/// text and the destination's name), single digits (`{date}`, `{hour}`),
/// `{seq}` (four digits, then any more) and `{shard}` (a shard name: one or
/// more of `[A-Za-z0-9_-]`). Two templates overlap when some name matches
/// both, which a walk over pairs of positions decides exactly (it ignores that
/// a month is at most 12, and that `{shard}` is the same name in both, so it
/// errs towards refusing).
extension PathTemplate {
    enum NameAtom: Equatable {
        case byte(UInt8)
        case digit
        /// Zero or more digits.
        case digits
        /// One character of a shard name.
        case nameCharacter
        /// Zero or more characters of a shard name.
        case nameCharacters

        /// Whether the atom stands for any number of characters (it may also match none).
        var repeats: Bool { self == .digits || self == .nameCharacters }
    }

    /// The pattern of the file names this template gives destination `dest`.
    func nameAtoms(dest: String) -> [NameAtom] {
        var atoms: [NameAtom] = []
        for segment in segments {
            switch segment {
            case .literal(let text): atoms += text.utf8.map(NameAtom.byte)
            case .dest: atoms += dest.utf8.map(NameAtom.byte)
            case .date:
                atoms += [.digit, .digit, .digit, .digit, .byte(UInt8(ascii: "-")), .digit, .digit,
                          .byte(UInt8(ascii: "-")), .digit, .digit]
            case .hour: atoms += [.digit, .digit]
            case .seq: atoms += [.digit, .digit, .digit, .digit, .digits]
            case .shard: atoms += [.nameCharacter, .nameCharacters]
            }
        }
        return atoms
    }

    /// Whether a file of this template for `dest` can have the same path as
    /// one of `other` for `otherDest` (relative templates are under the same
    /// `--out`; a relative and an absolute one are not compared).
    func mayShareFiles(dest: String, with other: PathTemplate, otherDest: String) -> Bool {
        guard isAbsolute == other.isAbsolute else { return false }
        return PathTemplate.intersect(nameAtoms(dest: dest), other.nameAtoms(dest: otherDest))
    }

    static func intersect(_ a: [NameAtom], _ b: [NameAtom]) -> Bool {
        var seen = Set<Int>()
        var stack = [(0, 0)]
        let width = b.count + 1
        while let (i, j) = stack.popLast() {
            guard seen.insert(i * width + j).inserted else { continue }
            if i == a.count && j == b.count { return true }
            if i < a.count, a[i].repeats { stack.append((i + 1, j)) }
            if j < b.count, b[j].repeats { stack.append((i, j + 1)) }
            guard i < a.count, j < b.count, compatible(a[i], b[j]) else { continue }
            stack.append((a[i].repeats ? i : i + 1, b[j].repeats ? j : j + 1))
        }
        return false
    }

    /// Whether some one character matches both atoms (digits are shard-name characters too).
    private static func compatible(_ x: NameAtom, _ y: NameAtom) -> Bool {
        switch (x, y) {
        case let (.byte(p), .byte(q)): return p == q
        case let (.byte(p), .digit), let (.digit, .byte(p)), let (.byte(p), .digits), let (.digits, .byte(p)):
            return p >= UInt8(ascii: "0") && p <= UInt8(ascii: "9")
        case let (.byte(p), _), let (_, .byte(p)): return PathSafeName.isNameByte(p)
        default: return true
        }
    }
}
