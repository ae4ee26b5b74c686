// Unsafe code: `applied(to:)` copies the old bytes and index into a new
// document's storage through buffer pointers, in ranges computed from sorted,
// non-overlapping changes; the storage is made with exactly the sizes it fills.
// `apply(to:)` moves one value's bytes and index within a storage only its
// document holds, after checking that the new line fits in its room.

/// A batch of changes written straight into a document's bytes and tape:
/// scalar values replaced by new scalars, and object members removed.
///
/// The result has no pending edits, so the writer still copies the line in one
/// piece and readers (later stages, destinations) find the new values on the
/// tape. Cost: one copy of the bytes and one pass over the tape, whatever the
/// number of changes; nothing is parsed again. This is how a stage that changes
/// most events (the `privacy` stage truncates every `context.ip`) stays cheap.
///
/// Invariants the caller keeps: changes do not overlap (a replaced value is not
/// inside a removed member), and the document has no pending edits.
public struct JSONSplice {
    @usableFromInline
    struct Change {
        /// The byte range of the original text that goes.
        var start: Int
        var end: Int
        /// The replacement text, a range of `text` (empty for a removal).
        var textStart: Int
        var textEnd: Int
        /// The replaced scalar's tape index, or -1 for a removal.
        var node: Int
        var kind: JSONKind
        var flags: UInt8
        /// The tape indexes that go (a removed member's key and value subtree).
        var removedStart: Int
        var removedEnd: Int

        @usableFromInline
        init(start: Int, end: Int, textStart: Int, textEnd: Int, node: Int, kind: JSONKind, flags: UInt8, removedStart: Int, removedEnd: Int) {
            self.start = start
            self.end = end
            self.textStart = textStart
            self.textEnd = textEnd
            self.node = node
            self.kind = kind
            self.flags = flags
            self.removedStart = removedStart
            self.removedEnd = removedEnd
        }
    }

    @usableFromInline private(set) var changes: [Change] = []
    /// Replacement texts, back to back.
    @usableFromInline private(set) var text: [UInt8] = []

    public init() {
        changes.reserveCapacity(8)
        text.reserveCapacity(256)
    }

    @inlinable public var isEmpty: Bool { changes.isEmpty }

    public mutating func reset() {
        changes.removeAll(keepingCapacity: true)
        text.removeAll(keepingCapacity: true)
    }

    /// Replaces the scalar at `node` by a JSON string whose body `appendBody`
    /// writes (already escaped as JSON requires); returns false if `node` is not a scalar.
    @discardableResult
    public mutating func replaceString(_ node: Int, in document: JSONDocument, appendBody: (inout [UInt8]) -> Void) -> Bool {
        let old = document.tape[node]
        guard old.kind != .object && old.kind != .array else { return false }
        let textStart = text.count
        text.append(UInt8(ascii: "\""))
        appendBody(&text)
        text.append(UInt8(ascii: "\""))
        var flags: UInt8 = 0
        for index in (textStart + 1)..<(text.count - 1) where text[index] == UInt8(ascii: "\\") {
            flags = JSONNode.hasEscapes
            break
        }
        changes.append(Change(start: Int(old.start), end: Int(old.end), textStart: textStart, textEnd: text.count,
                              node: node, kind: .string, flags: flags, removedStart: 0, removedEnd: 0))
        return true
    }

    /// Replaces the string at tape index `node`, spanning bytes `start..<end`
    /// (quotes included), by a string with the body `body` (escaped JSON).
    @inlinable
    public mutating func replaceString(node: Int, start: Int, end: Int, body: some Collection<UInt8>) {
        let textStart = text.count
        text.append(UInt8(ascii: "\""))
        text.append(contentsOf: body)
        text.append(UInt8(ascii: "\""))
        let flags = body.contains(UInt8(ascii: "\\")) ? JSONNode.hasEscapes : 0
        changes.append(Change(start: start, end: end, textStart: textStart, textEnd: text.count,
                              node: node, kind: .string, flags: flags, removedStart: 0, removedEnd: 0))
    }

