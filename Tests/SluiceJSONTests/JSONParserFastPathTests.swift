@testable import SluiceJSON
import Testing

/// The parser's string scan reads eight bytes at a time and jumps to the first
/// byte that ends plain ASCII; these check the word test against a byte-by-byte
/// one, and the parser's results where a special byte sits at every offset.
@Suite struct JSONParserFastPathTests {
    static let interesting: [UInt8] = [0x00, 0x01, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x41, 0x5B, 0x5C, 0x5D, 0x61, 0x7E, 0x7F, 0x80, 0xC3, 0xFF]

    static func isSpecial(_ byte: UInt8) -> Bool { byte < 0x20 || byte >= 0x80 || byte == 0x22 || byte == 0x5C }

    @Test func lowestFlagIsTheFirstSpecialByteOfEveryWord() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200_000 {
            let bytes = (0..<8).map { _ in Self.interesting.randomElement(using: &generator)! }
            let word = bytes.enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
            let special = JSONParser.specialBytes(word)
            if let first = bytes.firstIndex(where: Self.isSpecial) {
                #expect(special != 0 && special.trailingZeroBitCount >> 3 == first, "\(bytes)")
            } else {
                #expect(special == 0, "\(bytes)")
            }
        }
    }

    @Test func everyPlainASCIIWordHasNoFlag() {
        for byte in UInt8(0x20)...UInt8(0x7F) where !Self.isSpecial(byte) {
            #expect(JSONParser.specialBytes(UInt64(byte) &* 0x0101_0101_0101_0101) == 0)
        }
    }

    @Test func aSpecialByteAtAnyOffsetOfALongStringEndsOrEscapesItWhereItShould() throws {
        for length in 0..<40 {
            for offset in 0..<max(length, 1) {
                var text = Array(repeating: UInt8(ascii: "a"), count: length)
                if offset < length { text[offset] = UInt8(ascii: "\\"); text.insert(UInt8(ascii: "n"), at: offset + 1) }
                let line = Array(#"{"k":""#.utf8) + text + Array(#"","z":1}"#.utf8)
                let document = try JSONDocument.parse(line)
                let value = try #require(document.member("k"))
                #expect(document.tape[value].end == UInt32(7 + text.count), "length \(length), offset \(offset)")
                #expect(document.member("z") != nil)
            }
            // A raw control character at any offset is refused where it is.
            for offset in 0..<length {
                var text = Array(repeating: UInt8(ascii: "b"), count: length)
                text[offset] = 0x01
                let line = Array(#"{"k":""#.utf8) + text + Array(#""}"#.utf8)
                do {
                    _ = try JSONDocument.parse(line)
                    Issue.record("a control character at \(offset) of \(length) was accepted")
                } catch {
                    #expect(error.kind == .controlCharacterInString && error.offset == 6 + offset, "length \(length), offset \(offset)")
                }
            }
        }
    }
}
