// Unsafe code: `isNumber` reads a number's text as an `UnsafeRawBufferPointer`
// (the document's own bytes, no copy); every index is checked against
// `count` before it is read.

/// Facts about a JSON number decided on its text, never through `Double`:
/// numbers are kept as text (an id of 2^63 must survive), so they are judged as text.
public enum JSONNumberText {
    private static let maxInt64Digits = Array("9223372036854775807".utf8)
    private static let minInt64Digits = Array("9223372036854775808".utf8)

    /// Whether `text` is a number as JSON (RFC 8259 §6) spells it:
    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, nothing before or after.
    public static func isNumber(_ text: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let count = text.count
        @inline(__always) func isDigit(_ at: Int) -> Bool { at < count && text[at] >= 0x30 && text[at] <= 0x39 }
        @inline(__always) func digits() -> Bool {
            guard isDigit(index) else { return false }
            while isDigit(index) { index += 1 }
            return true
        }
        if index < count && text[index] == UInt8(ascii: "-") { index += 1 }
        if index < count && text[index] == UInt8(ascii: "0") {
            index += 1
        } else if !digits() {
            return false
        }
        if index < count && text[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() else { return false }
        }
        if index < count && (text[index] | 0x20) == UInt8(ascii: "e") {
            index += 1
            if index < count && (text[index] == UInt8(ascii: "+") || text[index] == UInt8(ascii: "-")) { index += 1 }
            guard digits() else { return false }
        }
        return index == count
    }

    /// Whether `text` (a valid JSON number) is an integer the plan's `integer`
    /// type accepts: no fraction and no exponent (`1.0` and `1e3` are numbers,
    /// not integers), within the signed 64-bit range (2^63 is not one: typed
    /// stores and provider SDKs cannot hold it as an integer). `-0` is the integer 0.
    public static func isInteger64<Bytes: Collection>(_ text: Bytes) -> Bool where Bytes.Element == UInt8 {
        var digits = text[...]
        var negative = false
        if digits.first == UInt8(ascii: "-") {
            negative = true
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return false }
        if digits.count < 19 { return true }
        if digits.count > 19 { return false }
        let limit = negative ? minInt64Digits : maxInt64Digits
        return !digits.lexicographicallyPrecedes(limit) ? digits.elementsEqual(limit) : true
    }

    /// Whether two valid JSON numbers denote the same value, exactly (no
    /// floating-point rounding): `1.5` = `1.50` = `15e-1`, `1e3` = `1000`,
    /// `-0` = `0`, but 2^63 ≠ 2^63 + 1.
    public static func sameValue<A: Collection, B: Collection>(_ a: A, _ b: B) -> Bool
        where A.Element == UInt8, B.Element == UInt8 {
        if a.elementsEqual(b) { return true }
        guard let x = Decimal(a), let y = Decimal(b) else { return false }
        return x == y
    }

    /// sign × digits × 10^exponent, with no leading or trailing zeros in `digits`;
    /// zero is `digits == []` with a positive sign.
    private struct Decimal: Equatable {
        var negative: Bool
        var digits: [UInt8]
        var exponent: Int

        init?<Bytes: Collection>(_ text: Bytes) where Bytes.Element == UInt8 {
            var bytes = Array(text)[...]
            negative = bytes.first == UInt8(ascii: "-")
            if negative { bytes = bytes.dropFirst() }
            var mantissa: [UInt8] = []
            var fractionDigits = 0
            var inFraction = false
            while let byte = bytes.first, byte != UInt8(ascii: "e"), byte != UInt8(ascii: "E") {
                bytes = bytes.dropFirst()
                if byte == UInt8(ascii: ".") {
                    inFraction = true
                    continue
                }
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                mantissa.append(byte)
                if inFraction { fractionDigits += 1 }
            }
            var exponent = 0
            if !bytes.isEmpty {
                bytes = bytes.dropFirst()
                var exponentNegative = false
                if bytes.first == UInt8(ascii: "-") || bytes.first == UInt8(ascii: "+") {
                    exponentNegative = bytes.first == UInt8(ascii: "-")
                    bytes = bytes.dropFirst()
                }
                for byte in bytes {
                    guard byte >= 0x30 && byte <= 0x39 else { return nil }
                    // Exponents this large cannot be compared exactly here; such numbers only equal their own text.
                    guard exponent < 1_000_000_000 else { return nil }
                    exponent = exponent * 10 + Int(byte - 0x30)
                }
                if exponentNegative { exponent = -exponent }
            }
            exponent -= fractionDigits
            let firstNonZero = mantissa.firstIndex { $0 != UInt8(ascii: "0") }
            guard let firstNonZero else {
                negative = false
                digits = []
                self.exponent = 0
                return
            }
            var trimmed = Array(mantissa[firstNonZero...])
            while trimmed.last == UInt8(ascii: "0") {
                trimmed.removeLast()
                exponent += 1
            }
            digits = trimmed
            self.exponent = exponent
        }
    }
}
