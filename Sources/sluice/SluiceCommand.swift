import ArgumentParser

@main
struct SluiceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sluice",
        abstract: "Route app analytics events (NDJSON) to each provider's import format, as gzip files.",
        discussion: """
        Examples:
          sluice generate --events 100000 | sluice run
          sluice run --pipeline pipelines/default.yaml --out out logs/2026-11-20/*.ndjson.gz
          sluice validate pipelines/*.yaml
          sluice test pipelines/*.yaml
          sluice recover out
          sluice stats merge shard-*.json --out job.json
          sluice shard-of --shards 16 logs/2026-11-20/*.ndjson.gz > shards.tsv
          MIXPANEL_SECRET=... sluice send --pipeline app.yaml out
        """,
        subcommands: [RunCommand.self, ValidateCommand.self, TestCommand.self, GenerateCommand.self, RecoverCommand.self,
                      StatsCommand.self, ShardOfCommand.self, SendCommand.self]
    )
}
