import Foundation
import Sluice
import SluiceTestSupport
import Testing

/// The command line as a user meets it: the version, the help at 80 columns,
/// what a wrong value is told, one error style, and a full stdout.
@Suite struct CommandLineTests {
    static let commands = ["", "run", "validate", "test", "generate", "recover", "stats merge", "shard-of", "send", "serve"]

    @Test func versionPrintsThisBuildsVersion() throws {
        let directory = TemporaryDirectory()
        let result = try SluiceBinary.run(["--version"], in: directory.path)
        #expect(result.status == 0)
        #expect(result.stdoutText == SluiceVersion.text + "\n")
    }

    @Test(arguments: commands)
    func helpFitsEightyColumnsWithEveryExampleWhole(_ command: String) throws {
        let directory = TemporaryDirectory()
        let result = try SluiceBinary.shell("COLUMNS=80 \"$SLUICE\" \(command) --help", in: directory.path)
        #expect(result.status == 0)
        let lines = result.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for line in lines { #expect(line.count <= 80, "\(line.count) columns: \(line)") }
        // An example is one line, or lines joined by a trailing `\`: a line the
        // help wrapped would start without a command after a line without `\`.
        guard let start = lines.firstIndex(of: "Examples:") else { return }
        var previous = ""
        for line in lines[(start + 1)...] {
            if line.isEmpty { break }
            let continued = previous.hasSuffix("\\")
            #expect(continued ? line.hasPrefix("      ") : line.hasPrefix("  ") && !line.hasPrefix("   "),
                    "an example broken across lines: \(previous) / \(line)")
            previous = line
        }
    }

    /// The OPTIONS section of a command's help, each option's text joined on one line.
    private func options(_ arguments: [String], in directory: TemporaryDirectory) throws -> [String: String] {
        let help: String = try SluiceBinary.run(arguments + ["--help"], in: directory.path).stdoutText
        let section: String = help.components(separatedBy: "\nOPTIONS:\n").last ?? ""
        var entries: [String: String] = [:]
        var current = ""
        for line in section.split(separator: "\n") {
            let text: String = line.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("  -") {
                current = String(text.split(separator: " ")[0])
                entries[current] = text
            } else {
                let before: String = entries[current] ?? ""
                entries[current] = before + " " + text
            }
        }
        return entries
    }

    @Test func helpShowsEveryDefault() throws {
        let directory = TemporaryDirectory()
        let run: [String: String] = try options(["run"], in: directory)
        let runDefaults: [String] = ["--pipeline", "--out", "--progress/--no-progress", "--flush-interval", "--shutdown-timeout",
                                     "--reorder-window", "--shard"]
        for option in runDefaults {
            let help: String = run[option] ?? "absent"
            #expect(help.contains("default"), "\(option): \(help)")
        }
        #expect((run["--flush-interval"] ?? "").contains("default: 5s"))
        #expect((run["--shutdown-timeout"] ?? "").contains("default: 30s"))
        let generate: [String: String] = try options(["generate"], in: directory)
        let devices: String = generate["--devices"] ?? ""
        #expect(devices.hasSuffix("(default: events / 50, at least 10, at most 10000000)."), "\(devices)")
        let defaults: [(String, String)] = [("--events", "default: 100000"), ("--seed", "default: 1)"), ("--malformed", "default: 0)"),
                                            ("--duplicates", "default: 0.005"), ("--late", "default: 0.01"),
                                            ("--start", "default: 2026-11-20T08:00:00Z")]
        for (option, text) in defaults {
            let help: String = generate[option] ?? ""
            #expect(help.contains(text), "\(option): \(help)")
        }
    }

