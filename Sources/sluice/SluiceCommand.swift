import ArgumentParser
import Dispatch
import Sluice
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Async-capable at the root: `send` is an `AsyncParsableCommand`, the others
/// are `ParsableCommand`s (`SluiceMain` runs each as it is).
struct SluiceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sluice",
        abstract: "Route app analytics events (NDJSON) to each provider's import format, as gzip files.",
        discussion: """
        Examples:
          sluice generate --events 100000 | sluice run
          sluice run --pipeline app.yaml --out out logs/2026-11-20/*.ndjson.gz
          sluice validate pipelines/*.yaml
          sluice test pipelines/*.yaml
          sluice recover out
          sluice stats merge shard-*.json --out job.json
          sluice shard-of --shards 16 logs/*.ndjson.gz > shards.tsv
          MIXPANEL_SECRET=... sluice send --pipeline app.yaml out
        """,
        version: SluiceVersion.text,
        subcommands: [RunCommand.self, ValidateCommand.self, TestCommand.self, GenerateCommand.self, RecoverCommand.self,
                      StatsCommand.self, ShardOfCommand.self, SendCommand.self, PlanCommand.self, ServeCommand.self]
    )
}

/// The entry point: parses, runs, and reports every error in one style,
/// `sluice: error: ...` on stderr (argument errors too, followed by the
/// usage), so a CI problem matcher reads them all alike.
///
/// The synchronous commands run on the main thread itself (`run`'s reading
/// thread, with the main thread's stack and signal mask, is what the
/// performance figures measure). An async one (`send`) runs as a task and the
/// main thread is handed to Dispatch, as an `async` `main` would hand it for
/// every command: the task ends the process when the command is done.
@main
@MainActor
enum SluiceMain {
    static func main() {
        let parsed: ParsableCommand
        do {
            parsed = try SluiceCommand.parseAsRoot()
        } catch {
            exit(Int32(truncatingIfNeeded: report(error)))
        }
        if let command = parsed as? AsyncParsableCommand { runAsync(command) }
        var command = parsed
        do {
            try command.run()
        } catch {
            exit(Int32(truncatingIfNeeded: report(error)))
        }
        exit(0)
    }

    private nonisolated static func runAsync(_ command: sending AsyncParsableCommand) -> Never {
        Task {
            var command = command
            do {
                try await command.run()
            } catch {
                exit(Int32(truncatingIfNeeded: report(error)))
            }
            exit(0)
        }
        dispatchMain()
    }

    /// Prints what `error` means (help and `--version` on stdout, errors on stderr) and gives the exit status.
    private nonisolated static func report(_ error: Error) -> Int32 {
        let status = SluiceCommand.exitCode(for: error).rawValue
        let text = SluiceCommand.fullMessage(for: error)
        if status == 0 {
            if !text.isEmpty { print(text) }
            return 0
        }
        guard !text.isEmpty else { return status }   // ExitCode: the command has said why already
        let message = text.hasPrefix("Error: ") ? String(text.dropFirst("Error: ".count)) : text
        Diagnostics.error(message, continuation: true)
        return status
    }
}
