import Testing
@testable import SluiceJSON
import SluiceTestSupport

@Suite struct JSONParserTests {
    /// Compact documents must come back byte-identical: numbers and strings keep their text.
    @Test(arguments: [
        #"{}"#,
        #"{"a":1}"#,
        #"{"big":9223372036854775808,"neg":-0.0,"exp":1e21,"E":1E+2,"frac":0.125e-3}"#,
        #"{"s":"\u00e9\ud83d\ude00 \"q\" \\ \/ \b\f\n\r\t","raw":"é漢😀"}"#,
        #"{"nested":{"a":[1,2.5,-0.0,1e21,null,true,false,[],{}],"b":{"c":"x"}}}"#,
        #"{"same":1,"inner":{"same":2},"list":[{"same":3},{"same":4}]}"#,
        #"{"n":123456789012345678901234567890}"#,
    ])
    func compactDocumentRoundTripsExactly(_ text: String) throws {
        let document = try JSONDocument.parse(Array(text.utf8))
        #expect(String(decoding: document.canonicalJSON, as: UTF8.self) == text)
    }

    @Test func insignificantWhitespaceIsRemovedButStringsKeepTheirSpaces() throws {
        let document = try JSONDocument.parse(Array(" { \"a\" : [ 1 , 2 ] ,\t\"b\":\"x y\" }\r".utf8))
        #expect(String(decoding: document.canonicalJSON, as: UTF8.self) == #"{"a":[1,2],"b":"x y"}"#)
    }

    @Test(arguments: [
        (#"{"a":1"#, "unexpectedEnd"),
        (#"{"a":1,}"#, "unexpectedByte"),
        (#"{"a":01}"#, "unexpectedByte"),
        (#"{"a":1.}"#, "invalidNumber"),
        (#"{"a":.5}"#, "unexpectedByte"),
        (#"{"a":-}"#, "invalidNumber"),
        (#"{"a":1e}"#, "invalidNumber"),
        (#"{"a":"\x"}"#, "invalidEscape"),
        (#"{"a":"\ud800"}"#, "invalidEscape"),
        (#"{"a":"\udc00"}"#, "invalidEscape"),
        (#"{"a":"\ud800\u0041"}"#, "invalidEscape"),
        (#"{"a":"\u12G4"}"#, "invalidEscape"),
        (#"{"a":tru}"#, "unexpectedByte"),
        (#"{"a":nul"#, "unexpectedEnd"),
        (#"{} {}"#, "trailingContent"),
        (#"{a:1}"#, "unexpectedByte"),
        (#"[1,2,3]"#, "notAnObject"),
        (#""text""#, "notAnObject"),
        (#"42"#, "notAnObject"),
        ("", "emptyInput"),
        ("   ", "emptyInput"),
    ])
    func malformedJSONIsRefusedWithItsKind(_ text: String, _ expected: String) {
        #expect(throws: JSONError.self) { try JSONDocument.parse(Array(text.utf8)) }
        do {
            _ = try JSONDocument.parse(Array(text.utf8))
        } catch {
            #expect(String(describing: error.kind).hasPrefix(expected), "\(text): got \(error.kind)")
        }
    }

    @Test(arguments: [
        [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xC0, 0x80, 0x22, 0x7D],        // overlong NUL
        [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x7D],  // encoded surrogate
        [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xF5, 0x80, 0x80, 0x80, 0x22, 0x7D], // past U+10FFFF
        [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xE2, 0x82, 0x22, 0x7D],        // truncated sequence
        [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D],              // never valid
    ] as [[UInt8]])
    func invalidUTF8InStringsIsRefused(_ bytes: [UInt8]) {
        do {
            _ = try JSONDocument.parse(bytes)
            Issue.record("accepted invalid UTF-8")
        } catch {
            #expect(error.kind == .invalidUTF8)
        }
    }

    @Test func controlCharactersInStringsMustBeEscaped() {
        do {
            _ = try JSONDocument.parse(Array("{\"a\":\"x\ty\"}".utf8))
            Issue.record("accepted a raw tab")
        } catch {
            #expect(error.kind == .controlCharacterInString)
        }
    }

    @Test func nestingUpTo64IsAcceptedAnd65IsRefused() throws {
        func nested(_ depth: Int) -> [UInt8] {
            // The root object is depth 1; each array adds one.
            Array(("{\"a\":" + String(repeating: "[", count: depth - 1) + String(repeating: "]", count: depth - 1) + "}").utf8)
        }
        _ = try JSONDocument.parse(nested(64))
        do {
            _ = try JSONDocument.parse(nested(65))
            Issue.record("accepted depth 65")
        } catch {
            #expect(error.kind == .nestingTooDeep)
        }
    }

    @Test func membersAndPathsAreFoundAndStringsDecoded() throws {
        let document = try JSONDocument.parse(Array(#"{"context":{"ip":"1.2.3.4","k\u00e9y":"v\n"},"n":5}"#.utf8))
        #expect(document.string(at: JSONPath("context.ip")) == "1.2.3.4")
        #expect(document.string(at: JSONPath("context.kéy")) == "v\n")
        #expect(document.find(JSONPath("context.missing")) == nil)
        #expect(document.find(JSONPath("n.deeper")) == nil)
        #expect(document.rawBytes(document.member("n")!).elementsEqual("5".utf8))
    }
}