    @Test(arguments: [
        ["run", "--flush-interval", "-5s"], ["run", "--shutdown-timeout", "-1m"], ["run", "--reorder-window", "-30s"],
        ["generate", "--events", "-5"], ["generate", "--events", "five"], ["generate", "--devices", "-1"],
        ["generate", "--malformed", "-0.1"], ["generate", "--seed", "-3"], ["shard-of", "--shards", "-3"],
        ["shard-of", "--shards", "x"], ["shard-of", "--shards", "2", "--max-line-bytes", "-5"],
        ["send", "--pipeline", "p.yaml", "--max-retry-time", "-5s"], ["send", "--pipeline", "p.yaml", "--request-timeout", "0s"],
    ])
    func negativeOrMalformedCountsAndDurationsMustBePositive(_ arguments: [String]) throws {
        let directory = TemporaryDirectory()
        let result = try SluiceBinary.run(arguments, in: directory.path)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("sluice: error: "), "\(result.stderr)")
        #expect(result.stderr.contains("must be positive"), "\(result.stderr)")
        #expect(!result.stderr.contains("Missing value"), "\(result.stderr)")
    }

    @Test func compoundAndFractionalDurationsAreAccepted() throws {
        let directory = TemporaryDirectory()
        let result = try SluiceBinary.run(["run", "--flush-interval", "1.5s", "--shutdown-timeout", "1h30m", "--quiet"],
                                          in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
    }

    static let failingCommands: [([String], Int32)] = [
        (["run", "--bogus"], 64), (["nonsense"], 64), (["run", "--pipeline", "missing.yaml"], 78),
        (["validate", "bad.yaml"], 78), (["test", "bad.yaml"], 78), (["run", "missing.ndjson"], 66),
        (["generate", "--start", "yesterday"], 64), (["run", "--final"], 64), (["stats", "merge"], 64),
    ]

    @Test(arguments: failingCommands)
    func everyErrorStartsInTheOneErrorStyle(_ arguments: [String], _ status: Int32) throws {
        let directory = TemporaryDirectory()
        _ = directory.write("bad.yaml", "version: 1\ndestinations:\n  x: {type: ndjsn}\n")
        let result = try SluiceBinary.run(arguments, in: directory.path)
        #expect(result.status == status, "\(result.stderr)")
        let first = result.stderr.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.hasPrefix("sluice: error: "), "\(result.stderr)")
        #expect(!result.stderr.contains("Error: "), "\(result.stderr)")
    }

    @Test func commandsWritingReportsToAFullStdoutExit74() throws {
        let directory = TemporaryDirectory()
        _ = directory.write("out/a/x.ndjson.gz.part", TestGzip.compress(Array("{\"a\":1}\n".utf8)))
        let pipeline = repositoryRoot + "/pipelines/default.yaml"
        for command in ["generate --events 10", "test \(pipeline)", "recover out"] {
            let result = try SluiceBinary.shell("\"$SLUICE\" \(command) > /dev/full", in: directory.path)
            #expect(result.status == 74, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("sluice: error: cannot write to the standard output: No space left on device"),
                    "\(command): \(result.stderr)")
        }
    }

    @Test func generateIntoAReaderThatQuitsEarlyIsNoError() throws {
        let directory = TemporaryDirectory()
        let result = try SluiceBinary.shell("set -o pipefail; \"$SLUICE\" generate --events 200000 | head -c 100 > /dev/null",
                                            in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
    }
}

extension CommandLineTests {
    @Test func aPipelineThatDoesNotExistIsNamedAsThePipelineFile() throws {
        let directory = TemporaryDirectory()
        _ = directory.write("in.ndjson", "")
        let result = try SluiceBinary.run(["run", "--pipeline", "app.yml", "in.ndjson"], in: directory.path)
        #expect(result.status == 78)
        #expect(result.stderr.hasPrefix("sluice: error: app.yml:1:1: cannot open the pipeline file: No such file or directory"),
                "\(result.stderr)")
        #expect(!result.stderr.contains("input"), "\(result.stderr)")
        let send = try SluiceBinary.run(["send", "--pipeline", "app.yml"], in: directory.path)
        #expect(send.status == 78)
        #expect(send.stderr.hasPrefix("sluice: error: app.yml:1:1: cannot open the pipeline file: No such file or directory"),
                "\(send.stderr)")
    }
}