    /// Replaces the scalar at `node` by `value` (decoded UTF-8, escaped here).
    @discardableResult
    public mutating func replaceString(_ node: Int, in document: JSONDocument, with value: some Collection<UInt8>) -> Bool {
        replaceString(node, in: document) { out in
            var quoted: [UInt8] = []
            JSONString.appendQuoted(value, to: &quoted)
            out.append(contentsOf: quoted[1..<(quoted.count - 1)])
        }
    }

    /// Removes the members whose keys are at the tape indexes `keys` (sorted,
    /// all of the object at `object`) with the commas and whitespace between
    /// them, so that the members left are still separated by exactly one comma.
    public mutating func removeMembers(_ keys: [Int], of object: Int, in document: JSONDocument) {
        let tape = document.tape
        var members: [Int] = []
        var index = object + 1
        while index < Int(tape[object].next) {
            members.append(index)
            index = Int(tape[index + 1].next)
        }
        var position = 0
        while position < members.count {
            guard keys.contains(members[position]) else {
                position += 1
                continue
            }
            // A run of removed members, first..<after.
            let first = position
            while position < members.count && keys.contains(members[position]) { position += 1 }
            let after = position
            let firstKey = members[first]
            let lastValueEnd = Int(tape[members[after - 1] + 1].next)
            var start = Int(tape[firstKey].start)
            var end = Int(tape[members[after - 1] + 1].end)
            if first > 0 {
                // From the end of the member before (its comma goes with the run).
                start = Int(tape[members[first - 1] + 1].end)
            } else if after < members.count {
                // Leading run: up to the next member's key (the comma after the run goes).
                end = Int(tape[members[after]].start)
            }
            changes.append(Change(start: start, end: end, textStart: 0, textEnd: 0, node: -1, kind: .null, flags: 0,
                                  removedStart: firstKey, removedEnd: lastValueEnd))
        }
    }

    /// Cumulative byte deltas and removed-node counts, kept between calls so applying allocates only the result.
    private var byteShift: [Int] = []
    private var removed: [(start: Int, end: Int)] = []
    private var removedShift: [Int] = []

    /// Applies every change to `document`: in its own storage when that is not
    /// shared and has room (one value replaced, as a truncated IP: no allocation,
    /// and only the bytes after the value move), else into a new one (`applied`).
    public mutating func apply(to document: inout JSONDocument) {
        precondition(!document.isModified, "splice a document with pending edits")
        guard !changes.isEmpty else { return }
        checkFits(document)
        if changes.count == 1 && changes[0].node >= 0 && isKnownUniquelyReferenced(&document.storage) {
            let change = changes[0]
            let storage = document.storage
            if text.withUnsafeBufferPointer({ JSONSplice.replaceInPlace(change, text: $0, in: storage) }) { return }
        }
        document = applied(to: document)
    }

    /// The document with every change applied. Changes may have been added in any order.
    public mutating func applied(to document: JSONDocument) -> JSONDocument {
        precondition(!document.isModified, "splice a document with pending edits")
        guard !changes.isEmpty else { return document }
        checkFits(document)
        if changes.count == 1 && changes[0].node >= 0 {
            // One value replaced (a truncated IP, most often): no shifts to tabulate.
            let change = changes[0]
            return text.withUnsafeBufferPointer { JSONSplice.replacingOne(change, text: $0, in: document.storage) }
        }
        if changes.count > 1 { changes.sort { $0.start < $1.start } }
        // Byte deltas and removed tape counts, cumulative, in byte order.
        byteShift.removeAll(keepingCapacity: true)
        byteShift.append(0)
        removed.removeAll(keepingCapacity: true)
        for (index, change) in changes.enumerated() {
            byteShift.append(byteShift[index] + (change.textEnd - change.textStart) - (change.end - change.start))
            if change.removedEnd > change.removedStart { removed.append((change.removedStart, change.removedEnd)) }
        }
        if removed.count > 1 { removed.sort { $0.start < $1.start } }
        removedShift.removeAll(keepingCapacity: true)
        removedShift.append(0)
        for (index, range) in removed.enumerated() { removedShift.append(removedShift[index] + range.end - range.start) }
        let old = document.storage
        let storage = JSONDocument.Storage.make(nodeCount: old.count - removedShift[removed.count],
                                                byteCount: old.byteCount + byteShift[changes.count],
                                                hasInsignificantWhitespace: old.hasInsignificantWhitespace) { tape, bytes in
            changes.withUnsafeBufferPointer { sorted in
                text.withUnsafeBufferPointer { text in
                    old.withBytes { JSONSplice.splice($0, sorted, text, into: bytes) }
                }
                byteShift.withUnsafeBufferPointer { byteShift in
                    removed.withUnsafeBufferPointer { removed in
                        removedShift.withUnsafeBufferPointer { removedShift in
                            old.withUnsafeBufferPointer { oldTape in
                                JSONSplice.shiftTape(oldTape, into: tape, count: oldTape.count - removedShift[removed.count],
                                                     sorted: sorted, byteShift: byteShift, removed: removed, removedShift: removedShift)
                            }
                        }
                    }
                }
            }
        }
        return JSONDocument(storage: storage)
    }

