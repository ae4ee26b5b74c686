@testable import SluiceJSON
import Testing

/// The safe ways into a document's bytes the stages and encoders use
/// (`JSONSpans.swift`): each answers as the pointer forms they stand for.
@Suite struct JSONSpansTests {
    private static let line = #"{"name":"Ada","k\u0065y":"v\"q","n":-12.5,"o":{"a":[1,"x"]},"e":""}"#

    private func document() throws -> JSONDocument { try JSONDocument.parse(Array(Self.line.utf8)) }

    @Test func membersAreFoundByArrayAndSpanKeysAsByStringKeys() throws {
        let document = try document()
        for key in ["name", "key", "n", "o", "e", "missing"] {
            let bytes = Array(key.utf8)
            #expect(document.member(bytes) == document.member(key))
            #expect(document.member(bytes.span) == document.member(key))
        }
        let object = try #require(document.member("o"))
        #expect(document.member(Array("a".utf8), of: object) == document.member("a", of: object))
        #expect(document.member(Array("name".utf8), of: object) == nil)
    }

    @Test func keysAreComparedDecoded() throws {
        let document = try document()
        let escapedKey = try #require(document.member("key")) - 1
        #expect(Bool(document.stringEquals(escapedKey, Array("key".utf8))))
        #expect(Bool(document.stringEquals(escapedKey, Array("key".utf8).span)))
        #expect(Bool(!document.stringEquals(escapedKey, Array("kez".utf8))))
        #expect(Bool(!document.stringEquals(escapedKey, Array("ke".utf8).span)))
    }

    @Test func aValueIsLentAsWrittenAndAStringDecoded() throws {
        let document = try document()
        let number = try #require(document.member("n"))
        #expect(document.withSpan(of: number) { Array(copying: $0) } == Array("-12.5".utf8))
        let escaped = try #require(document.member("key"))
        #expect(document.withSpan(of: escaped) { Array(copying: $0) } == Array(#""v\"q""#.utf8))
        #expect(document.withStringSpan(escaped) { Array(copying: $0) } == Array(#"v"q"#.utf8))
        #expect(document.withStringSpan(try #require(document.member("name"))) { Array(copying: $0) } == Array("Ada".utf8))
        #expect(document.withStringSpan(try #require(document.member("e"))) { $0.count } == 0)
        #expect(document.withStringSpan(number) { $0.count } == nil)
        #expect(document.withLineSpan { Array(copying: $0) } == Array(Self.line.utf8))
    }

    @Test func aViewReadsWhatTheDocumentReads() throws {
        let document = try document()
        document.withView { view in
            #expect(view.count > 0 && view.byteCount == Self.line.utf8.count)
            for node in 0..<document.after(0) {
                #expect(view.kind(node) == document.kind(node))
                #expect(view.after(node) == document.after(node))
                #expect(view.start(node) == document.start(node))
                #expect(view.end(node) == document.end(node))
                #expect(view.rawLength(node) == document.rawLength(node))
                #expect(view.withSpan(of: node) { Array(copying: $0) } == document.rawBytes(node))
                if document.kind(node) == .string {
                    #expect(view.hasEscapes(node) == document.hasEscapes(node))
                    let raw = document.rawBytes(node)
                    #expect(view.withStringBody(node) { Array(copying: $0) } == Array(raw[1..<(raw.count - 1)]))
                    #expect(view.decodedString(node) == document.withString(node) { Array($0) })
                }
            }
            #expect(view.withBytes(0..<2) { Array(copying: $0) } == Array(#"{""#.utf8))
        }
    }

    @Test func aStringBodysWordsAreTestedWithinTheBodyOnly() throws {
        // An `@` in the key right after each string must not count; short bodies are read as one masked word.
        for body in ["", "a", "abc", "abcdefg", "abcdefgh", "abcdefghijklmnopq", "ab@d", "abcdefghij@"] {
            let text = #"{"k":"\#(body)","@":1}"#
            let document = try JSONDocument.parse(Array(text.utf8))
            let node = try #require(document.member("k"))
            let found = document.withView { $0.anyWord(ofStringBody: node, Self.hasAt) }
            #expect(found == body.contains("@"), "\(body)")
        }
    }

