import ArgumentParser
import Sluice

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check pipeline files without running them.",
        discussion: """
        Prints every problem as file:line:column: message, all at once, and exits
        78 (EX_CONFIG) if there is any. The `tests:` cases are checked too, and a
        tracking plan is linted against every destination: a planned event a
        destination would refuse is an error; one it would rename, flatten or
        leave out (in part) is a warning (an error with --strict).

        Values may use ${VAR} and ${VAR:-default} ($$ for a `$`); each value so
        written is printed with what it resolved to, except a secret's (a key
        naming a token, secret, key or password): an unset VAR is an error.

        With --shard (or SLUICE_SHARD), the file is checked for a sharded run: a
        file output path without {shard} is an error. Without it, a path with {shard}
        gets a note saying what {shard} becomes ("all").

        Examples:
          sluice validate pipelines/*.yaml
          sluice validate --shard 0 --strict app.yaml
        """
    )

    @Flag(help: "Treat lint warnings as errors (exit 78).")
    var strict = false

    @Option(help: ArgumentHelp("Check the output paths for a sharded run with this shard (default: $SLUICE_SHARD).",
                               valueName: "id"))
    var shard: String?

    @Argument(help: "Pipeline files to check.", completion: .file(extensions: ["yaml", "yml"]))
    var files: [String]

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one pipeline file") }
        _ = try resolvedShard()
    }

    /// `--shard`, else `SLUICE_SHARD`; a bad name is a usage error (exit 64).
    private func resolvedShard() throws -> ShardID? {
        do {
            return try ShardID.resolve(option: self.shard, environment: ConfigReader.processEnvironment)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func run() throws {
        let shard = try resolvedShard()
        var failed = false
        for file in files {
            do {
                let configuration = try PipelineConfiguration.load(path: file)
                _ = try configuration.testCases()
                let findings = configuration.lint() + configuration.shardLint(shard: shard)
                for finding in findings { Diagnostics.finding(finding.description) }
                let warnings = findings.filter { $0.severity == .warning }.count
                if findings.contains(where: { $0.severity == .error }) || (strict && warnings > 0) {
                    failed = true
                } else {
                    for substitution in configuration.substitutions { print(substitution.description) }
                    print("\(file): \(configuration.outputBudget)")
                    print("\(file): ok" + (warnings == 0 ? "" : " (\(warnings) warning\(warnings == 1 ? "" : "s"))"))
                }
            } catch let error as ConfigurationError {
                Diagnostics.error(error.description)
                failed = true
            }
        }
        try StandardOutput.finish()
        if failed { throw ExitCode(ExitStatus.config) }
    }
}
