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
        base = base.movedToDoubledSpace(count: capacity, capacity: &capacity)
        return base
    }
}

extension UnsafeMutablePointer {
    /// Memory for twice `capacity` elements holding the first `count` of these,
    /// which are moved there and freed; `capacity` is doubled. The growth step of
    /// the parser's tape space and the builder's node and open-object space.
    func movedToDoubledSpace(count: Int, capacity: inout Int) -> UnsafeMutablePointer<Pointee> {
        let larger = UnsafeMutablePointer<Pointee>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: self, count: count)
        deallocate()
        capacity *= 2
        return larger
    }
}
