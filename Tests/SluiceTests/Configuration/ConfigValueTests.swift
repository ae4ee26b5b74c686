import Foundation
@testable import Sluice
import Testing

/// The pipeline file as Sluice reads it: values with their locations, read from YAML once.
@Suite struct ConfigValueTests {
    private func parse(_ yaml: String) throws -> ConfigValue {
        try #require(try ConfigValue.parse(yaml: yaml))
    }

    @Test func everyValueAndKeyKeepsItsLineAndColumn() throws {
        let root = try parse("version: 1\nstages:\n  - timed: {lateness: 5m}\n")
        let mapping = try #require(root.mapping)
        #expect((root.line, root.column) == (1, 1))
        #expect(mapping.map { "\($0.key.scalar?.text ?? "") \($0.key.line):\($0.key.column)" } == ["version 1:1", "stages 2:1"])
        let stage = try #require(mapping["stages"]?.sequence?.first)
        #expect((stage.line, stage.column) == (3, 5))
        let lateness = try #require(stage.mapping?["timed"]?.mapping?["lateness"])
        #expect((lateness.line, lateness.column, lateness.scalar?.text) == (3, 23, "5m"))
    }

    @Test func mappingsKeepFileOrderAndKeysOfTheSameTextThatYAMLTellsApart() throws {
        // YAML itself refuses `b: 1` twice; `5` and `"5"` are different keys to it, one text to `ConfigReader.mapping`.
        let mapping = try #require(try parse("b: 1\n5: plain\na: 2\n\"5\": quoted\n").mapping)
        #expect(mapping.map { $0.key.scalar?.text ?? "" } == ["b", "5", "a", "5"])
        #expect(mapping["5"]?.scalar?.text == "plain")
        #expect(mapping["c"] == nil)
    }

    @Test func aLookUpMatchesAKeyAsYAMLReadsIt() throws {
        let mapping = try #require(try parse("\"5\": quoted\n6: plain\n'type': quoted\n").mapping)
        #expect(mapping["5"] == nil)
        #expect(mapping["6"]?.scalar?.text == "plain")
        #expect(mapping["type"]?.scalar?.text == "quoted")
    }

    @Test("scalars keep their text, style and tag", arguments: [
        ("~", "~", ConfigValue.Style.plain, ConfigValue.Tag.null), ("", "", .plain, .null), ("null", "null", .plain, .null),
        ("'null'", "null", .singleQuoted, .string), ("\"5\"", "5", .doubleQuoted, .string), ("5", "5", .plain, .integer),
        ("1.5", "1.5", .plain, .float), ("yes", "yes", .plain, .boolean), ("!!str 5", "5", .plain, .string),
        ("!absent x", "x", .plain, .other("!absent")), ("movie", "movie", .plain, .string),
    ])
    func scalars(_ yaml: String, _ text: String, _ style: ConfigValue.Style, _ tag: ConfigValue.Tag) throws {
        let scalar = try #require(try parse("v: " + yaml).mapping?["v"]?.scalar)
        #expect(scalar.text == text)
        #expect(scalar.style == style)
        #expect(scalar.tag == tag)
        #expect(scalar.isNull == (tag == .null))
    }

    @Test func anAliasIsTheValueItNames() throws {
        let mapping = try #require(try parse("a: &x [1, 2]\nb: *x\n").mapping)
        #expect(mapping["b"]?.sequence?.map { $0.scalar?.text ?? "" } == ["1", "2"])
    }

    @Test func anAliasBombIsRefusedWithItsLocationInsteadOfExpanded() throws {
        // Ten aliases of ten aliases, nine deep: 10^10 values from 600 bytes.
        var yaml = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1...9 { yaml += "a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]\n" }
        let started = Date()
        do {
            _ = try ConfigValue.parse(yaml: yaml)
            Issue.record("expanded")
        } catch {
            #expect(error.problem.contains("more than 1000000 values once its aliases (*name) are expanded"))
            #expect(error.line >= 1 && error.line <= 10)
        }
        #expect(Date().timeIntervalSince(started) < 30)
    }

    @Test func anAliasOfALongValueIsCappedByItsExpandedBytesNotOnlyItsCount() throws {
        // A 4 KiB scalar, aliased 10 times at each of 4 levels: 10,000 values (far under the count
        // cap) that stand for 40 MiB of text, from a file of under 5 KB.
        var yaml = "a0: &a0 \"" + String(repeating: "x", count: 4096) + "\"\n"
        for level in 1...4 { yaml += "a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]\n" }
        #expect(yaml.utf8.count < 5000)
        do {
            _ = try ConfigValue.parse(yaml: yaml)
            Issue.record("expanded")
        } catch {
            #expect(error.problem.contains("more than 32 MiB (33554432 bytes of text) once its aliases (*name) are expanded"), "\(error.problem)")
            #expect(error.line >= 1 && error.line <= 5)
        }
    }

    @Test func aLargeFileWithoutAliasesIsUnderTheExpandedCap() throws {
        // A 15 MiB value written out: under the file cap, so under the expansion cap too.
        let yaml = "a: \"" + String(repeating: "y", count: 15 * 1024 * 1024) + "\"\n"
        #expect(try parse(yaml).mapping?["a"]?.scalar?.text.utf8.count == 15 * 1024 * 1024)
    }

    @Test func aliasesUnderTheLimitAreExpandedAsBefore() throws {
        // 10^5 values: a large but real file's size.
        var yaml = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1...4 { yaml += "a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]\n" }
        let top = try #require(try parse(yaml).mapping?["a4"]?.sequence)
        #expect(top.count == 10)
        #expect(top[9].sequence?[9].sequence?[9].sequence?[9].sequence?.count == 10)
    }

    @Test func anEmptyTextHasNoValueAndBrokenYAMLSaysWhere() throws {
        #expect(try ConfigValue.parse(yaml: "") == nil)
        #expect(throws: ConfigValue.SyntaxError.self) { try ConfigValue.parse(yaml: "a: [1, 2\n") }
        do {
            _ = try ConfigValue.parse(yaml: "a: 1\n b: 2\n")
            Issue.record("parsed")
        } catch {
            #expect((error.line, error.column) == (2, 3))
            #expect(!error.problem.isEmpty)
        }
    }
}
