@testable import SluiceJSON
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Unsafe code: the parser reads the line through a base pointer and a count,
// checking `index < count` before every load (eight bytes at a time only where
// `index + 8 <= count`), and writes nodes into `JSONParseScratch`, whose
// capacity it grows before each write. The scratch is reused from line to
// line; no document points into it: a parsed line's nodes are copied, with
// its bytes, into the document's own storage.

/// The parser as it was before stage 1 (`CJSONScan`) and the index-driven
/// stage 2: a recursive-descent byte scanner, kept unchanged (but for its name
/// and `tape`) as the reference the differential tests compare `JSONParser`
/// with: the same tape, whitespace flag and error (kind and offset) for every input.
///
/// An RFC 8259 parser that indexes a line into a tape without copying values.
///
/// Strings are checked for valid UTF-8 (Unicode Table 3-7: no overlongs, no
/// surrogates, nothing past U+10FFFF), unescaped control characters and valid
/// escapes, including surrogate pairs. Numbers are checked against the grammar
/// and kept as text. Nesting deeper than `maxDepth` is refused, and so is an
/// object that repeats a key (RFC 8259 leaves the meaning open; here readers
/// would disagree).
struct ReferenceJSONParser {
    static let maxDepth = 64

    let base: UnsafePointer<UInt8>
    let count: Int
    var index = 0
    var sawWhitespace = false
    /// The tape being built, in `scratch`'s memory: written through a pointer,
    /// not appended to an array (which checks uniqueness on every node), and
    /// copied out once, at its exact size, when the line is done.
    private var nodes: UnsafeMutablePointer<JSONNode>
    private var nodeCount = 0
    private var capacity: Int
    /// The caller's scratch, held without a retain (one per line otherwise):
    /// the caller keeps it alive while the parser is used.
    private let scratch: Unmanaged<JSONParseScratch>

    /// `scratch`: tape space to reuse, which the caller keeps alive while the parser is used.
    init(buffer: UnsafeBufferPointer<UInt8>, scratch: borrowing JSONParseScratch) {
        // Offsets are kept in 32 bits; lines are at most 1 GiB (`max_line_bytes`).
        precondition(buffer.count < Int(UInt32.max), "JSON text over 4 GiB")
        // An empty buffer may have a nil base address; point at a constant instead.
        self.base = buffer.baseAddress ?? ReferenceJSONParser.emptyBase
        self.count = buffer.count
        self.scratch = .passUnretained(copy scratch)
        nodes = scratch.base
        capacity = scratch.capacity
    }

    /// The nodes written so far (all of them once `parseValue` returns).
    var tape: [JSONNode] { Array(UnsafeBufferPointer(start: nodes, count: nodeCount)) }

    @inline(__always)
    private mutating func push(_ node: JSONNode) {
        if nodeCount == capacity { grow() }
        nodes[nodeCount] = node
        nodeCount &+= 1
    }

    private mutating func grow() {
        (nodes, capacity) = scratch._withUnsafeGuaranteedRef { ($0.grow(), $0.capacity) }
    }

    nonisolated(unsafe) private static let emptyBase: UnsafePointer<UInt8> = {
        let pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        pointer.initialize(to: 0)
        return UnsafePointer(pointer)
    }()

    /// Parses the whole buffer as one JSON value, leaving its nodes in the scratch space.
    mutating func parseValue() throws(JSONError) {
        skipWhitespace()
        if index == count { throw JSONError(kind: .emptyInput, offset: 0) }
        try parseValue(depth: 0)
        skipWhitespace()
        if index != count { throw JSONError(kind: .trailingContent, offset: index) }
    }

