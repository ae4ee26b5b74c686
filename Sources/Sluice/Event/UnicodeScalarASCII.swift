extension Unicode.Scalar {
    /// `A`-`Z` or `a`-`z`.
    var isASCIILetter: Bool { (value >= 0x41 && value <= 0x5A) || (value >= 0x61 && value <= 0x7A) }
    /// `0`-`9`.
    var isASCIIDigit: Bool { value >= 0x30 && value <= 0x39 }
}
