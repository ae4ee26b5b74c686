import ArgumentParser
import Sluice

struct TestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run the test cases in pipeline files: events in, the records each destination must receive.",
        discussion: """
        Each case of a file's `tests:` runs through the real pipeline (its stages,
        routing and provider encoders) with outputs kept in memory; nothing is
        written. A failure prints which case, which destination, which record and
        which field differ, expected against received.

        Examples:
          sluice test pipelines/*.yaml
          sluice test pipelines/plan.yaml --filter "rejected"

        Exit codes: 0 every case passed, 1 a case failed (or no case ran),
        78 a pipeline file has errors (nothing runs then).
        """
    )

    @Option(help: ArgumentHelp("Run only the cases whose name contains this text (case-insensitive).", valueName: "name"))
    var filter: String?

    @Argument(help: "Pipeline files whose tests to run.", completion: .file(extensions: ["yaml", "yml"]))
    var files: [String]

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one pipeline file") }
    }

    func run() throws {
        var suites: [(configuration: PipelineConfiguration, cases: [PipelineTestCase])] = []
        var broken = false
        for file in files {
            do {
                let configuration = try PipelineConfiguration.load(path: file)
                suites.append((configuration, try configuration.testCases()))
            } catch let error as ConfigurationError {
                Diagnostics.error(error.description)
                broken = true
            }
        }
        if broken { throw ExitCode(ExitStatus.config) }
        let needle = filter?.lowercased()
        var passed = 0
        var failed = 0
        for (configuration, cases) in suites {
            for testCase in cases where needle.map({ testCase.name.lowercased().contains($0) }) ?? true {
                let result = PipelineTestRunner.run(testCase, in: configuration)
                print(result.report)
                if result.passed { passed += 1 } else { failed += 1 }
            }
        }
        try StandardOutput.finish()
        if passed + failed == 0 {
            Diagnostics.error("no test case ran" + (filter.map { " (none matches --filter \"\($0)\")" } ?? ""))
            throw ExitCode(ExitStatus.testFailure)
        }
        let total = passed + failed
        print("sluice test: \(total) case\(total == 1 ? "" : "s"), \(passed) passed, \(failed) failed")
        try StandardOutput.finish()
        if failed > 0 { throw ExitCode(ExitStatus.testFailure) }
    }
}
