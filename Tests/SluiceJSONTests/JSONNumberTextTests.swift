@testable import SluiceJSON
import Testing

@Suite struct JSONNumberTextTests {
    @Test(arguments: [("0", true), ("-0", true), ("42", true), ("-9223372036854775808", true), ("9223372036854775807", true),
                      ("9223372036854775808", false), ("-9223372036854775809", false), ("10000000000000000000", false),
                      ("1.0", false), ("1e3", false), ("1E3", false), ("-0.0", false)])
    func integersAreIntegerTextWithin64Bits(_ text: String, _ expected: Bool) {
        #expect(JSONNumberText.isInteger64(Array(text.utf8)) == expected)
    }

    @Test(arguments: [("1.5", "1.50", true), ("1e3", "1000", true), ("15e-1", "1.5", true), ("-0", "0", true),
                      ("0.0", "-0e5", true), ("1", "1.0", true), ("100", "1E2", true),
                      ("9223372036854775808", "9223372036854775809", false), ("1.5", "-1.5", false),
                      ("0.1", "0.10000000000000001", false), ("1e400", "1e400", true), ("1e400", "1e401", false)])
    func valuesCompareExactlyWithoutFloatingPoint(_ a: String, _ b: String, _ expected: Bool) {
        #expect(JSONNumberText.sameValue(Array(a.utf8), Array(b.utf8)) == expected)
    }
}
