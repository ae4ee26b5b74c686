@testable import Sluice
@testable import SluiceJSON
import Testing

@Suite struct RecordMatcherTests {
    private func mismatches(_ expected: String, _ received: String) throws -> [String] {
        let value = JSONValue(try JSONDocument.parse(Array(expected.utf8)), 0)
        return RecordMatcher.mismatches(value, try JSONDocument.parse(Array(received.utf8))).map(\.description)
    }

    @Test func listedFieldsMustBeEqualAndUnlistedOnesAreFree() throws {
        #expect(try mismatches(#"{"event":"a","properties":{"id":5}}"#,
                               #"{"type":"track","event":"a","properties":{"id":5,"slug":"x"},"context":{}}"#).isEmpty)
        #expect(try mismatches(#"{"properties":{"id":5}}"#, #"{"properties":{"id":6}}"#) == ["properties.id: expected 5, got 6"])
    }

    @Test func typesMatterNumbersCompareByExactValue() throws {
        #expect(try mismatches(#"{"id":5}"#, #"{"id":"5"}"#) == [#"id: expected 5, got "5""#])
        #expect(try mismatches(#"{"id":"5"}"#, #"{"id":5}"#) == [#"id: expected "5", got 5"#])
        #expect(try mismatches(#"{"v":1.5,"w":1e3,"x":9223372036854775808}"#, #"{"v":1.50,"w":1000,"x":9223372036854775808}"#).isEmpty)
        #expect(try mismatches(#"{"x":9223372036854775808}"#, #"{"x":9223372036854775809}"#)
            == ["x: expected 9223372036854775808, got 9223372036854775809"])
        #expect(try mismatches(#"{"b":true,"n":null}"#, #"{"b":"true","n":0}"#) == [#"b: expected true, got "true""#, "n: expected null, got 0"])
    }

    @Test func aMissingFieldIsReportedAsAbsentAndAbsentMustBeAbsent() throws {
        #expect(try mismatches(#"{"properties":{"slug":"x"}}"#, #"{"properties":{}}"#) == [#"properties.slug: expected "x", got absent"#])
        #expect(try mismatches(#"{"properties":{"id":1}}"#, #"{"properties":[1]}"#) == [#"properties: expected an object {"id":1}, got [1]"#])
        let value = JSONValue.object([("email", .absent)])
        #expect(RecordMatcher.mismatches(value, try JSONDocument.parse(Array(#"{"email":"a@b.c"}"#.utf8))).map(\.description)
            == [#"email: expected absent, got "a@b.c""#])
        #expect(RecordMatcher.mismatches(value, try JSONDocument.parse(Array(#"{}"#.utf8))).isEmpty)
    }

    @Test func arraysMatchElementByElementWithTheSameLength() throws {
        #expect(try mismatches(#"{"events":[{"name":"a"}]}"#, #"{"events":[{"name":"a","params":{}}]}"#).isEmpty)
        #expect(try mismatches(#"{"events":[{"name":"a"}]}"#, #"{"events":[{"name":"b"}]}"#) == [#"events[0].name: expected "a", got "b""#])
        #expect(try mismatches(#"{"tags":["a"]}"#, #"{"tags":["a","b"]}"#) == [#"tags: expected 1 elements ["a"], got 2 elements ["a","b"]"#])
    }

    @Test func pathsQuoteKeysThatAreNotPlainNames() throws {
        #expect(try mismatches(#"{"properties":{"Avatar Changed":1,"$os":"iOS"}}"#, #"{"properties":{"Avatar Changed":2,"$os":"iOS"}}"#)
            == [#"properties["Avatar Changed"]: expected 1, got 2"#])
    }

    @Test func longValuesAreCutInTheReport() throws {
        let long = String(repeating: "é", count: 300)
        let found = try mismatches(#"{"a":"x"}"#, #"{"a":"\#(long)"}"#)
        #expect(found[0].hasSuffix("…"))
        #expect(found[0].utf8.count < 230)
    }
}