    @Test func wordTestsAgreeWithAByteLoop() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let count = Int.random(in: 0..<30, using: &random)
            var bytes = (0..<(count + 12)).map { _ in UInt8.random(in: 0x41...0x5A, using: &random) }
            let start = Int.random(in: 0..<6, using: &random)
            if count > 0 && Bool.random(using: &random) { bytes[start + Int.random(in: 0..<count, using: &random)] = UInt8(ascii: "@") }
            bytes[start + count] = UInt8(ascii: "@")
            if start > 0 { bytes[start - 1] = UInt8(ascii: "@") }
            let available = Bool.random(using: &random) ? bytes.count : start + count
            let expected = bytes[start..<(start + count)].contains(UInt8(ascii: "@"))
            let span = bytes.span.extracting(0..<available)
            #expect(SpanWords.any(span, from: start, to: start + count, Self.hasAt) == expected)
        }
    }

    /// Not 0 exactly when a word holds an `@` (haszero of the word xor `@`s).
    private static func hasAt(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let at = word ^ (ones &* 0x40)
        return (at &- ones) & ~at & (ones &* 0x80) != 0
    }

    @Test func spansAreComparedSearchedAndCopiedByteForByte() {
        let text = Array("price_total".utf8)
        for other in ["price_total", "price_totaL", "price", "", "price_total_"] {
            let bytes = Array(other.utf8)
            #expect(Bool(ByteSpans.equal(text.span, bytes.span) == (text == bytes)))
            #expect(Bool(ByteSpans.equal(text.span, bytes) == (text == bytes)))
        }
        #expect(Bool(ByteSpans.equal(text.span, "price_total" as StaticString)))
        #expect(Bool(!ByteSpans.equal(text.span, "price" as StaticString)))
        #expect(Bool(ByteSpans.hasPrefix(text.span, at: 6, Array("total".utf8))))
        #expect(Bool(!ByteSpans.hasPrefix(text.span, at: 7, Array("total".utf8))))
        #expect(Bool(ByteSpans.contains(text.span, Array("e_t".utf8))))
        #expect(Bool(!ByteSpans.contains(text.span, Array("totals".utf8))))
        #expect(Bool(ByteSpans.firstIndex(of: UInt8(ascii: "t"), in: text.span) == 6))
        #expect(Bool(ByteSpans.firstIndex(of: UInt8(ascii: "t"), in: text.span, from: 7) == 8))
        #expect(Bool(ByteSpans.firstIndex(of: UInt8(ascii: "z"), in: text.span) == nil))
        #expect(Bool(ByteSpans.equalFoldingASCII(Array("n/a".utf8), Array("N/A".utf8).span)))
        #expect(Bool(!ByteSpans.equalFoldingASCII(Array("n/a".utf8), Array("N/B".utf8).span)))
        #expect(Bool(ByteSpans.array("abc") == Array("abc".utf8)))
        var target = [UInt8](repeating: 0, count: 6)
        ByteSpans.copy(Array("xyz".utf8).span, into: &target, at: 2)
        #expect(target == [0, 0] + Array("xyz".utf8) + [0])
        #expect(text.withSpan { Array(copying: $0.extracting(0..<5)) } == Array("price".utf8))
    }

    @Test func spansHashAsTheirBytes() {
        let bytes = Array("device-1".utf8)
        var a = Hasher(), b = Hasher(), c = Hasher()
        ByteSpans.combine(bytes.span, into: &a)
        ByteSpans.combine(bytes, into: &b)
        bytes.withUnsafeBytes { c.combine(bytes: $0) }
        let expected = c.finalize()
        #expect(a.finalize() == expected && b.finalize() == expected)
    }

    @Test func spansAreWrittenAsTheirBytes() {
        var out: [UInt8] = []
        out.append(span: Array("ab".utf8).span)
        out.append(utf8: "cd")
        out.append(UInt8(ascii: ","), span: Array("k".utf8).span, quoted: true, UInt8(ascii: ":"))
        #expect(String(decoding: out, as: UTF8.self) == #"abcd,"k":"#)
        #expect(JSONString.unescape(Array(#"a\u0041\n"#.utf8).span) == Array("aA\n".utf8))
        #expect(TextLimit.scalarCount(Array("héllo".utf8).span) == 5)
        let builder = JSONBuilder()
        builder.beginObject()
        builder.key("id")
        let words: InlineArray<2, UInt64> = [0x3736_3534_3332_3130, 0x6665_6463_6261_3938]
        builder.string(unescaped: words.span.bytes)
        builder.endObject()
        #expect(String(decoding: builder.bytes, as: UTF8.self) == #"{"id":"0123456789abcdef"}"#)
    }
}
