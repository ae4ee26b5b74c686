import ArgumentParser
import Sluice

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check pipeline files without running them.",
        discussion: """
        Prints every problem as file:line:column: message, all at once, and exits
        78 (EX_CONFIG) if there is any.

        Example:
          sluice validate pipelines/*.yaml
        """
    )

    @Argument(help: "Pipeline files to check.")
    var files: [String]

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one pipeline file") }
    }

    func run() throws {
        var failed = false
        for file in files {
            do {
                _ = try PipelineConfiguration.load(path: file)
                print("\(file): ok")
            } catch let error as ConfigurationError {
                Diagnostics.error(error.description)
                failed = true
            }
        }
        if failed { throw ExitCode(ExitStatus.config) }
    }
}