    /// Offsets are kept in 32 bits and moved with wrapping arithmetic: the
    /// spliced line must stay under 4 GiB (the runner's lines are at most 1 GiB).
    private func checkFits(_ document: JSONDocument) {
        var growth = 0
        for change in changes { growth += (change.textEnd - change.textStart) - (change.end - change.start) }
        precondition(document.storage.byteCount + growth < Int(UInt32.max), "spliced JSON text over 4 GiB")
    }

    /// The document with the one scalar `change` names replaced: the tape copied, the
    /// containers around the value lengthened, and what follows it moved.
    private static func replacingOne(_ change: Change, text: UnsafeBufferPointer<UInt8>, in old: JSONDocument.Storage) -> JSONDocument {
        let shift = (change.textEnd - change.textStart) - (change.end - change.start)
        let delta = UInt32(bitPattern: Int32(shift))
        let position = UInt32(change.start)
        let storage = JSONDocument.Storage.make(nodeCount: old.count, byteCount: old.byteCount + shift,
                                                hasInsignificantWhitespace: old.hasInsignificantWhitespace) { tape, bytes in
            old.withBytes { oldBytes in
                withUnsafePointer(to: change) { JSONSplice.splice(oldBytes, UnsafeBufferPointer(start: $0, count: 1), text, into: bytes) }
            }
            old.withUnsafeBufferPointer { oldTape in
                tape.initialize(from: oldTape.baseAddress!, count: oldTape.count)
                for index in 0..<change.node where tape[index].end > position {
                    tape[index].end &+= delta  // a container around the value
                }
                tape[change.node].end = UInt32(change.start + change.textEnd - change.textStart)
                tape[change.node].kind = change.kind
                tape[change.node].flags = change.flags
                for index in (change.node + 1)..<oldTape.count {
                    tape[index].start &+= delta
                    tape[index].end &+= delta
                }
            }
        }
        return JSONDocument(storage: storage)
    }

    /// `replacingOne` done in `storage` itself, which nothing else holds; false
    /// (and nothing changed) when the new line would not fit in its room.
    private static func replaceInPlace(_ change: Change, text: UnsafeBufferPointer<UInt8>,
                                       in storage: JSONDocument.Storage) -> Bool {
        let textCount = change.textEnd - change.textStart
        let shift = textCount - (change.end - change.start)
        let delta = UInt32(bitPattern: Int32(shift))
        let position = UInt32(change.start)
        return storage.withUnsafeMutablePointers { header, tape in
            let count = header.pointee.byteCount
            guard count + shift <= header.pointee.byteCapacity else { return false }
            let bytes = UnsafeMutableRawPointer(tape + header.pointee.nodeCount)
            // What follows the value moves first (copyMemory is a memmove: the regions may overlap), then the new text.
            (bytes + change.start + textCount).copyMemory(from: bytes + change.end, byteCount: count - change.end)
            if textCount > 0 { (bytes + change.start).copyMemory(from: text.baseAddress! + change.textStart, byteCount: textCount) }
            header.pointee.byteCount = count + shift
            for index in 0..<change.node where tape[index].end > position {
                tape[index].end &+= delta  // a container around the value
            }
            tape[change.node].end = UInt32(change.start + textCount)
            tape[change.node].kind = change.kind
            tape[change.node].flags = change.flags
            for index in (change.node + 1)..<header.pointee.nodeCount {
                tape[index].start &+= delta
                tape[index].end &+= delta
            }
            return true
        }
    }

