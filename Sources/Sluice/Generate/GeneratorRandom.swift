import SluiceJSON

/// The generator's own PRNG: xoshiro256** seeded through SplitMix64.
///
/// Pure 64-bit integer arithmetic, so a seed gives the same sequence on every
/// machine and every Swift version (unlike `SystemRandomNumberGenerator`, and
/// unlike the standard library's `random(in:)`, whose algorithm may change).
struct GeneratorRandom {
    private var s0: UInt64
    private var s1: UInt64
    private var s2: UInt64
    private var s3: UInt64

    init(seed: UInt64) {
        var state = seed
        s0 = Self.splitMix(&state)
        s1 = Self.splitMix(&state)
        s2 = Self.splitMix(&state)
        s3 = Self.splitMix(&state)
    }

    private static func splitMix(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    @inline(__always)
    private static func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }

    @inline(__always)
    mutating func next() -> UInt64 {
        let result = Self.rotl(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = Self.rotl(s3, 45)
        return result
    }

    /// The top `count` bits (1...64) of the next value, like Python's `getrandbits`.
    @inline(__always)
    mutating func bits(_ count: Int) -> UInt64 { next() >> UInt64(64 - count) }

    /// A double in [0, 1) with 53 random bits.
    @inline(__always)
    mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// True with probability `p`.
    @inline(__always)
    mutating func chance(_ p: Double) -> Bool { unit() < p }

    /// A uniform integer in `0..<bound` (bound > 0), without modulo bias (Lemire's method).
    @inline(__always)
    mutating func below(_ bound: Int) -> Int {
        let bound = UInt64(bound)
        var product = next().multipliedFullWidth(by: bound)
        if product.low < bound {
            let threshold = (0 &- bound) % bound
            while product.low < threshold { product = next().multipliedFullWidth(by: bound) }
        }
        return Int(product.high)
    }

    /// A uniform integer in `low...high`, like Python's `randint`.
    @inline(__always)
    mutating func int(_ low: Int, _ high: Int) -> Int { low + below(high - low + 1) }
}

/// A growing line of bytes with the few writers the generator needs, so the hot
/// path never builds a `String`.
struct LineBuffer {
    var bytes: [UInt8] = []

    var count: Int { bytes.count }

    @inline(__always)
    mutating func put(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    @inline(__always)
    mutating func put(_ other: [UInt8]) { bytes.append(contentsOf: other) }

    @inline(__always)
    mutating func put(byte: UInt8) { bytes.append(byte) }

    @inline(__always)
    mutating func put(bool value: Bool) { value ? put("true") : put("false") }

    /// Decimal digits of a non-negative number, zero-padded to at least `width`.
    mutating func put(decimal value: UInt64, width: Int = 1) {
        let start = bytes.count
        var rest = value
        var digits = 0
        repeat {
            bytes.append(UInt8(truncatingIfNeeded: rest % 10) &+ 48)
            rest /= 10
            digits += 1
        } while rest > 0
        while digits < width {
            bytes.append(48)
            digits += 1
        }
        reverseTail(from: start)
    }

    @inline(__always)
    mutating func put(decimal value: Int, width: Int = 1) { put(decimal: UInt64(value), width: width) }

    /// Lower-case hex digits, zero-padded to at least `width`.
    mutating func put(hex value: UInt64, width: Int = 1) {
        let start = bytes.count
        var rest = value
        var digits = 0
        repeat {
            let nibble = UInt8(truncatingIfNeeded: rest & 0xF)
            bytes.append(nibble < 10 ? nibble &+ 48 : nibble &+ 87)
            rest >>= 4
            digits += 1
        } while rest > 0
        while digits < width {
            bytes.append(48)
            digits += 1
        }
        reverseTail(from: start)
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`, byte for byte what `EventTime.iso8601` gives.
    mutating func put(timestamp time: EventTime) {
        let f = time.utc
        put(decimal: f.year, width: 4)
        put(byte: UInt8(ascii: "-"))
        put(decimal: f.month, width: 2)
        put(byte: UInt8(ascii: "-"))
        put(decimal: f.day, width: 2)
        put(byte: UInt8(ascii: "T"))
        put(decimal: f.hour, width: 2)
        put(byte: UInt8(ascii: ":"))
        put(decimal: f.minute, width: 2)
        put(byte: UInt8(ascii: ":"))
        put(decimal: f.second, width: 2)
        put(byte: UInt8(ascii: "."))
        put(decimal: f.microsecond / 1000, width: 3)
        put(byte: UInt8(ascii: "Z"))
    }

    /// A quoted JSON string (escaped as needed).
    @inline(__always)
    mutating func put(quoted text: [UInt8]) { JSONString.appendQuoted(text, to: &bytes) }

    @inline(__always)
    private mutating func reverseTail(from start: Int) {
        var low = start
        var high = bytes.count - 1
        while low < high {
            bytes.swapAt(low, high)
            low += 1
            high -= 1
        }
    }
}
