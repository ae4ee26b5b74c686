@testable import SluiceJSON
import Testing

/// `insertingMember` and `JSONBuilder`: a member written into the bytes and
/// indexed in place (the session stage's `context.session`), which must be
/// exactly what parsing the result gives.
@Suite struct JSONMemberInsertionTests {
    private func check(_ text: String, key: String, json: String, path: String, file: SourceLocation = #_sourceLocation) {
        let document = try! JSONDocument.parse(Array(text.utf8))
        let object = path.isEmpty ? 0 : document.find(JSONPath(path))!
        guard let inserted = document.insertingMember(Array(key.utf8), json: Array(json.utf8), into: object) else {
            Issue.record("no insertion into \(text)", sourceLocation: file)
            return
        }
        let reparsed = try! JSONDocument.parse(inserted.bytes)
        #expect(inserted.tape.elementsEqual(reparsed.tape), "tape after inserting into \(text)", sourceLocation: file)
        #expect(inserted.hasInsignificantWhitespace == reparsed.hasInsignificantWhitespace, sourceLocation: file)
        let expected = path.isEmpty ? JSONPath(key) : JSONPath(path + "." + key)
        #expect(inserted.find(expected).map { String(decoding: inserted.rawBytes($0), as: UTF8.self) } == json,
                sourceLocation: file)
        #expect(!inserted.isModified)
    }

    @Test func theTapeIsWhatParsingTheNewBytesGives() {
        let session = #"{"id":"ab","start_ms":1,"settings":{"a":[1,{"b":null}]},"traits":{"plan":"pro"}}"#
        check(#"{"context":{"ip":"1"},"event":"x"}"#, key: "session", json: session, path: "context")
        check(#"{"event":"x","context":{"ip":"1"}}"#, key: "session", json: session, path: "context")
        check(#"{"context":{}}"#, key: "session", json: session, path: "context")
        check(#"{"a":{"context":{"x":[1,2,{"y":{}}]}},"b":[]}"#, key: "session", json: "1", path: "a.context")
        check(#"{"event":"x"}"#, key: "context", json: #"{"session":\#(session)}"#, path: "")
        check(#"{}"#, key: "context", json: "[]", path: "")
        check(#"{ "context" : { "ip" : "1" } , "n" : 1e21 }"#, key: "session", json: session, path: "context")
        check(#"{"context":{"t":"\u00e9\n"},"z":"\"}"}"#, key: "séssion", json: #""\"""#, path: "context")
    }

    @Test func everyObjectOfARealEventTakesAMember() {
        let line = #"{"type":"track","messageId":"m","timestamp":"2026-11-20T08:00:00Z","anonymousId":"d","context":{"app":{"name":"Flix"},"device":{"model":"X"},"ip":"1"},"event":"e","properties":{"a":[1,2],"b":{"c":{}}}}"#
        let document = try! JSONDocument.parse(Array(line.utf8))
        for (index, node) in document.tape.enumerated() where node.kind == .object {
            let inserted = document.insertingMember(Array("k".utf8), json: Array(#"{"v":[true]}"#.utf8), into: index)!
            #expect(inserted.tape.elementsEqual((try! JSONDocument.parse(inserted.bytes)).tape), "object at \(index)")
        }
    }

    @Test func whatIsNotOneValueOrAnEditedDocumentIsRefused() {
        let document = try! JSONDocument.parse(Array(#"{"context":{}}"#.utf8))
        // Tape: 0 the root, 1 the key "context", 2 its object.
        #expect(document.insertingMember(Array("k".utf8), json: Array(#"1,"x":2"#.utf8), into: 2) == nil)
        #expect(document.insertingMember(Array("k".utf8), json: Array("".utf8), into: 2) == nil)
        #expect(document.insertingMember(Array("k".utf8), json: Array("1".utf8), into: 1) == nil)
        #expect(document.insertingMember(Array("k".utf8), json: Array("1".utf8), into: 2) != nil)
        var edited = document
        edited.set(JSONPath("x"), integer: 1)
        #expect(edited.insertingMember(Array("k".utf8), json: Array("1".utf8), into: 2) == nil)
        #expect(edited.materialized().bytes == Array(#"{"context":{},"x":1}"#.utf8))
    }

    @Test func theBuilderIndexesWhatItWritesAsTheParserWould() {
        var pool = InternedJSON()
        let settings = pool.intern(Array(#"{"a":[1,{"b":null}],"c":"\u00e9"}"#.utf8))
        let builder = JSONBuilder()
        builder.beginObject()
        builder.key(Array("context".utf8))
        builder.beginObject()
        builder.key("id")
        builder.string(count: 3) { target in
            for (offset, byte) in "abc".utf8.enumerated() { target[offset] = byte }
        }
        builder.key(Array("n".utf8))
        builder.integer(-42)
        builder.key(Array("t".utf8))
        builder.boolean(true)
        builder.key(Array("f".utf8))
        builder.boolean(false)
        builder.key(Array("s".utf8))
        builder.value(pool.fragment(settings))
        builder.key(Array("e".utf8))
        builder.beginObject()
        builder.endObject()
        builder.endObject()
        builder.endObject()
        let parsed = try! JSONDocument.parse(builder.bytes)
        #expect(builder.nodes.elementsEqual(parsed.tape))
        #expect(String(decoding: builder.bytes, as: UTF8.self)
            == #"{"context":{"id":"abc","n":-42,"t":true,"f":false,"s":{"a":[1,{"b":null}],"c":"\u00e9"},"e":{}}}"#)
    }

    @Test func aResetBuilderGrowsPastItsFirstSpaceAndStillIndexesAsTheParserWould() throws {
        let builder = JSONBuilder(capacity: 4)
        builder.beginObject()
        builder.key("first")
        builder.integer(1)
        builder.reset()
        // Nested deeper than the open-object space it starts with, and more nodes than its first node space.
        for depth in 0..<20 {
            builder.beginObject()
            for member in 0..<3 {
                builder.key(Array("k\(depth)-\(member)".utf8))
                builder.integer(Int64(depth * 10 + member))
            }
            builder.key("next")
        }
        builder.boolean(false)
        for _ in 0..<20 { builder.endObject() }
        let parsed = try JSONDocument.parse(builder.bytes)
        #expect(builder.nodes.elementsEqual(parsed.tape))
        let start = Array(#"{"k0-0":0,"k0-1":1,"k0-2":2,"next":{"k1-0":10"#.utf8)
        #expect(builder.bytes.starts(with: start))
    }
}
