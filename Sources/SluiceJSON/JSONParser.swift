#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import CJSONScan

// Unsafe code: the parser reads the line through a base pointer and a count,
// checking `index < count` before every load (the scalar string scan loads
// eight bytes at a time only where `index + 8 <= count`); stage 1 (`sluice_json_scan_strings`)
// reads whole 64-byte blocks only below `count` and copies the last partial
// one, and every offset it writes is below `count`. Nodes go into
// `JSONParseScratch`'s tape space, whose capacity is grown before each write;
// string entries into its entry space, reserved for each chunk before stage 1
// writes; open containers into its frames, at most `maxDepth` of them. The
// scratch is reused from line to line; no document points into it: a parsed
// line's nodes are copied, with its bytes, into the document's own storage.

/// An RFC 8259 parser that indexes a line into a tape without copying values.
///
/// Strings are checked for valid UTF-8 (Unicode Table 3-7: no overlongs, no
/// surrogates, nothing past U+10FFFF), unescaped control characters and valid
/// escapes, including surrogate pairs. Numbers are checked against the grammar
/// and kept as text. Nesting deeper than `maxDepth` is refused, and so is an
/// object that repeats a key (RFC 8259 leaves the meaning open; here readers
/// would disagree).
///
/// Two stages, after simdjson's: stage 1 (the C module `CJSONScan`) reads the
/// line 64 bytes at a time with SIMD compares and writes one entry per string,
/// its closing quote, or its first byte that is a backslash, a control
/// character or non-ASCII when it has one; stage 2 (here) walks the grammar
/// byte by byte outside strings and takes each string's end from the next
/// entry, so a plain string costs a load and a compare, whatever its length.
/// Strings with such a byte (escapes, non-ASCII text, errors) are read on from
/// that byte by the scalar scanner, which validates them. In a text that is
/// valid up to a string's opening quote, stage 1's strings are the grammar's,
/// so the entries stay in step with stage 2, and every check is made where a
/// byte-by-byte recursive-descent parser makes it: the first error found, its
/// kind and offset, are that parser's (`ReferenceJSONParser` in the tests).
struct JSONParser {
    static let maxDepth = 64
    /// Stage 1 indexes at most this many bytes at a time (a multiple of 64), so
    /// its entries for a line of any size take at most 128 KiB.
    static let chunkBytes = 1 << 16

    let base: UnsafePointer<UInt8>
    let count: Int
    var sawWhitespace = false
    /// The number of nodes written to the scratch's tape space.
    private(set) var nodeCount = 0
    /// The caller's scratch, held without a retain (one per line otherwise):
    /// the caller keeps it alive while the parser is used.
    private let scratch: Unmanaged<JSONParseScratch>
    /// An open container: its tape index, kind, and its keys' digests so far.
    struct Frame {
        var slot: Int
        var digests: UInt64
        var isObject: Bool
        var mustCheckKeys: Bool
    }

    /// `scratch`: space to reuse, which the caller keeps alive while the parser is used.
    init(buffer: UnsafeBufferPointer<UInt8>, scratch: borrowing JSONParseScratch) {
        // Offsets are kept in 32 bits; lines are at most 1 GiB (`max_line_bytes`).
        precondition(buffer.count < Int(UInt32.max), "JSON text over 4 GiB")
        // An empty buffer may have a nil base address; point at a constant instead.
        self.base = buffer.baseAddress ?? JSONParser.emptyBase
        self.count = buffer.count
        self.scratch = .passUnretained(copy scratch)
    }

    /// Space for a parser of `buffer` that has no scratch to reuse.
    static func scratch(for buffer: UnsafeBufferPointer<UInt8>) -> JSONParseScratch {
        JSONParseScratch(capacity: buffer.count / 8 + 16)
    }

    /// Sendable: it is allocated once, never written after, and never freed.
    nonisolated(unsafe) private static let emptyBase: UnsafePointer<UInt8> = {
        let pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        pointer.initialize(to: 0)
        return UnsafePointer(pointer)
    }()

    /// Parses the whole buffer as one JSON value (any kind); returns the line
    /// and its tape copied into a document's storage, one allocation.
    mutating func parseDocument() throws(JSONError) -> JSONDocument.Storage {
        try parseValue()
        let nodes = scratch._withUnsafeGuaranteedRef { $0.base }
        return JSONDocument.Storage.make(nodes: UnsafeBufferPointer(start: nodes, count: nodeCount),
                                         bytes: UnsafeBufferPointer(start: base, count: count),
                                         hasInsignificantWhitespace: sawWhitespace)
    }

