import Testing
@testable import Sluice

@Suite struct ShardLintTests {
    private let yaml = """
        version: 1
        destinations:
          sharded: {type: ndjson, path: "{dest}/{date}/{dest}-{shard}-{hour}-{seq}.ndjson.gz"}
          plain: {type: ndjson}
          out: {type: ndjson, path: "-"}
        rejects:
          path: "rejects/{date}/rejects-{seq}.ndjson.gz"
        """

    @Test func aShardedRunGetsAnErrorForEveryFilePathWithoutShardWhereItIsWritten() throws {
        let configuration = try PipelineConfiguration.load(yaml: yaml, file: "p.yaml")
        let found = configuration.shardLint(shard: try ShardID("3"))
        #expect(found.map(\.severity) == [.error, .error])
        #expect(found.map { "\($0.line):\($0.column)" } == ["4:10", "7:9"])
        #expect(found[0].description.hasPrefix("p.yaml:4:10: error: destinations.plain.path \"{dest}/{date}/{dest}-{hour}-{seq}.ndjson.gz\" has no {shard}: "
            + "with --shard 3, the shards that share --out would write the same names;"))
        #expect(found[0].message.hasSuffix("put {shard} in it, e.g. \"{dest}/{date}/{dest}-{hour}-{shard}-{seq}.ndjson.gz\""))
        #expect(found[1].message.hasPrefix("rejects.path \"rejects/{date}/rejects-{seq}.ndjson.gz\" has no {shard}"))
    }

    @Test func aRunWithoutAShardIsToldWhatShardBecomes() throws {
        let configuration = try PipelineConfiguration.load(yaml: yaml, file: "p.yaml")
        let found = configuration.shardLint(shard: nil)
        #expect(found.map(\.description) == [
            "p.yaml:3:33: note: destinations.sharded.path \"{dest}/{date}/{dest}-{shard}-{hour}-{seq}.ndjson.gz\": "
                + "{shard} becomes \"all\" in a run without --shard (or SLUICE_SHARD)",
        ])
    }

    @Test func pathsWithShardEverywhereSayNothingToAShardedRun() throws {
        let configuration = try PipelineConfiguration.load(yaml: """
            version: 1
            destinations:
              a: {type: ndjson, path: "{dest}/{shard}/{seq}.gz"}
            rejects: {path: "rejects/{shard}/{seq}.gz"}
            """, file: "p.yaml")
        #expect(configuration.shardLint(shard: try ShardID("0")).isEmpty)
        #expect(configuration.shardLint(shard: nil).map(\.severity) == [.note, .note])
    }
}
