/// Amounts as text: what a revenue string must look like to be read as a
/// number, and how a revenue is written.
extension AdjustDestination {
    /// Whether `text` is a number as JSON (RFC 8259 §6) spells it: `-`? then `0` or
    /// digits not starting with `0`, then `.` and digits?, then `e`/`E`, `+`/`-`? and digits?.
    static func isJSONNumber(_ text: UnsafeRawBufferPointer) -> Bool {
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

    /// Up to 4 decimals, no exponent, no trailing zeros.
    static func formatAmount(_ value: Double) -> String {
        let scaled = Int64((value * 10_000).rounded())
        var text = "\(scaled / 10_000)"
        var fraction = pad(Int(scaled % 10_000), 4)
        while fraction.hasSuffix("0") { fraction.removeLast() }
        if !fraction.isEmpty { text += "." + fraction }
        return text
    }
}
