@testable import SluiceJSON
import Testing

/// The byte-level helpers every encoder writes with: integers, text cut to
/// limits, quoting and the output buffer itself, checked against plain Swift.
@Suite struct EncodingPrimitivesTests {
    @Test(arguments: [Int64.min, Int64.min + 1, -1_795_165_200_000, -100, -99, -10, -9, -1, 0, 1, 9, 10, 11, 99, 100, 101,
                      999, 1000, 1_795_165_200_000, 9_999_999_999_999, Int64.max - 1, Int64.max])
    func integersAreWrittenAsSwiftWritesThem(value: Int64) {
        var array: [UInt8] = []
        appendInteger(value, to: &array)
        #expect(String(decoding: array, as: UTF8.self) == String(value))
        let buffer = ByteBuffer()
        var sink = buffer
        appendInteger(value, to: &sink)
        #expect(buffer.array == Array(String(value).utf8))
    }

    @Test func scalarsAreCountedAsDecodingCountsThem() {
        var generator = SystemRandomNumberGenerator()
        let samples = ["", "a", "héllo wörld", "日本語のテキスト", "emoji 😀😀 and more text", String(repeating: "é", count: 17)]
        for text in samples {
            let bytes = Array(text.utf8)
            #expect(bytes.withUnsafeBytes(TextLimit.scalarCount) == text.unicodeScalars.count)
        }
        // Any bytes: the count of those that do not continue a sequence (10xxxxxx).
        for length in 0..<40 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(bytes.withUnsafeBytes(TextLimit.scalarCount) == bytes.filter { $0 & 0xC0 != 0x80 }.count)
        }
    }

    /// The one-append path for text without escapes must write what the byte-by-byte escaping writes.
    @Test func quotingTextIsTheSameWithAndWithoutTheFastPath() {
        var random = SystemRandomNumberGenerator()
        // Plain ASCII, the bytes that need escapes, and UTF-8 (0xC3 0xA9 is "é"), at every position of words.
        let pieces: [[UInt8]] = [[0x61], [0x7A], [0x20], [0x22], [0x5C], [0x0A], [0x00], [0x1F], [0x7F], [0xC3, 0xA9], [0x2F]]
        for _ in 0..<5000 {
            var text: [UInt8] = []
            for _ in 0..<Int.random(in: 0...24, using: &random) { text += pieces.randomElement(using: &random)! }
            var fast: [UInt8] = []
            JSONString.appendQuoted(text, to: &fast)  // contiguous: the fast path when nothing needs escaping
            var slow: [UInt8] = []
            JSONString.appendQuoted(AnySequenceCollection(text), to: &slow)  // not contiguous: byte by byte
            #expect(fast == slow, "text \(text)")
            let model = text.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }
            #expect(text.withUnsafeBytes { JSONString.needsEscape($0) } == model, "text \(text)")
        }
    }

    @Test func shortByteComparisonAgreesWithMemcmpAtEveryLength() {
        var random = SystemRandomNumberGenerator()
        for length in 0...40 {
            for _ in 0..<200 {
                let a = (0..<length).map { _ in UInt8.random(in: 0...3, using: &random) }
                var b = a
                if length > 0 && Bool.random(using: &random) { b[Int.random(in: 0..<length, using: &random)] ^= 1 }
                let same = a.withUnsafeBytes { a in b.withUnsafeBytes { b in
                    ShortBytes.equal(a.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, b.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, length)
                } }
                #expect(same == (a == b), "length \(length)")
            }
        }
    }

    @Test func aMemberStartIsTheLeadTheKeyAndTheTrailInOneStep() {
        for key in ["", "a", "os", "$app_version_string", String(repeating: "k", count: 40)] {
            let buffer = ByteBuffer(capacity: 16)
            var sink = buffer
            sink.append(UInt8(ascii: "x"))
            Array(key.utf8).withUnsafeBytes { sink.append(UInt8(ascii: ","), $0, quoted: true, UInt8(ascii: ":")) }
            Array(key.utf8).withUnsafeBytes { sink.append(UInt8(ascii: "{"), $0, quoted: false, UInt8(ascii: "}")) }
            var array: [UInt8] = Array("x".utf8)
            Array(key.utf8).withUnsafeBytes { array.append(UInt8(ascii: ","), $0, quoted: true, UInt8(ascii: ":")) }
            Array(key.utf8).withUnsafeBytes { array.append(UInt8(ascii: "{"), $0, quoted: false, UInt8(ascii: "}")) }
            let expected = "x,\"\(key)\":{\(key)}"
            #expect(String(decoding: buffer.array, as: UTF8.self) == expected)
            #expect(String(decoding: array, as: UTF8.self) == expected)
        }
    }

    @Test func aMemberWrittenBeforeJoinsAnObjectAsItsFirstOrNextMember() {
        var out: [UInt8] = []
        var object = JSONObjectEncoder()
        object.member(raw: Array(#""a":{"value":1}"#.utf8), &out)
        object.integer("b", 2, &out)
        object.member(raw: Array(#""c":"x""#.utf8), &out)
        object.close(&out)
        #expect(String(decoding: out, as: UTF8.self) == #"{"a":{"value":1},"b":2,"c":"x"}"#)
    }

    @Test func aByteBufferGrowsKeepsWhatWasWrittenAndForgetsARefusedTail() {
        let buffer = ByteBuffer(capacity: 16)
        var expected: [UInt8] = []
        var sink = buffer
        for length in 0..<200 {
            let piece = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ length) }
            piece.withUnsafeBytes { sink.append(raw: $0) }
            sink.append(UInt8(truncatingIfNeeded: length))
            sink.append(contentsOf: piece[...])
            expected += piece + [UInt8(truncatingIfNeeded: length)] + piece
        }
        #expect(buffer.array == expected)
        let mark = buffer.count
        sink.append(contentsOf: Array("refused".utf8))
        sink.removeSubrange(mark...)
        #expect(buffer.array == expected)
        buffer.removeAll()
        #expect(buffer.isEmpty && buffer.capacity >= expected.count)
    }
}

private extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

/// A collection without contiguous storage, so `appendQuoted` takes its byte-by-byte path.
private struct AnySequenceCollection: Collection {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    var startIndex: Int { bytes.startIndex }
    var endIndex: Int { bytes.endIndex }
    subscript(position: Int) -> UInt8 { bytes[position] }
    func index(after index: Int) -> Int { index + 1 }
}
