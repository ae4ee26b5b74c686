@testable import Sluice
import Testing

/// A YAML value converted to JSON text, or the errors reading it.
enum Converted: Equatable {
    case success(String)
    case failure([String])
}

@Suite struct JSONValueTests {
    /// The JSON text of a YAML value, or the errors reading it.
    private func convert(_ yaml: String, allowAbsent: Bool = false) throws -> Converted {
        let node = try #require(try ConfigValue.parse(yaml: "v: " + yaml)?.mapping?["v"])
        var reader = ConfigReader(file: "t.yaml")
        guard let value = JSONValue.read(node, &reader, what: "the value", allowAbsent: allowAbsent) else {
            return .failure(reader.diagnostics.map(\.description))
        }
        return .success(value.jsonText)
    }

    @Test("YAML scalars become the JSON the user meant", arguments: [
        (#""5""#, #""5""#), ("'true'", #""true""#), ("5", "5"), ("-0", "-0"), ("1.50", "1.50"), ("1e3", "1e3"),
        ("9223372036854775808", "9223372036854775808"), ("true", "true"), ("False", "false"), ("null", "null"),
        ("~", "null"), ("movie_tapped", #""movie_tapped""#), ("2026-11-20T09:00:00Z", #""2026-11-20T09:00:00Z""#),
        ("!!str 5", #""5""#), ("\"007\"", #""007""#), ("\"a\\\"b\"", #""a\"b""#), ("$identify", #""$identify""#),
    ])
    func scalars(_ yaml: String, _ json: String) throws {
        #expect(try convert(yaml) == .success(json))
    }

    @Test func mappingsKeepTheirKeyOrderAndSequencesTheirItems() throws {
        #expect(try convert(#"{b: 1, a: [x, "2", 3.0], c: {d: null}}"#) == .success(#"{"b":1,"a":["x","2",3.0],"c":{"d":null}}"#))
    }

    @Test("what JSON cannot hold as written is an error, not a guess", arguments: ["0x1F", "+1", ".5", "1_000", ".inf", "007", "yes", "off"])
    func yamlOnlyScalarsAreErrors(_ yaml: String) throws {
        guard case .failure(let errors) = try convert(yaml) else {
            Issue.record("\(yaml) was converted")
            return
        }
        #expect(errors.count == 1)
        #expect(errors[0].hasPrefix("t.yaml:1:4: '\(yaml)' in the value is a YAML"))
    }

    @Test func absentIsOnlyForExpectations() throws {
        #expect(try convert("{a: 1, b: !absent }", allowAbsent: true) == .success(#"{"a":1}"#))
        #expect(try convert("{a: !absent }") == .failure(["t.yaml:1:8: !absent only belongs in an expected record (the value)"]))
        #expect(try convert("!secret x") == .failure(["t.yaml:1:4: unknown tag '!secret' in the value; the only tag sluice knows is !absent, in expected records"]))
    }
}
