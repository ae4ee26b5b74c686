// Unsafe code: reads through a base pointer, checking every offset against `count`.

/// UTF-8 well-formedness, per Unicode Table 3-7.
public enum UTF8Validation {
    /// The length of the well-formed multi-byte sequence at `index`, or 0 if it is ill-formed.
    @inline(__always)
    public static func sequenceLength(_ base: UnsafePointer<UInt8>, _ index: Int, _ count: Int) -> Int {
        let lead = base[index]
        @inline(__always) func continuation(_ offset: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
            guard index + offset < count else { return false }
            let byte = base[index + offset]
            return byte >= low && byte <= high
        }
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: return continuation(1) ? 2 : 0
        case 0xE0: return continuation(1, 0xA0) && continuation(2) ? 3 : 0
        case 0xE1...0xEC, 0xEE...0xEF: return continuation(1) && continuation(2) ? 3 : 0
        case 0xED: return continuation(1, 0x80, 0x9F) && continuation(2) ? 3 : 0
        case 0xF0: return continuation(1, 0x90) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF1...0xF3: return continuation(1) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF4: return continuation(1, 0x80, 0x8F) && continuation(2) && continuation(3) ? 4 : 0
        default: return 0
        }
    }

    /// Whether the bytes are well-formed UTF-8.
    public static func isValid(_ buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = buffer.baseAddress else { return true }
        var index = 0
        let count = buffer.count
        while index < count {
            if base[index] < 0x80 {
                index += 1
                continue
            }
            let length = sequenceLength(base, index, count)
            if length == 0 { return false }
            index += length
        }
        return true
    }
}
