@testable import SluiceJSON
import Testing

/// A document's line and tape share one allocation, the bytes right after the
/// nodes: these check that each reads back exactly what was put in, whatever
/// the line's length (the bytes end anywhere in the last node-sized slot), for
/// a parsed line, a splice of it and a member inserted into it; and that a
/// splice changes a storage in place only when its document alone holds it.
@Suite struct JSONDocumentStorageTests {
    /// `{"k":"…"}` with a string of `length` bytes, and a nested object after it.
    static func line(_ length: Int) -> [UInt8] {
        Array(#"{"k":""#.utf8) + Array(repeating: UInt8(ascii: "a") &+ UInt8(length % 26), count: length)
            + Array(#"","o":{"n":[1,2.5,null,true]}}"#.utf8)
    }

    static func expectIntact(_ document: JSONDocument, _ line: [UInt8], _ what: String) throws {
        #expect(document.bytes == line, "\(what)")
        #expect(document.byteCount == line.count, "\(what)")
        #expect(document.withLineBytes { Array($0) } == line, "\(what)")
        let reparsed = try JSONDocument.parse(line)
        #expect(document.tape.elementsEqual(reparsed.tape), "\(what)")
        #expect(document.memoryBytes == line.count + reparsed.tape.count * MemoryLayout<JSONNode>.stride, "\(what)")
    }

    @Test func aParsedLineAndItsTapeReadBackExactlyAtEveryLength() throws {
        for length in 0..<64 {
            let line = Self.line(length)
            try Self.expectIntact(try JSONDocument.parse(line), line, "parsed, length \(length)")
        }
    }

    @Test func aSplicedLineAndItsTapeReadBackExactlyAtEveryLength() throws {
        for length in 0..<64 {
            let document = try JSONDocument.parse(Self.line(length))
            for replacement in ["", "x", String(repeating: "y", count: length + 7)] {
                var splice = JSONSplice()
                splice.replaceString(try #require(document.member("k")), in: document) { $0.append(contentsOf: replacement.utf8) }
                let expected = Array(#"{"k":""#.utf8) + Array(replacement.utf8) + Array(#"","o":{"n":[1,2.5,null,true]}}"#.utf8)
                try Self.expectIntact(splice.applied(to: document), expected, "spliced, length \(length), \(replacement.count) bytes in")
            }
        }
    }

    @Test func aSpliceAppliedToADocumentThatAloneHoldsItsStorageChangesItWhereItIsWhenTheLineFits() throws {
        for length in 0..<64 {
            for replacement in ["", "x", String(repeating: "y", count: length), String(repeating: "z", count: length + 40)] {
                var document = try JSONDocument.parse(Self.line(length))
                let before = ObjectIdentifier(document.storage)
                let room = document.storage.withUnsafeMutablePointerToHeader { $0.pointee.byteCapacity } - document.byteCount
                var splice = JSONSplice()
                splice.replaceString(try #require(document.member("k")), in: document) { $0.append(contentsOf: replacement.utf8) }
                splice.apply(to: &document)
                let expected = Array(#"{"k":""#.utf8) + Array(replacement.utf8) + Array(#"","o":{"n":[1,2.5,null,true]}}"#.utf8)
                try Self.expectIntact(document, expected, "applied, length \(length), \(replacement.count) bytes in")
                let fits = replacement.count - length <= room
                #expect((ObjectIdentifier(document.storage) == before) == fits, "length \(length), \(replacement.count) bytes in, room \(room)")
            }
        }
    }

    @Test func aSpliceAppliedToADocumentWhoseStorageIsSharedLeavesTheOtherHolderAsItWas() throws {
        let original = try JSONDocument.parse(Self.line(10))
        var copy = original
        var splice = JSONSplice()
        splice.replaceString(try #require(copy.member("k")), in: copy) { $0.append(contentsOf: "short".utf8) }
        splice.apply(to: &copy)
        try Self.expectIntact(original, Self.line(10), "the other holder")
        try Self.expectIntact(copy, Array(#"{"k":"short","o":{"n":[1,2.5,null,true]}}"#.utf8), "the spliced copy")
        #expect(copy.storage !== original.storage)
    }

    @Test func aLineWithAnInsertedMemberAndItsTapeReadBackExactlyAtEveryLength() throws {
        for length in 0..<64 {
            let document = try JSONDocument.parse(Self.line(length))
            let object = try #require(document.member("o"))
            let inserted = try #require(document.insertingMember(Array("m".utf8), json: Array(#"{"z":"w"}"#.utf8), into: object))
            let expected = Array(#"{"k":""#.utf8) + Array(Self.line(length)[6..<(6 + length)])
                + Array(#"","o":{"n":[1,2.5,null,true],"m":{"z":"w"}}}"#.utf8)
            try Self.expectIntact(inserted, expected, "inserted, length \(length)")
        }
    }
}
