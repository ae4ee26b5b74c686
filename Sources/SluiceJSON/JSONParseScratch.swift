// Unsafe code: the scratch owns `base`, `entries` and `frames` (allocated
// here, freed in deinit); the parser writes nodes below `capacity`, growing it
// first when full, string entries below `entryCapacity` (reserved for each line
// before stage 1 writes), and at most `JSONParser.maxDepth` frames.

/// Space for the parser, reused line after line by one reader (the runner
/// keeps one): the tape, stage 1's string entries and the stack of open
/// containers. Grows as a line needs, never shrinks.
public final class JSONParseScratch {
    @exclusivity(unchecked) private(set) var base: UnsafeMutablePointer<JSONNode>
    @exclusivity(unchecked) private(set) var capacity: Int
    /// Stage 1's output: one offset per string (see `sluice_json_scan_strings`).
    @exclusivity(unchecked) private(set) var entries: UnsafeMutablePointer<UInt32>
    @exclusivity(unchecked) private(set) var entryCapacity: Int
    /// The open containers' state, one frame per nesting level.
    let frames: UnsafeMutablePointer<JSONParser.Frame>
    /// Stage 1's implementation for the lines parsed with this scratch
    /// (`sluice_json_scan_strings_at_level`, at most `sluice_json_scan_level()`),
    /// or -1 for the best this CPU has: the tests run the parser on each.
    @exclusivity(unchecked) var scanLevel: Int32 = -1

    public init(capacity: Int = 256) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
        entryCapacity = 0
        entries = .allocate(capacity: 0)
        frames = .allocate(capacity: JSONParser.maxDepth + 1)
    }

    deinit {
        base.deallocate()
        entries.deallocate()
        frames.deallocate()
    }

    /// Doubles the space, keeping the nodes written so far; returns the new base.
    func grow() -> UnsafeMutablePointer<JSONNode> {
        base = base.movedToDoubledSpace(count: capacity, capacity: &capacity)
        return base
    }

    /// Room for at least `count` entries (their contents are not kept); returns the space.
    func reserveEntries(_ count: Int) -> UnsafeMutablePointer<UInt32> {
        if count > entryCapacity {
            entries.deallocate()
            entryCapacity = max(count, entryCapacity * 2)
            entries = .allocate(capacity: entryCapacity)
        }
        return entries
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
