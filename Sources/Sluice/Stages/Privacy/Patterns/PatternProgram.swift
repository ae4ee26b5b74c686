/// A custom pattern compiled to a Thompson NFA and run as a Pike VM on bytes,
/// in one pass, in time linear in the text (no backtracking and no search
/// started again after each match, so no pattern can make a hostile string
/// slow): what it gives is every stretch some match covers (`forEachMatch`).
///
/// Kept off the fast path: `candidateStart` finds where a match could begin
/// (the pattern's literal prefix with `memmem`-style search, else the set of
/// bytes it can start with), strings shorter than `minLength` are skipped, and
/// the VM only runs from those positions.
struct PatternProgram: Sendable {
    enum Op: Sendable {
        case bytes(Int)
        case split(Int, Int)
        case jump(Int)
        case assertion(PatternAssertion)
        case match
    }

    private(set) var ops: [Op] = []
    private(set) var sets: [ByteSet] = []
    /// Bytes every match starts with (after leading anchors).
    private(set) var prefix: [UInt8] = []
    /// Bytes a match can start with.
    private(set) var firstBytes = ByteSet()
    /// The fewest bytes a match has.
    private(set) var minLength = 0
    /// The most instructions a pattern may compile to: the matcher's worst case
    /// per byte of a string (each byte steps at most one thread per instruction,
    /// `costPerByte`), so a pattern costs at most this many steps per byte.
    static let maxCostPerByte = 500

    enum CompileError: Error, Equatable {
        case emptyMatch
        /// The instructions the pattern would compile to, above `maxCostPerByte`.
        case tooCostly(costPerByte: Int)
    }

    /// `maxCost`: the bound on `costPerByte` (the numbering plan's patterns,
    /// run on a dozen digits at a time, are allowed more).
    init(_ node: PatternNode, maxCost: Int = PatternProgram.maxCostPerByte) throws(CompileError) {
        minLength = PatternProgram.minLength(node)
        guard minLength > 0 else { throw .emptyMatch }
        let cost = PatternProgram.cost(of: node)
        guard cost <= maxCost else { throw .tooCostly(costPerByte: cost) }
        emit(node)
        ops.append(.match)
        prefix = PatternProgram.literalPrefix(node)
        firstBytes = PatternProgram.firstBytes(node).set
    }

    // MARK: - Compiling

    /// The steps the matcher may take per byte of a string: one per instruction at most.
    var costPerByte: Int { ops.count }

    /// `costPerByte` of the program `node` compiles to, counted without compiling it.
    static func cost(of node: PatternNode) -> Int { instructions(node) + 1 }

    /// How many instructions `emit` makes of `node` (capped, so nested repetitions cannot overflow).
    private static func instructions(_ node: PatternNode) -> Int {
        let cap = 1 << 40
        switch node {
        case .bytes, .assertion: return 1
        case .sequence(let items): return Swift.min(cap, items.reduce(0) { $0 + instructions($1) })
        case .alternation(let branches): return Swift.min(cap, branches.reduce(2 * (branches.count - 1)) { $0 + instructions($1) })
        case let .repetition(inner, min, max):
            let one = instructions(inner)
            let optional = max.map { ($0 - min) * (one + 1) } ?? one + 2
            return Swift.min(cap, min * one + optional)
        }
    }

    private mutating func emit(_ node: PatternNode) {
        switch node {
        case .bytes(let set):
            if let existing = sets.firstIndex(of: set) {
                ops.append(.bytes(existing))
            } else {
                sets.append(set)
                ops.append(.bytes(sets.count - 1))
            }
        case .sequence(let items):
            for item in items { emit(item) }
        case .alternation(let branches):
            var jumps: [Int] = []
            for (index, branch) in branches.enumerated() {
                if index < branches.count - 1 {
                    let split = ops.count
                    ops.append(.split(split + 1, 0))
                    emit(branch)
                    jumps.append(ops.count)
                    ops.append(.jump(0))
                    ops[split] = .split(split + 1, ops.count)
                } else {
                    emit(branch)
                }
            }
            for jump in jumps { ops[jump] = .jump(ops.count) }
        case let .repetition(inner, min, max):
            for _ in 0..<min { emit(inner) }
            if let max {
                // Optional copies, nested: x{2,4} = xx(x(x)?)?
                var exits: [Int] = []
                for _ in min..<max {
                    let split = ops.count
                    ops.append(.split(split + 1, 0))
                    exits.append(split)
                    emit(inner)
                }
                for split in exits { ops[split] = .split(split + 1, ops.count) }
            } else {
                let split = ops.count
                ops.append(.split(split + 1, 0))
                emit(inner)
                ops.append(.jump(split))
                ops[split] = .split(split + 1, ops.count)
            }
        case .assertion(let assertion):
            ops.append(.assertion(assertion))
        }
    }