    // Bytes of the grammar.
    private static let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\"), colon = UInt8(ascii: ":")
    private static let comma = UInt8(ascii: ","), openBrace = UInt8(ascii: "{"), closeBrace = UInt8(ascii: "}")
    private static let openBracket = UInt8(ascii: "["), closeBracket = UInt8(ascii: "]")

    /// Parses the whole buffer as one JSON value, leaving its nodes in the scratch space.
    mutating func parseValue() throws(JSONError) {
        (nodeCount, sawWhitespace) = try Self.parse(base, count, scratch)
    }

    /// Where the parser stands in the grammar.
    private enum State {
        /// At an object's key.
        case key
        /// At a value.
        case value
        /// Just after a value: a comma, a closing bracket or the end.
        case afterValue
    }

    /// The parse: one loop over the grammar, not recursion. The position, the
    /// tape and the string entries are locals (registers); the open
    /// containers' state is in the scratch's frames. Each check is made at the
    /// same point, in the same order, as a recursive-descent parser's, so the
    /// first error found is its first error. Compact members (`"key":"text",`)
    /// stay in the key loop. Returns the number of nodes and whether there
    /// was whitespace outside strings.
    private static func parse(_ base: UnsafePointer<UInt8>, _ count: Int,
                              _ scratch: Unmanaged<JSONParseScratch>) throws(JSONError) -> (Int, Bool) {
        let frames = scratch._withUnsafeGuaranteedRef { $0.frames }
        var tape = scratch._withUnsafeGuaranteedRef { Tape(nodes: $0.base, count: 0, capacity: $0.capacity) }
        let noEntries = scratch._withUnsafeGuaranteedRef { $0.entries }
        var strings = StringEntries(next: noEntries, end: noEntries)
        var stage1 = Stage1()
        var i = 0, saw = false
        // The innermost open container is `frames[depth]`; frames[0] stands for none.
        var frame = frames
        frame.pointee = Frame(slot: 0, digests: 0, isObject: false, mustCheckKeys: false)

        skipWhitespace(base, count, &i, &saw)
        if i == count { throw JSONError(kind: .emptyInput, offset: 0) }
        var state = State.value
        while true {
            switch state {
            case .key:
                while true {
                    guard i < count else { throw JSONError(kind: .unexpectedEnd, offset: i) }
                    guard base[i] == quote else { throw JSONError(kind: .unexpectedByte(base[i]), offset: i) }
                    let (end, flags) = try stringEnd(at: i, base, count, &strings, &stage1, scratch)
                    tape.push(JSONNode(kind: .string, flags: flags, start: UInt32(truncatingIfNeeded: i),
                                       end: UInt32(truncatingIfNeeded: end), next: UInt32(truncatingIfNeeded: tape.count &+ 1)), scratch)
                    // The keys' digests so far (see `keyDigestBit`): the object's keys are
                    // compared only when two share one, or one has escapes.
                    let bit = keyDigestBit(length: end &- i, first: base[i &+ 1], last: base[end &- 2])
                    if frame.pointee.digests & bit != 0 || flags != 0 { frame.pointee.mustCheckKeys = true }
                    frame.pointee.digests |= bit
                    i = end
                    if i < count && base[i] == colon {
                        i &+= 1  // compact JSON: no whitespace to skip before the colon
                    } else {
                        skipWhitespace(base, count, &i, &saw)
                        guard i < count else { throw JSONError(kind: .unexpectedEnd, offset: i) }
                        guard base[i] == colon else { throw JSONError(kind: .unexpectedByte(base[i]), offset: i) }
                        i &+= 1
                    }
                    // Compact members (`"key":"text",` and the next key) stay in
                    // this loop; any other value or separator takes the general path.
                    guard i < count && base[i] == quote else {
                        skipWhitespace(base, count, &i, &saw)
                        state = .value
                        break
                    }
                    let (valueEnd, valueFlags) = try stringEnd(at: i, base, count, &strings, &stage1, scratch)
                    tape.push(JSONNode(kind: .string, flags: valueFlags, start: UInt32(truncatingIfNeeded: i),
                                       end: UInt32(truncatingIfNeeded: valueEnd), next: UInt32(truncatingIfNeeded: tape.count &+ 1)), scratch)
                    i = valueEnd
                    guard i &+ 1 < count && base[i] == comma && base[i &+ 1] == quote else {
                        state = .afterValue
                        break
                    }
                    i &+= 1
                }
            case .value:
                guard i < count else { throw JSONError(kind: .unexpectedEnd, offset: i) }
                let byte = base[i]
                state = .afterValue
                if byte == quote {
                    let (end, flags) = try stringEnd(at: i, base, count, &strings, &stage1, scratch)
                    tape.push(JSONNode(kind: .string, flags: flags, start: UInt32(truncatingIfNeeded: i),
                                       end: UInt32(truncatingIfNeeded: end), next: UInt32(truncatingIfNeeded: tape.count &+ 1)), scratch)
                    i = end
                } else if byte == openBrace || byte == openBracket {
                    if frame - frames == JSONParser.maxDepth { throw JSONError(kind: .nestingTooDeep, offset: i) }
                    let isObject = byte == openBrace
                    frame += 1
                    frame.pointee = Frame(slot: tape.count, digests: 0, isObject: isObject, mustCheckKeys: false)
                    tape.push(JSONNode(kind: isObject ? .object : .array, flags: 0, start: UInt32(truncatingIfNeeded: i), end: 0, next: 0),
                              scratch)
                    i &+= 1
                    skipWhitespace(base, count, &i, &saw)
                    // An empty container goes on to its closing bracket (after a value).
                    if !(i < count && base[i] == (isObject ? closeBrace : closeBracket)) {
                        state = isObject ? .key : .value
                    }
                } else {
                    let kind: JSONKind, end: Int
                    switch byte {
                    case UInt8(ascii: "t"): (kind, end) = (.true, try literalEnd(base, count, at: i, "true"))
                    case UInt8(ascii: "f"): (kind, end) = (.false, try literalEnd(base, count, at: i, "false"))
                    case UInt8(ascii: "n"): (kind, end) = (.null, try literalEnd(base, count, at: i, "null"))
                    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): (kind, end) = (.number, try numberEnd(base, count, at: i))
                    default: throw JSONError(kind: .unexpectedByte(byte), offset: i)
                    }
                    tape.push(JSONNode(kind: kind, flags: 0, start: UInt32(truncatingIfNeeded: i),
                                       end: UInt32(truncatingIfNeeded: end), next: UInt32(truncatingIfNeeded: tape.count &+ 1)), scratch)
                    i = end
                }
            case .afterValue:
                if frame == frames {
                    skipWhitespace(base, count, &i, &saw)
                    if i != count { throw JSONError(kind: .trailingContent, offset: i) }
                    return (tape.count, saw)
                }
                skipWhitespace(base, count, &i, &saw)
                guard i < count else { throw JSONError(kind: .unexpectedEnd, offset: i) }
                let next = base[i]
                i &+= 1
                let isObject = frame.pointee.isObject
                if next == comma {
                    skipWhitespace(base, count, &i, &saw)
                    state = isObject ? .key : .value
                    continue
                }
                guard next == (isObject ? closeBrace : closeBracket) else {
                    throw JSONError(kind: .unexpectedByte(next), offset: i &- 1)
                }
                let slot = frame.pointee.slot
                // Two keys with the same digest, or one with escapes: no key may repeat.
                if frame.pointee.mustCheckKeys { try checkUniqueKeys(base, tape.nodes, object: slot, end: tape.count) }
                tape.nodes[slot].end = UInt32(truncatingIfNeeded: i)
                tape.nodes[slot].next = UInt32(truncatingIfNeeded: tape.count)
                frame -= 1
            }
        }
    }

    /// The tape being built, in the scratch's memory: written through a
    /// pointer, not appended to an array (which checks uniqueness on every
    /// node), and copied out once, at its exact size, when the line is done.
    private struct Tape {
        var nodes: UnsafeMutablePointer<JSONNode>
        var count: Int
        var capacity: Int

        /// Writes `node` at the end, growing the space first when full.
        @inline(__always)
        mutating func push(_ node: JSONNode, _ scratch: Unmanaged<JSONParseScratch>) {
            if count == capacity { grow(scratch) }
            nodes[count] = node
            count &+= 1
        }

        @inline(never)
        mutating func grow(_ scratch: Unmanaged<JSONParseScratch>) {
            (nodes, capacity) = scratch._withUnsafeGuaranteedRef { ($0.grow(), $0.capacity) }
        }
    }

    @inline(__always)
    private static func skipWhitespace(_ base: UnsafePointer<UInt8>, _ count: Int, _ i: inout Int, _ saw: inout Bool) {
        while i < count {
            let byte = base[i]
            // Compact JSON: the next byte is almost always structural (one compare, not four).
            if byte > 0x20 { return }
            if byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
                saw = true
                i &+= 1
            } else {
                return
            }
        }
    }

    // MARK: - Strings

    /// Stage 1's state between chunks, and how far it has read.
    private struct Stage1 {
        var state = sluice_json_scan_state()
        var scanned = 0
    }

    /// Stage 1's entries not yet used: from `next` up to `end`.
    private struct StringEntries {
        var next: UnsafeMutablePointer<UInt32>
        var end: UnsafeMutablePointer<UInt32>
    }

    /// The end (one past the closing quote) and flags of the string whose
    /// opening quote is at `start`: from stage 1's next entry, its closing quote
    /// when the string is plain; otherwise the scalar scan reads on from the
    /// first byte that is not (or, for a string stage 1 saw no end of, from the
    /// start) and validates the rest.
    @inline(__always)
    private static func stringEnd(at start: Int, _ base: UnsafePointer<UInt8>, _ count: Int, _ strings: inout StringEntries,
                                  _ stage1: inout Stage1, _ scratch: Unmanaged<JSONParseScratch>) throws(JSONError) -> (end: Int, flags: UInt8) {
        if strings.next == strings.end {
            strings = indexStrings(base, count, &stage1, scratch)
            // No more entries: a string that does not end, refused by the scan.
            if strings.next == strings.end { return try scanString(base, count, from: start &+ 1) }
        }
        let entry = Int(truncatingIfNeeded: strings.next.pointee)
        strings.next += 1
        // In a text valid up to `start` the entry lies inside this string (see
        // the type's comment). Should stage 1 ever be out of step, the index is
        // not trusted (a node ending before it starts, or a plain string never
        // validated): the rest of the line is read by the scalar scan alone.
        guard entry > start && entry < count else {
            stage1.scanned = count
            strings.next = strings.end
            return try scanString(base, count, from: start &+ 1)
        }
        if base[entry] == quote { return (entry &+ 1, 0) }
        return try scanString(base, count, from: entry)
    }

    /// Runs stage 1 over the next chunks of the line until it finds a string's
    /// entry or reaches the end; the entries start over at the scratch's first slot.
    @inline(never)
    private static func indexStrings(_ base: UnsafePointer<UInt8>, _ count: Int, _ stage1: inout Stage1,
                                     _ scratch: Unmanaged<JSONParseScratch>) -> StringEntries {
        let (entries, level) = scratch._withUnsafeGuaranteedRef { ($0.reserveEntries(min(count, chunkBytes) / 2 + 64), $0.scanLevel) }
        var written = 0
        while written == 0 && stage1.scanned < count {
            let to = count &- stage1.scanned > chunkBytes ? stage1.scanned &+ chunkBytes : count
            written = level < 0 ? sluice_json_scan_strings(&stage1.state, base, count, stage1.scanned, to, entries)
                : sluice_json_scan_strings_at_level(level, &stage1.state, base, count, stage1.scanned, to, entries)
            stage1.scanned = to
        }
        return StringEntries(next: entries, end: entries + written)
    }

    /// Scans a string from `position` (inside it, after its opening quote) to
    /// its closing quote, validating escapes, control characters and UTF-8;
    /// returns the offset past the quote and the flags (`hasEscapes`).
    @inline(never)
    private static func scanString(_ base: UnsafePointer<UInt8>, _ count: Int, from start: Int) throws(JSONError) -> (end: Int, flags: UInt8) {
        // Offsets fit 32 bits (see init): wrapping arithmetic, no overflow checks.
        var position = start
        var flags: UInt8 = 0
        while true {
            // Plain printable ASCII, eight bytes at a time, then one at a time;
            // `byte` is the first byte that ends it.
            var byte: UInt8
            scan: while true {
                if position &+ 8 <= count {
                    let word = UInt64(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
                    let special = specialBytes(word)
                    if special == 0 {
                        position &+= 8
                        continue
                    }
                    // Straight to the first special byte (the lowest flag is exact, see `specialBytes`).
                    position &+= special.trailingZeroBitCount >> 3
                    byte = base[position]
                    break scan
                }
                guard position < count else { throw JSONError(kind: .unexpectedEnd, offset: position) }
                byte = base[position]
                if byte >= 0x20 && byte < 0x80 && byte != quote && byte != backslash {
                    position &+= 1
                    continue
                }
                break scan
            }
            if byte == quote { return (position &+ 1, flags) }
            if byte == backslash {
                flags |= JSONNode.hasEscapes
                position = try escapeEnd(base, count, at: position)
            } else if byte < 0x20 {
                throw JSONError(kind: .controlCharacterInString, offset: position)
            } else {
                let length = UTF8Validation.sequenceLength(base, position, count)
                if length == 0 { throw JSONError(kind: .invalidUTF8, offset: position) }
                position += length
            }
        }
    }

    /// Flags (the high bit of each byte) the bytes of `word`, read little-end
    /// first, that end the scalar scan's fast path: a control character
    /// (< 0x20), a non-ASCII byte (>= 0x80), `"` or `\\`. The SWAR tests of
    /// "Bit Twiddling Hacks": a borrow can flag a byte above a flagged one that
    /// is not special, never one below, so the lowest flag is always exact
    /// (and the word has a special byte exactly when the result is not 0).
    @inline(__always)
    static func specialBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let control = (word &- ones &* 0x20) & ~word
        let zeroQuote = (quote &- ones) & ~quote
        let zeroBackslash = (backslash &- ones) & ~backslash
        return (word | control | zeroQuote | zeroBackslash) & highs
    }

    /// The offset past the escape whose backslash is at `at`.
    private static func escapeEnd(_ base: UnsafePointer<UInt8>, _ count: Int, at: Int) throws(JSONError) -> Int {
        var index = at
        guard index + 1 < count else { throw JSONError(kind: .unexpectedEnd, offset: index) }
        switch base[index + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
             UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            index += 2
        case UInt8(ascii: "u"):
            let unit = try hex4(base, count, at: index + 2)
            index += 6
            if unit >= 0xD800 && unit <= 0xDBFF {
                // A high surrogate must be followed by an escaped low surrogate.
                guard index + 1 < count, base[index] == UInt8(ascii: "\\"), base[index + 1] == UInt8(ascii: "u") else {
                    throw JSONError(kind: .invalidEscape, offset: at)
                }
                let low = try hex4(base, count, at: index + 2)
                guard low >= 0xDC00 && low <= 0xDFFF else { throw JSONError(kind: .invalidEscape, offset: at) }
                index += 6
            } else if unit >= 0xDC00 && unit <= 0xDFFF {
                throw JSONError(kind: .invalidEscape, offset: at)
            }
        default:
            throw JSONError(kind: .invalidEscape, offset: at)
        }
        return index
    }

    private static func hex4(_ base: UnsafePointer<UInt8>, _ count: Int, at position: Int) throws(JSONError) -> UInt32 {
        guard position + 4 <= count else { throw JSONError(kind: .unexpectedEnd, offset: position) }
        var value: UInt32 = 0
        for offset in 0..<4 {
            guard let digit = JSONString.hexValue(base[position + offset]) else {
                throw JSONError(kind: .invalidEscape, offset: position - 2)
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    // MARK: - Numbers and literals

    private static func literalEnd(_ base: UnsafePointer<UInt8>, _ count: Int, at index: Int,
                                   _ literal: StaticString) throws(JSONError) -> Int {
        let length = literal.utf8CodeUnitCount
        guard index + length <= count else { throw JSONError(kind: .unexpectedEnd, offset: index) }
        let expected = literal.utf8Start
        for offset in 0..<length where base[index + offset] != expected[offset] {
            throw JSONError(kind: .unexpectedByte(base[index + offset]), offset: index + offset)
        }
        return index + length
    }

    private static func numberEnd(_ base: UnsafePointer<UInt8>, _ count: Int, at start: Int) throws(JSONError) -> Int {
        var index = start
        if base[index] == UInt8(ascii: "-") { index += 1 }
        guard index < count else { throw JSONError(kind: .invalidNumber, offset: start) }
        if base[index] == UInt8(ascii: "0") {
            index += 1
        } else if isDigit(base[index]) {
            while index < count && isDigit(base[index]) { index += 1 }
        } else {
            throw JSONError(kind: .invalidNumber, offset: start)
        }
        if index < count && base[index] == UInt8(ascii: ".") {
            index += 1
            guard index < count && isDigit(base[index]) else { throw JSONError(kind: .invalidNumber, offset: start) }
            while index < count && isDigit(base[index]) { index += 1 }
        }
        if index < count && (base[index] == UInt8(ascii: "e") || base[index] == UInt8(ascii: "E")) {
            index += 1
            if index < count && (base[index] == UInt8(ascii: "+") || base[index] == UInt8(ascii: "-")) { index += 1 }
            guard index < count && isDigit(base[index]) else { throw JSONError(kind: .invalidNumber, offset: start) }
            while index < count && isDigit(base[index]) { index += 1 }
        }
        return index
    }

    @inline(__always)
    private static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    // MARK: - Duplicate keys

    /// Throws `duplicateKey` when the object at tape index `object` (complete on
    /// the tape, which ends at `end`) has two members with the same key, escapes
    /// decoded: a line whose readers could disagree on a field's value (one
    /// stage scrubs the first `"email"`, a provider reads the last) is refused
    /// whole. Keys are compared pairwise, length first, which is cheap for the
    /// small objects of events; objects of more than `pairwiseLimit` members are
    /// sorted instead. It runs only for objects where two keys share a digest
    /// (`keyDigestBit`) or one has escapes: equal keys always share one.
    private static func checkUniqueKeys(_ base: UnsafePointer<UInt8>, _ tape: UnsafeMutablePointer<JSONNode>,
                                        object: Int, end: Int) throws(JSONError) {
        var key = object + 1
        var members = 0
        var escaped = false
        while key < end {
            let node = tape[key]
            escaped = escaped || node.flags & JSONNode.hasEscapes != 0
            let length = Int(node.end - node.start)
            // Compare with the keys before it.
            var other = object + 1
            while other < key {
                let earlier = tape[other]
                // Length, then the first byte, before the call: keys of the same length mostly differ there.
                if Int(earlier.end &- earlier.start) == length && base[Int(earlier.start) &+ 1] == base[Int(node.start) &+ 1]
                    && memcmp(base + Int(earlier.start), base + Int(node.start), length) == 0 {
                    throw JSONError(kind: .duplicateKey, offset: Int(node.start))
                }
                other = Int(tape[other &+ 1].next)
            }
            members &+= 1
            if members > JSONParser.pairwiseLimit { return try checkUniqueKeysSorted(base, tape, object: object, end: end) }
            key = Int(tape[key + 1].next)
        }
        if escaped { try checkUniqueKeysSorted(base, tape, object: object, end: end) }
    }

    static let pairwiseLimit = 32

    /// One of 64 bits for a key's raw text (quotes included: an empty key's
    /// "first" and "last" bytes are its quotes), from its length and its first
    /// and last bytes (one multiply, the product's top six bits); equal texts
    /// get the same bit. Objects whose keys share a bit are compared whole: about
    /// one in thirty of the workload's events has one.
    @inline(__always)
    static func keyDigestBit(length: Int, first: UInt8, last: UInt8) -> UInt64 {
        let packed = UInt64(first) | UInt64(last) << 8 | UInt64(truncatingIfNeeded: length) << 16
        return 1 << ((packed &* 0x9E37_79B9_7F4A_7C15) >> 58)
    }

    /// The same check on the decoded keys, sorted: for large objects and keys with escapes.
    private static func checkUniqueKeysSorted(_ base: UnsafePointer<UInt8>, _ tape: UnsafeMutablePointer<JSONNode>,
                                              object: Int, end: Int) throws(JSONError) {
        var keys: [(text: [UInt8], start: Int)] = []
        var key = object + 1
        while key < end {
            let node = tape[key]
            let body = UnsafeBufferPointer(start: base + Int(node.start) + 1, count: Int(node.end - node.start) - 2)
            keys.append((node.flags & JSONNode.hasEscapes != 0 ? JSONString.unescape(body) : Array(body), Int(node.start)))
            key = Int(tape[key + 1].next)
        }
        keys.sort { $0.text.lexicographicallyPrecedes($1.text) }
        for index in keys.indices.dropFirst() where keys[index].text == keys[index - 1].text {
            throw JSONError(kind: .duplicateKey, offset: max(keys[index].start, keys[index - 1].start))
        }
    }
}