    /// Writes the new line to `out`: the kept runs of `old` and the replacement
    /// texts of `sorted` (in byte order), through pointers, every byte once.
    private static func splice(_ old: UnsafeBufferPointer<UInt8>, _ sorted: UnsafeBufferPointer<Change>,
                               _ text: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) {
        var written = 0
        func copy(_ from: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
            guard !range.isEmpty else { return }
            (out + written).initialize(from: from.baseAddress! + range.lowerBound, count: range.count)
            written += range.count
        }
        var copied = 0
        for change in sorted {
            copy(old, copied..<change.start)
            copy(text, change.textStart..<change.textEnd)
            copied = change.end
        }
        copy(old, copied..<old.count)
    }

    /// The old tape without the removed nodes, offsets and indexes moved.
    private static func shiftTape(_ oldTape: UnsafeBufferPointer<JSONNode>, into buffer: UnsafeMutablePointer<JSONNode>, count: Int,
                                  sorted: UnsafeBufferPointer<Change>, byteShift: UnsafeBufferPointer<Int>,
                                  removed: UnsafeBufferPointer<(start: Int, end: Int)>, removedShift: UnsafeBufferPointer<Int>) {
        /// How many of `count` sorted starts lie below `value` (the first index whose start is not below it).
        func countBelow(_ value: Int, _ count: Int, start: (Int) -> Int) -> Int {
            var low = 0, high = count
            while low < high {
                let middle = (low + high) / 2
                if start(middle) < value { low = middle + 1 } else { high = middle }
            }
            return low
        }
        /// The byte delta of the changes that start before `position`.
        func bytesBefore(_ position: Int) -> Int { byteShift[countBelow(position, sorted.count) { sorted[$0].start }] }
        /// The number of removed nodes below `index`.
        func nodesBefore(_ index: Int) -> Int { removedShift[countBelow(index, removed.count) { removed[$0].start }] }
        do {
            var out = 0
            var nextRemoved = 0
            // Scalars sit on the tape in byte order, so replaced nodes come up in the order of `sorted`.
            var nextReplaced = 0
            while nextReplaced < sorted.count && sorted[nextReplaced].node < 0 { nextReplaced += 1 }
            // Changes before the current node's start: starts only grow along the tape.
            var before = 0
            var index = 0
            while index < oldTape.count {
                if nextRemoved < removed.count && index == removed[nextRemoved].start {
                    index = removed[nextRemoved].end
                    nextRemoved += 1
                    continue
                }
                var node = oldTape[index]
                while before < sorted.count && sorted[before].start < Int(node.start) { before += 1 }
                if nextReplaced < sorted.count && sorted[nextReplaced].node == index {
                    let change = sorted[nextReplaced]
                    let start = change.start + byteShift[nextReplaced]
                    nextReplaced += 1
                    while nextReplaced < sorted.count && sorted[nextReplaced].node < 0 { nextReplaced += 1 }
                    node.start = UInt32(start)
                    node.end = UInt32(start + change.textEnd - change.textStart)
                    node.kind = change.kind
                    node.flags = change.flags
                    node.next = UInt32(Int(node.next) - removedShift[nextRemoved])
                } else if node.kind == .object || node.kind == .array {
                    node.start = UInt32(Int(node.start) + byteShift[before])
                    node.end = UInt32(Int(node.end) + bytesBefore(Int(node.end)))
                    node.next = UInt32(Int(node.next) - nodesBefore(Int(node.next)))
                } else {
                    // No change lies inside a scalar; the removed nodes below it are those already skipped.
                    let shift = byteShift[before]
                    node.start = UInt32(Int(node.start) + shift)
                    node.end = UInt32(Int(node.end) + shift)
                    node.next = UInt32(Int(node.next) - removedShift[nextRemoved])
                }
                precondition(out < count, "splice: more nodes than counted")
                (buffer + out).initialize(to: node)
                out += 1
                index += 1
            }
            precondition(out == count, "splice: fewer nodes than counted")
        }
    }
}
