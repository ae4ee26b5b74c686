/// Which paths a template names: how `sluice send` finds a destination's
/// finished files under the output root, whichever event hours and shards wrote them.
extension PathTemplate {
    /// Whether `path` (relative to the output root, as the template is) is a
    /// file this template names for destination `dest`: literals as written,
    /// `{dest}` the name, `{date}` `YYYY-MM-DD`, `{hour}` two digits, `{seq}`
    /// four digits or more, `{shard}` a shard name.
    public func matches(_ path: String, dest: String) -> Bool {
        let bytes = Array(path.utf8)
        return match(bytes[...], segments[...], dest: Array(dest.utf8))
    }

    private func match(_ text: ArraySlice<UInt8>, _ rest: ArraySlice<Segment>, dest: [UInt8]) -> Bool {
        guard let segment = rest.first else { return text.isEmpty }
        let next = rest.dropFirst()
        switch segment {
        case .literal(let literal):
            let bytes = Array(literal.utf8)
            return text.starts(with: bytes) && match(text.dropFirst(bytes.count), next, dest: dest)
        case .dest:
            return text.starts(with: dest) && match(text.dropFirst(dest.count), next, dest: dest)
        case .date:
            let shape: [Bool] = [true, true, true, true, false, true, true, false, true, true]
            guard text.count >= 10 else { return false }
            for (offset, isDigit) in shape.enumerated() {
                let byte = text[text.startIndex + offset]
                if isDigit ? !(48...57).contains(byte) : byte != UInt8(ascii: "-") { return false }
            }
            return match(text.dropFirst(10), next, dest: dest)
        case .hour:
            guard text.count >= 2, text.prefix(2).allSatisfy({ (48...57).contains($0) }) else { return false }
            return match(text.dropFirst(2), next, dest: dest)
        case .seq:
            let digits = text.prefix { (48...57).contains($0) }.count
            guard digits >= 4 else { return false }
            // Digits are greedy but may give back: a literal digit may follow.
            for count in stride(from: digits, through: 4, by: -1) where match(text.dropFirst(count), next, dest: dest) {
                return true
            }
            return false
        case .shard:
            let run = text.prefix { PathSafeName.isNameByte($0) }.count
            for count in stride(from: run, through: 1, by: -1) where match(text.dropFirst(count), next, dest: dest) {
                return true
            }
            return false
        }
    }
}
