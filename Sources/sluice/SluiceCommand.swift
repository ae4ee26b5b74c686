import ArgumentParser
import Sluice
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Async at the root so that `send`, the one async subcommand, runs on the
/// cooperative pool; the others are `ParsableCommand`s run as they are.
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
                      StatsCommand.self, ShardOfCommand.self, SendCommand.self]
    )
}

/// The entry point: parses, runs, and reports every error in one style,
/// `sluice: error: ...` on stderr (argument errors too, followed by the
/// usage), so a CI problem matcher reads them all alike.
@main
enum SluiceMain {
    static func main() async {
        do {
            var command = try await SluiceCommand.asyncParseAsRoot()
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            exit(Int32(truncatingIfNeeded: report(error)))
        }
        exit(0)
    }

    /// Prints what `error` means (help and `--version` on stdout, errors on stderr) and gives the exit status.
    private static func report(_ error: Error) -> Int32 {
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
