@testable import Sluice
import Testing

@Suite struct ASCIIBytesTests {
    /// Every byte, against Swift's own classes of the ASCII scalar (bytes
    /// 0x80 and up, which start or continue multi-byte UTF-8, are none of them).
    @Test func theClassesMatchSwiftsForEveryByte() {
        for value in 0...255 {
            let byte = UInt8(value)
            let character = Character(Unicode.Scalar(byte))
            let ascii = byte < 0x80
            #expect(ASCIIBytes.isDigit(byte) == (ascii && character.isWholeNumber), "byte \(byte)")
            #expect(ASCIIBytes.isLetter(byte) == (ascii && character.isLetter), "byte \(byte)")
            #expect(ASCIIBytes.isLetterOrDigit(byte) == (ascii && (character.isLetter || character.isWholeNumber)), "byte \(byte)")
            #expect(ASCIIBytes.isWord(byte) == (ascii && (character.isLetter || character.isWholeNumber || character == "_")), "byte \(byte)")
        }
    }
}