    /// The fewest bytes `node` matches (capped, so nested repetitions cannot overflow).
    private static func minLength(_ node: PatternNode) -> Int {
        let cap = 1 << 40
        switch node {
        case .bytes: return 1
        case .sequence(let items): return Swift.min(cap, items.reduce(0) { $0 + minLength($1) })
        case .alternation(let branches): return branches.map(minLength).min() ?? 0
        case let .repetition(inner, min, _): return Swift.min(cap, min * minLength(inner))
        case .assertion: return 0
        }
    }

    private static func literalPrefix(_ node: PatternNode) -> [UInt8] {
        var prefix: [UInt8] = []
        func walk(_ node: PatternNode) -> Bool {  // false once the prefix ends
            switch node {
            case .bytes(let set):
                guard let byte = set.single else { return false }
                prefix.append(byte)
                return true
            case .sequence(let items):
                for item in items where !walk(item) { return false }
                return true
            case .assertion: return true
            case let .repetition(inner, min, max):
                guard min >= 1 else { return false }
                for _ in 0..<min where !walk(inner) { return false }
                return max == min
            case .alternation: return false
            }
        }
        _ = walk(node)
        return prefix
    }

    /// The bytes a match of `node` can start with, and whether `node` can match
    /// nothing (then what follows it can start a match too, so its bytes count
    /// as well: `[a-z.]*@x` starts at a letter, a dot or `@`).
    private static func firstBytes(_ node: PatternNode) -> (set: ByteSet, canBeEmpty: Bool) {
        switch node {
        case .bytes(let set): return (set, false)
        case .assertion: return (ByteSet(), true)
        case .sequence(let items):
            var result = ByteSet()
            for item in items {
                let first = firstBytes(item)
                result.formUnion(first.set)
                if !first.canBeEmpty { return (result, false) }
            }
            return (result, true)
        case .alternation(let branches):
            var result = ByteSet()
            var canBeEmpty = false
            for branch in branches {
                let first = firstBytes(branch)
                result.formUnion(first.set)
                canBeEmpty = canBeEmpty || first.canBeEmpty
            }
            return (result, canBeEmpty)
        case let .repetition(inner, min, _):
            let first = firstBytes(inner)
            return (first.set, min == 0 || first.canBeEmpty)
        }
    }

    // MARK: - Matching

    /// Reusable thread lists and spans, so matching allocates nothing after warm-up.
    struct Scratch {
        var current: [(pc: Int32, start: Int32)] = []
        var next: [(pc: Int32, start: Int32)] = []
        var marks: [UInt32] = []
        var stamp: UInt32 = 0
        var spans: [(start: Int, end: Int)] = []
        /// Threads stepped, over every call (the linear-time bound is tested on it).
        var steps = 0
    }

    /// The first position at or after `from` where a match could start, or nil.
    func candidateStart(_ text: Span<UInt8>, from: Int) -> Int? {
        let count = text.count
        guard count - from >= minLength else { return nil }
        if let first = prefix.first {
            var position = from
            let last = count - prefix.count
            while position <= last {
                if text[position] == first {
                    var offset = 1
                    while offset < prefix.count && text[position + offset] == prefix[offset] { offset += 1 }
                    if offset == prefix.count { return position }
                }
                position += 1
            }
            return nil
        }
        var position = from
        while position < count {
            if firstBytes.contains(text[position]) { return position }
            position += 1
        }
        return nil
    }

