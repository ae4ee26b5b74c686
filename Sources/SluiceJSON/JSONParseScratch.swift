// Unsafe code: the scratch owns `base` (allocated here, freed in deinit);
// the parser writes nodes below `capacity`, growing it first when full.

/// Tape space for the parser, reused line after line by one reader (the
/// runner keeps one); grows as a line needs, never shrinks.
public final class JSONParseScratch {
    private(set) var base: UnsafeMutablePointer<JSONNode>
    private(set) var capacity: Int

    public init(capacity: Int = 256) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// Doubles the space, keeping the nodes written so far; returns the new base.
    func grow() -> UnsafeMutablePointer<JSONNode> {
        let larger = UnsafeMutablePointer<JSONNode>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: base, count: capacity)
        base.deallocate()
        base = larger
        capacity *= 2
        return larger
    }
}
