/// ASCII byte classes on UTF-8 bytes, for code that reads names and text as
/// bytes (the PII detectors, GA4's names, key-or-name checks): one definition,
/// branch-free.
enum ASCIIBytes {
    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }

    @inline(__always)
    static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) &- 0x61 < 26 }

    @inline(__always)
    static func isLetterOrDigit(_ byte: UInt8) -> Bool { isDigit(byte) || isLetter(byte) }

    /// A byte of a word or an identifier: ASCII letters, digits and `_`.
    @inline(__always)
    static func isWord(_ byte: UInt8) -> Bool { isLetterOrDigit(byte) || byte == UInt8(ascii: "_") }
}
