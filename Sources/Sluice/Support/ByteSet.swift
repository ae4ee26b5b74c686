/// A set of bytes, 256 bits: character classes of the privacy patterns,
/// first-byte filters of provider names.
struct ByteSet: Equatable, Sendable {
    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    init() {}

    init(_ bytes: some Sequence<UInt8>) {
        for byte in bytes { insert(byte) }
    }

    init(range: ClosedRange<UInt8>) {
        for byte in range { insert(byte) }
    }

    mutating func insert(_ byte: UInt8) {
        let bit = UInt64(1) << UInt64(byte & 63)
        switch byte >> 6 {
        case 0: words.0 |= bit
        case 1: words.1 |= bit
        case 2: words.2 |= bit
        default: words.3 |= bit
        }
    }

    @inline(__always)
    func contains(_ byte: UInt8) -> Bool {
        let bit = UInt64(1) << UInt64(byte & 63)
        switch byte >> 6 {
        case 0: return words.0 & bit != 0
        case 1: return words.1 & bit != 0
        case 2: return words.2 & bit != 0
        default: return words.3 & bit != 0
        }
    }

    mutating func formUnion(_ other: ByteSet) {
        words = (words.0 | other.words.0, words.1 | other.words.1, words.2 | other.words.2, words.3 | other.words.3)
    }

    /// The ASCII bytes not in this set.
    var asciiComplement: ByteSet {
        var result = ByteSet()
        for byte in UInt8(0)...0x7F where !contains(byte) { result.insert(byte) }
        return result
    }

    /// The single byte in the set, if it holds exactly one.
    var single: UInt8? {
        var found: UInt8?
        for byte in UInt8(0)...0xFF where contains(byte) {
            if found != nil { return nil }
            found = byte
        }
        return found
    }

    static func ==(lhs: ByteSet, rhs: ByteSet) -> Bool {
        lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 && lhs.words.2 == rhs.words.2 && lhs.words.3 == rhs.words.3
    }

    static let digits = ByteSet(range: 0x30...0x39)
    static let word: ByteSet = {
        var set = ByteSet(range: 0x30...0x39)
        set.formUnion(ByteSet(range: 0x41...0x5A))
        set.formUnion(ByteSet(range: 0x61...0x7A))
        set.insert(UInt8(ascii: "_"))
        return set
    }()
    static let space = ByteSet([0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C])
}
