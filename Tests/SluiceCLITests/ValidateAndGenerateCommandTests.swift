import Foundation
import SluiceTestSupport
import Testing

@Suite struct ValidateAndGenerateCommandTests {
    @Test func validateAcceptsEveryExamplePipeline() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot + "/pipelines")
            .filter { $0.hasSuffix(".yaml") }.map { "pipelines/" + $0 }
        let result = try SluiceBinary.run(["validate"] + files, in: repositoryRoot)
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test func validateReportsEveryErrorOfEveryFileWithItsLocationAndExits78() throws {
        let directory = TemporaryDirectory()
        directory.write("a.yaml", "version: 3\ndestinations:\n  x: {type: ndjsn}\n")
        directory.write("b.yaml", "version: 1\ndestinations:\n  y: {type: ndjson, gzip_level: 13}\n")
        let result = try SluiceBinary.run(["validate", "a.yaml", "b.yaml"], in: directory.path)
        #expect(result.status == 78)
        #expect(result.stderr.contains("a.yaml:1:10: unsupported version 3"))
        #expect(result.stderr.contains("a.yaml:3:13: unknown destination type 'ndjsn'; did you mean 'ndjson'?"))
        #expect(result.stderr.contains("b.yaml:3:33: destinations.y.gzip_level must be between 0 and 12"))
    }

    @Test func destinationsWritingTheSameFilesAreRefusedByValidateAndRunWith78() throws {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", """
        version: 1
        destinations:
          a: {type: ndjson, path: "shared/{date}-{seq}.ndjson.gz"}
          b: {type: ndjson, path: "shared/{date}-{seq}.ndjson.gz"}
        """)
        let message = "p.yaml:4:27: destination 'b' can write the same files as destination 'a'"
        let validate = try SluiceBinary.run(["validate", "p.yaml"], in: directory.path)
        #expect(validate.status == 78)
        #expect(validate.stderr.contains(message), "\(validate.stderr)")
        directory.write("in.ndjson", "{\"type\":\"track\",\"event\":\"x\",\"anonymousId\":\"a\",\"timestamp\":\"2026-11-20T08:00:00Z\"}\n")
        let run = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "in.ndjson"], in: directory.path)
        #expect(run.status == 78)
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out")))
    }

    @Test(arguments: [
        (["run", "--flush-interval", "9999999999999999d"], "'9999999999999999d' is invalid for '--flush-interval <duration>': is too long: at most 36500d (100 years)"),
        (["run", "--shutdown-timeout", "99999999999999999999ms"], "'99999999999999999999ms' is invalid for '--shutdown-timeout <duration>': is too long"),
        (["run", "--flush-interval", "5 minutes"], "'5 minutes' is invalid for '--flush-interval <duration>': is not a duration"),
        (["generate", "--devices", "999999999999"], "--devices must be between 1 and 10000000"),
        (["generate", "--events", "99999999999999999999"], "--events"),
    ])
    func numericOptionsTooLargeAreUsageErrorsNotCrashes(_ arguments: [String], _ message: String) throws {
        let directory = TemporaryDirectory()
        let result = try SluiceBinary.run(arguments, in: directory.path)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func generateIsDeterministicForASeedAndWritesExactlyNLines() throws {
        let directory = TemporaryDirectory()
        let a = try SluiceBinary.run(["generate", "--events", "3000", "--seed", "11", "--malformed", "0.02"], in: directory.path)
        let b = try SluiceBinary.run(["generate", "--events", "3000", "--seed", "11", "--malformed", "0.02"], in: directory.path)
        let c = try SluiceBinary.run(["generate", "--events", "3000", "--seed", "12"], in: directory.path)
        #expect(a.status == 0)
        #expect(a.stdout == b.stdout)
        #expect(a.stdout != c.stdout)
        #expect(a.stdout.filter { $0 == 0x0A }.count == 3000)
    }

    @Test func everyCommandHasHelpWithAnExample() throws {
        for command in ["run", "validate", "test", "generate"] {
            let result = try SluiceBinary.run([command, "--help"], in: repositoryRoot)
            #expect(result.status == 0)
            #expect(result.stdoutText.contains("sluice "), "\(command) --help has no example")
        }
    }

    @Test(arguments: ["validate", "test"])
    func anAliasBombInTestsIsAConfigErrorNotAnOutOfMemoryKill(command: String) throws {
        let directory = TemporaryDirectory()
        var yaml = "version: 1\ndestinations:\n  a: {type: ndjson}\ntests:\n  - name: bomb\n    input:\n"
        yaml += "      - &a0 {type: track, event: e, anonymousId: d, timestamp: \"2026-11-20T08:00:00Z\", p: [x, x, x, x, x, x, x, x, x, x]}\n"
        for level in 1...9 { yaml += "      - &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]\n" }
        directory.write("bomb.yaml", yaml)
        #expect(yaml.utf8.count < 1024)
        let result = try SluiceBinary.run([command, "bomb.yaml"], in: directory.path)
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stderr.contains("more than 1000000 values once its aliases (*name) are expanded"), "\(result.stderr)")
    }

    @Test(arguments: ["validate", "test", "run"])
    func anAliasOfALongValueRepeatedIsAConfigErrorNamingTheByteCap(command: String) throws {
        // Under 9 KB and 11,111 values, which stood for 80 MiB of text (hundreds of MB to GB in memory).
        let directory = TemporaryDirectory()
        var yaml = "version: 1\ndestinations:\n  a: {type: ndjson}\ntests:\n  - name: wide\n    input:\n"
        yaml += "      - &a0 {type: track, event: e, anonymousId: d, timestamp: \"2026-11-20T08:00:00Z\", p: \""
            + String(repeating: "x", count: 8000) + "\"}\n"
        for level in 1...4 { yaml += "      - &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]\n" }
        directory.write("wide.yaml", yaml)
        directory.write("in.ndjson", "")
        #expect(yaml.utf8.count < 9000)
        let arguments = command == "run" ? ["run", "--pipeline", "wide.yaml", "in.ndjson"] : [command, "wide.yaml"]
        let result = try SluiceBinary.run(arguments, in: directory.path)
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stderr.contains("more than 32 MiB (33554432 bytes of text) once its aliases (*name) are expanded"), "\(result.stderr)")
    }

    @Test func validateSaysWhatThePipelinesOutputBuffersWillTake() throws {
        let directory = TemporaryDirectory()
        directory.write("few.yaml", "version: 1\ndestinations:\n  a: {type: ndjson}\n")
        directory.write("many.yaml", "version: 1\ndestinations:\n" + (1...1000).map { "  d\($0): {type: ndjson}\n" }.joined())
        let few = try SluiceBinary.run(["validate", "few.yaml"], in: directory.path)
        #expect(few.status == 0, "\(few.stderr)")
        #expect(few.stdoutText.contains("few.yaml: output buffers: at most "), "\(few.stdoutText)")
        #expect(few.stdoutText.contains("for each of 2 file outputs"), "\(few.stdoutText)")
        #expect(few.stdoutText.contains("a queue of 32 chunks of 128 KiB, blocks of 1024 KiB"), "\(few.stdoutText)")
        let many = try SluiceBinary.run(["validate", "many.yaml"], in: directory.path)
        #expect(many.status == 0, "\(many.stderr)")
        #expect(many.stdoutText.contains("for each of 1001 file outputs"), "\(many.stdoutText)")
        #expect(many.stdoutText.contains("blocks of 64 KiB, 1 in the deflate pool"), "\(many.stdoutText)")
    }

    @Test(arguments: ["validate", "run"])
    func aNULInAPathTemplateIsRefusedAtLoadNotLookedForForever(command: String) throws {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", "version: 1\ndestinations:\n  a: {type: ndjson, path: \"{dest}/x\\0y-{seq}.ndjson.gz\"}\n")
        directory.write("in.ndjson", #"{"type":"track","event":"e","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z"}"# + "\n")
        let arguments = command == "run" ? ["run", "--pipeline", "p.yaml", "in.ndjson"] : ["validate", "p.yaml"]
        let result = try SluiceBinary.run(arguments, in: directory.path)
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stderr.contains("the path holds the control character U+0000"), "\(result.stderr)")
    }
}
