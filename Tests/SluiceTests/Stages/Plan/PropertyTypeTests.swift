@testable import Sluice
@testable import SluiceJSON
import Testing

/// One value against one planned type: nil when it fits, else the violation kind.
struct TypeCheckCase: CustomTestStringConvertible, Sendable {
    var type: PropertyType
    var value: String
    var expected: PlanViolation.Kind?

    var testDescription: String { "\(value) as \(type): \(expected?.rawValue ?? "fits")" }
}

private func check(_ type: PropertyType, _ value: String) throws -> PlanViolation.Kind? {
    let document = try JSONDocument.parse(Array(#"{"v":\#(value)}"#.utf8))
    return type.violation(document, document.member("v")!)
}

let integerBoundaryCases: [TypeCheckCase] = [
    .init(type: PropertyType(.integer), value: "5", expected: nil),
    .init(type: PropertyType(.integer), value: "-0", expected: nil),
    .init(type: PropertyType(.integer), value: "9223372036854775807", expected: nil),
    .init(type: PropertyType(.integer), value: "-9223372036854775808", expected: nil),
    .init(type: PropertyType(.integer), value: "9223372036854775808", expected: .wrongType),
    .init(type: PropertyType(.integer), value: "-9223372036854775809", expected: .wrongType),
    .init(type: PropertyType(.integer), value: "123456789012345678901234567890", expected: .wrongType),
    .init(type: PropertyType(.integer), value: "1.0", expected: .wrongType),
    .init(type: PropertyType(.integer), value: "1e3", expected: .wrongType),
    .init(type: PropertyType(.integer), value: "-0.0", expected: .wrongType),
    .init(type: PropertyType(.integer), value: #""5""#, expected: .wrongType),
    .init(type: PropertyType(.number), value: "5", expected: nil),
    .init(type: PropertyType(.number), value: "1.0", expected: nil),
    .init(type: PropertyType(.number), value: "1e3", expected: nil),
    .init(type: PropertyType(.number), value: "-0.0", expected: nil),
    .init(type: PropertyType(.number), value: "9223372036854775808", expected: nil),
    .init(type: PropertyType(.number), value: #""1.5""#, expected: .wrongType),
    .init(type: PropertyType(.number), value: "true", expected: .wrongType),
]

let kindCases: [TypeCheckCase] = [
    .init(type: PropertyType(.string), value: #""feed""#, expected: nil),
    .init(type: PropertyType(.string), value: #""""#, expected: nil),
    .init(type: PropertyType(.string), value: "5", expected: .wrongType),
    .init(type: PropertyType(.boolean), value: "true", expected: nil),
    .init(type: PropertyType(.boolean), value: "false", expected: nil),
    .init(type: PropertyType(.boolean), value: #""true""#, expected: .wrongType),
    .init(type: PropertyType(.boolean), value: "1", expected: .wrongType),
    .init(type: PropertyType(.object), value: #"{"a":1}"#, expected: nil),
    .init(type: PropertyType(.object), value: "[1]", expected: .wrongType),
    .init(type: PropertyType(.array), value: "[]", expected: nil),
    .init(type: PropertyType(.array), value: "{}", expected: .wrongType),
    .init(type: PropertyType(.timestamp), value: #""2026-11-20T09:00:00Z""#, expected: nil),
    .init(type: PropertyType(.timestamp), value: #""2026-11-20T09:00:00.123+02:00""#, expected: nil),
    .init(type: PropertyType(.timestamp), value: #""2026-11-20T09:00:00""#, expected: .wrongType),
    .init(type: PropertyType(.timestamp), value: #""2026-02-30T09:00:00Z""#, expected: .wrongType),
    .init(type: PropertyType(.timestamp), value: "1795165200000", expected: .wrongType),
]

let enumCases: [TypeCheckCase] = {
    let sources = PropertyType(.enumeration([.string(Array("feed".utf8)), .string(Array("detail".utf8))]))
    let levels = PropertyType(.enumeration([.number(Array("1".utf8)), .number(Array("2.5".utf8)), .boolean(false)]))
    return [
        .init(type: sources, value: #""feed""#, expected: nil),
        .init(type: sources, value: #""det\u0061il""#, expected: nil),
        .init(type: sources, value: #""Feed""#, expected: .notInEnum),
        .init(type: sources, value: #""home""#, expected: .notInEnum),
        .init(type: sources, value: "5", expected: .notInEnum),
        .init(type: levels, value: "1", expected: nil),
        .init(type: levels, value: "1.0", expected: nil),
        .init(type: levels, value: "25e-1", expected: nil),
        .init(type: levels, value: "false", expected: nil),
        .init(type: levels, value: #""1""#, expected: .notInEnum),
        .init(type: levels, value: "true", expected: .notInEnum),
    ]
}()

let nullCases: [TypeCheckCase] = [
    .init(type: PropertyType(.string), value: "null", expected: .wrongType),
    .init(type: PropertyType(.integer), value: "null", expected: .wrongType),
    .init(type: PropertyType(.object), value: "null", expected: .wrongType),
    .init(type: PropertyType(.enumeration([.string(Array("a".utf8))])), value: "null", expected: .wrongType),
    .init(type: PropertyType(.string, nullable: true), value: "null", expected: nil),
    .init(type: PropertyType(.string, nullable: true), value: "5", expected: .wrongType),
    .init(type: PropertyType(.enumeration([.string(Array("a".utf8))]), nullable: true), value: "null", expected: nil),
]

@Suite struct PropertyTypeTests {
    @Test("integer against number is decided on the number's text, within 64 bits", arguments: integerBoundaryCases)
    func integerAndNumberBoundaries(_ example: TypeCheckCase) throws {
        #expect(try check(example.type, example.value) == example.expected)
    }

    @Test("each type takes its own JSON kind", arguments: kindCases)
    func eachTypeTakesItsKind(_ example: TypeCheckCase) throws {
        #expect(try check(example.type, example.value) == example.expected)
    }

    @Test("an enum takes its members: strings by text, numbers by exact value", arguments: enumCases)
    func enumMembership(_ example: TypeCheckCase) throws {
        #expect(try check(example.type, example.value) == example.expected)
    }

    @Test("null is no value of any type unless nullable", arguments: nullCases)
    func nullOnlyWhenNullable(_ example: TypeCheckCase) throws {
        #expect(try check(example.type, example.value) == example.expected)
    }

    @Test func violationsDescribeWhatWasFoundNotTheValue() throws {
        let document = try JSONDocument.parse(Array(#"{"a":"secret@example.com","b":1.0,"c":-0,"d":null,"e":[],"f":9223372036854775808}"#.utf8))
        let got = ["a", "b", "c", "d", "e", "f"].map { PropertyType.describe(document, document.member($0)!) }
        #expect(got == ["string", "number", "integer", "null", "array", "number"])
    }

    @Test func typesDescribeThemselvesAsThePlanWritesThem() {
        #expect(PropertyType(.integer).description == "integer")
        #expect(PropertyType(.enumeration([.string(Array("feed".utf8)), .number(Array("2".utf8))])).description == "enum [feed, 2]")
        #expect(PropertyType(.timestamp, nullable: true).description == "timestamp or null")
    }
}