    /// Calls `body` with every stretch of `text` that matches cover, in text
    /// order: overlapping matches are merged into one stretch (for redaction,
    /// every byte any match covers goes), adjacent ones are not.
    ///
    /// One pass of the Pike VM with a thread started at every candidate
    /// position; threads at the same instruction keep the leftmost start, so a
    /// step costs at most one thread per instruction and the whole search is
    /// O(text × pattern), whatever either holds. (Searching again after each
    /// match, as a leftmost-longest iteration does, can read the rest of the
    /// text once per match: quadratic.)
    func forEachMatch(_ text: Span<UInt8>, scratch: inout Scratch, _ body: (Int, Int) -> Void) {
        if scratch.marks.count < ops.count { scratch.marks = [UInt32](repeating: 0, count: ops.count) }
        scratch.current.removeAll(keepingCapacity: true)
        scratch.next.removeAll(keepingCapacity: true)
        scratch.spans.removeAll(keepingCapacity: true)
        var position = 0
        // The next position where the literal prefix occurs (found once, not at every step).
        var nextCandidate = -1
        search: while true {
            // Nothing running: skip to where a match could start (a start whose anchors fail dies at once).
            while scratch.current.isEmpty {
                guard let start = candidateStart(text, from: position) else { break search }
                position = start
                nextCandidate = start
                newStep(&scratch)
                add(&scratch.current, pc: 0, start: position, at: position, text, &scratch.marks, scratch.stamp)
                if scratch.current.isEmpty { position += 1 }
            }
            newStep(&scratch)
            var matched = false
            scratch.steps += scratch.current.count
            for thread in scratch.current {
                switch ops[Int(thread.pc)] {
                case .match:
                    // The list is in start order: the first thread to match has the leftmost start.
                    if !matched {
                        matched = true
                        record(Int(thread.start), position, &scratch.spans)
                    }
                case .bytes(let set):
                    if position < text.count && sets[set].contains(text[position]) {
                        add(&scratch.next, pc: Int(thread.pc) + 1, start: Int(thread.start), at: position + 1, text,
                            &scratch.marks, scratch.stamp)
                    }
                default:
                    break
                }
            }
            if position >= text.count { break }
            position += 1
            if position < text.count {
                if prefix.isEmpty {
                    if firstBytes.contains(text[position]) { nextCandidate = position }
                } else if nextCandidate < position {
                    nextCandidate = candidateStart(text, from: position) ?? Int.max
                }
                // Started after the threads already running: a later start loses to them at the same instruction.
                if nextCandidate == position {
                    add(&scratch.next, pc: 0, start: position, at: position, text, &scratch.marks, scratch.stamp)
                }
            }
            swap(&scratch.current, &scratch.next)
            scratch.next.removeAll(keepingCapacity: true)
        }
        for span in scratch.spans { body(span.start, span.end) }
    }

    /// Adds the match `start..<end` to `spans` (ends arrive in increasing order), merging overlaps.
    private func record(_ start: Int, _ end: Int, _ spans: inout [(start: Int, end: Int)]) {
        var start = start
        while let last = spans.last, last.end > start {
            start = Swift.min(start, last.start)
            spans.removeLast()
        }
        spans.append((start, end))
    }

    private func newStep(_ scratch: inout Scratch) {
        scratch.stamp &+= 1
        if scratch.stamp == 0 {
            for index in scratch.marks.indices { scratch.marks[index] = 0 }
            scratch.stamp = 1
        }
    }

    /// Adds the thread at `pc` and everything reachable from it without reading a byte.
    private func add(_ list: inout [(pc: Int32, start: Int32)], pc: Int, start: Int, at position: Int,
                     _ text: Span<UInt8>, _ marks: inout [UInt32], _ stamp: UInt32) {
        if marks[pc] == stamp { return }
        marks[pc] = stamp
        switch ops[pc] {
        case .jump(let target):
            add(&list, pc: target, start: start, at: position, text, &marks, stamp)
        case let .split(first, second):
            add(&list, pc: first, start: start, at: position, text, &marks, stamp)
            add(&list, pc: second, start: start, at: position, text, &marks, stamp)
        case .assertion(let assertion):
            if PatternProgram.holds(assertion, text, position) {
                add(&list, pc: pc + 1, start: start, at: position, text, &marks, stamp)
            }
        case .bytes, .match:
            list.append((Int32(pc), Int32(start)))
        }
    }

    private static func holds(_ assertion: PatternAssertion, _ text: Span<UInt8>, _ position: Int) -> Bool {
        switch assertion {
        case .start: return position == 0
        case .end: return position == text.count
        case .wordBoundary, .notWordBoundary:
            let before = position > 0 && TextBytes.isWord(text[position - 1])
            let after = position < text.count && TextBytes.isWord(text[position])
            return (before != after) == (assertion == .wordBoundary)
        }
    }
}