    @inline(__always)
    private mutating func skipWhitespace() {
        while index < count {
            let byte = base[index]
            // Compact JSON: the next byte is almost always structural (one compare, not four).
            if byte > 0x20 { return }
            if byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
                sawWhitespace = true
                index += 1
            } else {
                return
            }
        }
    }

    private mutating func parseValue(depth: Int) throws(JSONError) {
        guard index < count else { throw JSONError(kind: .unexpectedEnd, offset: index) }
        switch base[index] {
        case UInt8(ascii: "{"): try parseContainer(.object, depth: depth + 1)
        case UInt8(ascii: "["): try parseContainer(.array, depth: depth + 1)
        case UInt8(ascii: "\""): try parseString()
        case UInt8(ascii: "t"): try parseLiteral("true", kind: .true)
        case UInt8(ascii: "f"): try parseLiteral("false", kind: .false)
        case UInt8(ascii: "n"): try parseLiteral("null", kind: .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try parseNumber()
        case let byte: throw JSONError(kind: .unexpectedByte(byte), offset: index)
        }
    }

    /// Parses an object or an array: they differ only in their brackets and in
    /// objects' `"key":` before each value.
    private mutating func parseContainer(_ kind: JSONKind, depth: Int) throws(JSONError) {
        if depth > ReferenceJSONParser.maxDepth { throw JSONError(kind: .nestingTooDeep, offset: index) }
        let isObject = kind == .object
        let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
        let slot = nodeCount
        // The keys' digests so far (see `keyDigestBit`): the object's keys are
        // compared only when two share one, or one has escapes.
        var digests: UInt64 = 0
        var mustCheckKeys = false
        push(JSONNode(kind: kind, flags: 0, start: UInt32(index), end: 0, next: 0))
        index += 1
        skipWhitespace()
        if index < count && base[index] == close {
            index += 1
        } else {
            while true {
                if isObject {
                    guard index < count else { throw JSONError(kind: .unexpectedEnd, offset: index) }
                    guard base[index] == UInt8(ascii: "\"") else {
                        throw JSONError(kind: .unexpectedByte(base[index]), offset: index)
                    }
                    let keyStart = index
                    try parseString()
                    let bit = ReferenceJSONParser.keyDigestBit(length: index &- keyStart, first: base[keyStart &+ 1], last: base[index &- 2])
                    if digests & bit != 0 || nodes[nodeCount &- 1].flags != 0 { mustCheckKeys = true }
                    digests |= bit
                    skipWhitespace()
                    guard index < count else { throw JSONError(kind: .unexpectedEnd, offset: index) }
                    guard base[index] == UInt8(ascii: ":") else {
                        throw JSONError(kind: .unexpectedByte(base[index]), offset: index)
                    }
                    index += 1
                    skipWhitespace()
                }
                if index < count && base[index] == UInt8(ascii: "\"") {
                    try parseString()  // most values: no dispatch
                } else {
                    try parseValue(depth: depth)
                }
                skipWhitespace()
                guard index < count else { throw JSONError(kind: .unexpectedEnd, offset: index) }
                let byte = base[index]
                index += 1
                if byte == UInt8(ascii: ",") {
                    skipWhitespace()
                    continue
                }
                if byte == close { break }
                throw JSONError(kind: .unexpectedByte(byte), offset: index - 1)
            }
        }
        // Two keys with the same digest, or one with escapes: no key may repeat.
        if mustCheckKeys { try checkUniqueKeys(slot) }
        nodes[slot].end = UInt32(index)
        nodes[slot].next = UInt32(nodeCount)
    }

    /// Throws `duplicateKey` when the object at tape index `object` (complete on
    /// the tape) has two members with the same key, escapes decoded: a line
    /// whose readers could disagree on a field's value (one stage scrubs the
    /// first `"email"`, a provider reads the last) is refused whole. Keys are
    /// compared pairwise, length first, which is cheap for the small objects of
    /// events; objects of more than `pairwiseLimit` members are sorted instead.
    /// It runs only for objects where two keys share a digest (`keyDigestBit`)
    /// or one has escapes: equal keys always share one.
    private func checkUniqueKeys(_ object: Int) throws(JSONError) {
        let tape = nodes, end = nodeCount
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
            if members > ReferenceJSONParser.pairwiseLimit { return try checkUniqueKeysSorted(object) }
            key = Int(tape[key + 1].next)
        }
        if escaped { try checkUniqueKeysSorted(object) }
    }

    static let pairwiseLimit = 32

    /// One of 64 bits for a key's raw text (quotes included: an empty key's
    /// "first" and "last" bytes are its quotes), from its length and its first
    /// and last bytes; equal texts get the same bit.
    @inline(__always)
    static func keyDigestBit(length: Int, first: UInt8, last: UInt8) -> UInt64 {
        let mixed = (UInt32(truncatingIfNeeded: length) &* 0x9E37_79B1) ^ (UInt32(first) &* 0x85EB_CA6B) ^ (UInt32(last) &* 0xC2B2_AE35)
        return 1 << UInt64(mixed >> 26)
    }

    /// The same check on the decoded keys, sorted: for large objects and keys with escapes.
    private func checkUniqueKeysSorted(_ object: Int) throws(JSONError) {
        let tape = nodes
        var keys: [(text: [UInt8], start: Int)] = []
        var key = object + 1
        while key < nodeCount {
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

    private mutating func parseLiteral(_ literal: StaticString, kind: JSONKind) throws(JSONError) {
        let length = literal.utf8CodeUnitCount
        guard index + length <= count else { throw JSONError(kind: .unexpectedEnd, offset: index) }
        let expected = literal.utf8Start
        for offset in 0..<length where base[index + offset] != expected[offset] {
            throw JSONError(kind: .unexpectedByte(base[index + offset]), offset: index + offset)
        }
        let start = index
        index += length
        push(JSONNode(kind: kind, flags: 0, start: UInt32(start), end: UInt32(index), next: UInt32(nodeCount + 1)))
    }

    private mutating func parseNumber() throws(JSONError) {
        let start = index
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
        push(JSONNode(kind: .number, flags: 0, start: UInt32(start), end: UInt32(index), next: UInt32(nodeCount + 1)))
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    @inline(__always)
    private mutating func parseString() throws(JSONError) {
        let start = index
        // The position is kept in a local while scanning (the struct's own is
        // written back once), so the byte loops run in registers.
        let base = self.base, count = self.count
        // Offsets fit 32 bits (see init): wrapping arithmetic, no overflow checks.
        var position = index &+ 1
        var flags: UInt8 = 0
        while true {
            // Fast path: plain printable ASCII, eight bytes at a time, then one
            // at a time; `byte` is the first byte that ends it.
            var byte: UInt8
            scan: while true {
                if position &+ 8 <= count {
                    let word = UInt64(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
                    let special = ReferenceJSONParser.specialBytes(word)
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
                if byte >= 0x20 && byte < 0x80 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                    position &+= 1
                    continue
                }
                break scan
            }
            if byte == UInt8(ascii: "\"") {
                position &+= 1
                break
            }
            try stringSlowPath(byte, &position, &flags)
        }
        index = position
        push(JSONNode(kind: .string, flags: flags, start: UInt32(truncatingIfNeeded: start),
                      end: UInt32(truncatingIfNeeded: position), next: UInt32(truncatingIfNeeded: nodeCount &+ 1)))
    }

    /// A string's byte that is not plain ASCII: an escape, a control character or a multi-byte sequence.
    @inline(never)
    private mutating func stringSlowPath(_ byte: UInt8, _ position: inout Int, _ flags: inout UInt8) throws(JSONError) {
        if byte == UInt8(ascii: "\\") {
            flags |= JSONNode.hasEscapes
            index = position
            try parseEscape()
            position = index
        } else if byte < 0x20 {
            throw JSONError(kind: .controlCharacterInString, offset: position)
        } else {
            let length = UTF8Validation.sequenceLength(base, position, count)
            if length == 0 { throw JSONError(kind: .invalidUTF8, offset: position) }
            position += length
        }
    }

    /// Flags (the high bit of each byte) the bytes of `word`, read little-end
    /// first, that end the fast path of a string: a control character
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

    private mutating func parseEscape() throws(JSONError) {
        let at = index
        guard index + 1 < count else { throw JSONError(kind: .unexpectedEnd, offset: index) }
        switch base[index + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
             UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            index += 2
        case UInt8(ascii: "u"):
            let unit = try hex4(at: index + 2)
            index += 6
            if unit >= 0xD800 && unit <= 0xDBFF {
                // A high surrogate must be followed by an escaped low surrogate.
                guard index + 1 < count, base[index] == UInt8(ascii: "\\"), base[index + 1] == UInt8(ascii: "u") else {
                    throw JSONError(kind: .invalidEscape, offset: at)
                }
                let low = try hex4(at: index + 2)
                guard low >= 0xDC00 && low <= 0xDFFF else { throw JSONError(kind: .invalidEscape, offset: at) }
                index += 6
            } else if unit >= 0xDC00 && unit <= 0xDFFF {
                throw JSONError(kind: .invalidEscape, offset: at)
            }
        default:
            throw JSONError(kind: .invalidEscape, offset: at)
        }
    }

    private func hex4(at position: Int) throws(JSONError) -> UInt32 {
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
}