extension CommandLineTests {
    static let environmentPipeline = """
        version: 1
        destinations:
          archive:
            type: ndjson
            path: "${SLUICE_TEST_ENV:-dev}/{dest}-{seq}.ndjson.gz"
          mixpanel:
            type: mixpanel
            token: ${SLUICE_TEST_TOKEN}
        """

    @Test func pipelineFilesReadEnvironmentVariablesAndValidateHidesSecrets() throws {
        let directory = TemporaryDirectory()
        _ = directory.write("p.yaml", Self.environmentPipeline)
        _ = directory.write("in.ndjson", #"{"type":"track","event":"e","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z"}"# + "\n")
        let environment = ["SLUICE_TEST_ENV": "prod", "SLUICE_TEST_TOKEN": "s3cr3t-t0ken"]
        let validate = try SluiceBinary.shell("\"$SLUICE\" validate p.yaml", in: directory.path, environment: environment)
        #expect(validate.status == 0, "\(validate.stderr)")
        #expect(validate.stdoutText.contains(#"p.yaml:5:11: destinations.archive.path = "prod/{dest}-{seq}.ndjson.gz" from ${SLUICE_TEST_ENV:-dev}/{dest}-{seq}.ndjson.gz"#),
                "\(validate.stdoutText)")
        #expect(validate.stdoutText.contains("p.yaml:8:12: destinations.mixpanel.token = (secret, not shown) from ${SLUICE_TEST_TOKEN}"))
        #expect(!(validate.stdoutText + validate.stderr).contains("s3cr3t"))

        let run = try SluiceBinary.shell("\"$SLUICE\" run --quiet --pipeline p.yaml in.ndjson", in: directory.path, environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: directory.file("out/prod/archive-0000.ndjson.gz")), "\(directory.files())")

        // Unset without a default: exit 78 naming the variable at its place, nothing written.
        let unset = try SluiceBinary.shell("unset SLUICE_TEST_TOKEN; \"$SLUICE\" run --pipeline p.yaml --out out2 in.ndjson", in: directory.path)
        #expect(unset.status == 78)
        #expect(unset.stderr.hasPrefix("sluice: error: p.yaml:8:12: destinations.mixpanel.token: environment variable SLUICE_TEST_TOKEN is not set"),
                "\(unset.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out2")))
    }

    /// `sluice validate` refuses a key given where a variable's name goes, without printing it,
    /// and a duplicate YAML key is one `sluice: error:` line, as every error is.
    @Test func validateRefusesAKeyAsCredentialsEnvAndSaysADuplicateKeyInOneLine() throws {
        let directory = TemporaryDirectory()
        let key = "sk_live_abcdef1234567890abcdef"
        _ = directory.write("key.yaml", "version: 1\ndestinations:\n  sg: {type: segment, send: {credentials_env: \"\(key)\"}}\n")
        let secret = try SluiceBinary.run(["validate", "key.yaml"], in: directory.path)
        #expect(secret.status != 0)
        #expect(secret.stderr.contains("credentials_env looks like a secret"), "\(secret.stderr)")
        #expect(!(secret.stdoutText + secret.stderr).contains(key))
        _ = directory.write("dup.yaml", "version: 1\ndestinations:\n  mp: {type: mixpanel}\n  mp: {type: amplitude}\n")
        let duplicate = try SluiceBinary.run(["validate", "dup.yaml"], in: directory.path)
        #expect(duplicate.status != 0)
        let errors = duplicate.stderr.split(separator: "\n").filter { $0.hasPrefix("sluice: error:") }
        #expect(errors.count == 1, "\(duplicate.stderr)")
        #expect(errors.first?.contains("dup.yaml:3:3: invalid YAML:") == true && errors.first?.contains("'mp'") == true, "\(duplicate.stderr)")
    }
}

