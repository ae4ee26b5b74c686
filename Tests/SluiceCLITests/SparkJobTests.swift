import Foundation
import SluiceTestSupport
import Testing

/// End-to-end: `integrations/spark/sluice_spark.py` under `spark-submit` in
/// local mode, against one `sluice run` of the same eight log files.
///
/// Needs PySpark (`pip install pyspark`) and Java 17. CI installs both and sets
/// `SLUICE_REQUIRE_SPARK=1`, under which a missing `spark-submit` fails the test
/// instead of leaving it out.
@Suite(.serialized) struct SparkJobTests {
    static let sparkSubmit: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/spark-submit" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()
    static let required = ProcessInfo.processInfo.environment["SLUICE_REQUIRE_SPARK"] == "1"

    private func object(_ bytes: [UInt8]) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
    }

    /// Every record of `destination` under `out`, decompressed, sorted (the shards' files and one run's differ in name).
    private func records(_ directory: TemporaryDirectory, out: String, _ destination: String) -> [String] {
        gunzipFiles(directory, under: out + "/" + destination + "/").flatMap(\.lines)
            .map { String(decoding: $0, as: UTF8.self) }.sorted()
    }

    /// A generated day of logs from eight servers: the stream in event-time order
    /// (as collectors write it), its lines dealt round-robin; two files gzipped.
    private func writeServerLogs(_ directory: TemporaryDirectory) throws {
        let generated = try SluiceBinary.run(["generate", "--events", "24000", "--seed", "11", "--duplicates", "0.01",
                                              "--malformed", "0.005"], in: directory.path)
        try #require(generated.status == 0)
        let lines = ndjsonLines(generated.stdout)
        let stream = directory.write("stream.ndjson", generated.stdout)
        let keyed = try SluiceBinary.run(["shard-of", "--shards", "1", stream], in: directory.path)
        try #require(keyed.status == 0, "\(keyed.stderr)")
        let times = ndjsonLines(keyed.stdout).map { Int(String(decoding: $0.split(separator: 0x09)[1], as: UTF8.self))! }
        try #require(times.count == lines.count)
        let order = lines.indices.sorted { (times[$0], $0) < (times[$1], $1) }
        var servers = [[UInt8]](repeating: [], count: 8)
        for (position, index) in order.enumerated() {
            servers[position % 8] += lines[index] + [0x0A]
        }
        for (server, bytes) in servers.enumerated() {
            if server < 2 {
                directory.write("logs/server-\(server).ndjson.gz", TestGzip.compress(bytes))
            } else {
                directory.write("logs/server-\(server).ndjson", bytes)
            }
        }
    }

    /// The job under spark-submit in local mode (2 threads, up to 3 attempts a task), in `directory`.
    private func sparkJob(_ arguments: String, in directory: TemporaryDirectory) throws -> (result: SluiceBinary.Result, seconds: Double) {
        let sparkSubmit = try #require(Self.sparkSubmit, "spark-submit not on PATH: pip install pyspark")
        let started = Date()
        let result = try SluiceBinary.shell("""
            exec "\(sparkSubmit)" --master 'local[2,3]' --conf spark.ui.enabled=false \
                "\(repositoryRoot)/integrations/spark/sluice_spark.py" --sluice "$SLUICE" \(arguments)
            """, in: directory.path)
        return (result, Date().timeIntervalSince(started))
    }

    private func lastLine(_ text: String) -> String {
        text.split(separator: "\n").last.map(String.init) ?? ""
    }

    @Test(.enabled(if: SparkJobTests.sparkSubmit != nil || SparkJobTests.required, "spark-submit not on PATH (pip install pyspark)"))
    func theShardsOnSparkWriteExactlyTheRecordsOfOneRunAndAnAttemptKilledOrCutShortCommitsNothing() throws {
        let directory = TemporaryDirectory()
        try writeServerLogs(directory)
        let pipeline = repositoryRoot + "/pipelines/sharded.yaml"

        let single = try SluiceBinary.run(["run", "--pipeline", pipeline, "--out", "single", "--stats", "single.json",
                                           "--quiet", "logs"], in: directory.path)
        #expect(single.status == 0, "\(single.stderr)")

        // Partition 1's first attempt ends its Sluice's stdin after 1000 lines, lets it exit 0 (its files
        // are finished), then its task dies: what a task Spark kills or loses leaves behind. Partition 2's
        // first attempt ends its Sluice's stdin after 1000 lines and goes on as if it had written them all.
        // Spark (up to 3 attempts a task) runs both again.
        let (job, seconds) = try sparkJob("""
            --pipeline "\(pipeline)" --out sharded --partitions 4 --stats merged.json --metrics merged.prom \
            --inject-failure 1 --inject-lost-lines 2 logs
            """, in: directory)
        #expect(job.status == 0, "\(job.stderr.suffix(4000))")
        #expect(job.stderr.contains(try Regex(#"sluice_spark\.py: shard-1-attempt-0-task-\d+ did not report \(its task was killed or lost, or another attempt of its shard reported first\): nothing of it is committed"#)),
                "the killed attempt is not in the job's log")
        #expect(job.stderr.contains("shard 2 (attempt 0): sluice exited 0 but read 1000 of the "), "the short attempt is not in the job's log")
        for destination in ["mixpanel", "amplitude"] {
            let one = records(directory, out: "single", destination)
            let shards = records(directory, out: "sharded", destination)
            #expect(one.count > 10_000)
            #expect(shards.count == one.count, "\(destination): \(shards.count) records from the shards, \(one.count) from one run")
            #expect(shards == one, "\(destination): the shards' records differ from one run's")
        }
        // Every shard wrote under its own name; nothing of an attempt is left behind.
        let files = directory.files()
        for shard in 0..<4 {
            #expect(files.contains { $0.hasPrefix("sharded/mixpanel/") && $0.contains("mixpanel-\(shard)-") }, "no file of shard \(shard)")
        }
        #expect(!files.contains { $0.hasSuffix(".part") || $0.contains(".sluice-attempts") || $0.contains(".sluice-staging") })
        #expect(!FileManager.default.fileExists(atPath: directory.file("sharded/.sluice-attempts")))

        // The merged accounting is one run's.
        let merged = try #require(object(Array(FileManager.default.contents(atPath: directory.file("merged.json")) ?? Data())))
        let one = try #require(object(Array(FileManager.default.contents(atPath: directory.file("single.json")) ?? Data())))
        for key in ["lines_in", "emitted", "merged", "rejected", "dropped", "carried"] {
            #expect(merged[key] as? Int == one[key] as? Int, "\(key): \(merged[key] ?? "nil") merged, \(one[key] ?? "nil") in one run")
        }
        #expect(merged["balanced"] as? Bool == true)
        for key in ["rejected_by_reason", "dropped_by_reason"] {
            #expect(NSDictionary(dictionary: merged[key] as? [String: Any] ?? [:]) == NSDictionary(dictionary: one[key] as? [String: Any] ?? [:]),
                    "\(key) differs")
        }
        let mergedRecords = (merged["destinations"] as? [[String: Any]] ?? []).map { ($0["name"] as? String ?? "", $0["records"] as? Int ?? -1) }
        let oneRecords = (one["destinations"] as? [[String: Any]] ?? []).map { ($0["name"] as? String ?? "", $0["records"] as? Int ?? -1) }
        #expect(mergedRecords.map(\.0) == oneRecords.map(\.0) && mergedRecords.map(\.1) == oneRecords.map(\.1))
        let metrics = String(decoding: FileManager.default.contents(atPath: directory.file("merged.prom")) ?? Data(), as: UTF8.self)
        #expect(metrics.contains("sluice_lines_in_total \(one["lines_in"] as? Int ?? -1)"))
        // The files the merged stats list are the committed ones, under --out.
        let listed = (merged["files"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
        #expect(!listed.isEmpty && listed.allSatisfy { $0.hasPrefix(directory.file("sharded") + "/") && FileManager.default.fileExists(atPath: $0) })
        // Its time is the job's (Spark's start, the retries, the commit), not its slowest shard's.
        let elapsed = try #require(merged["elapsed_seconds"] as? Double)
        #expect(elapsed <= seconds && elapsed > 2, "elapsed_seconds \(elapsed), the job took \(seconds)s")
    }

    /// Logs as mobile SDKs deliver them (out of order by minutes to hours, with ties), split at random
    /// into five files given in no particular order: 2 and 3 partitions write one machine's records.
    @Test(.enabled(if: SparkJobTests.sparkSubmit != nil || SparkJobTests.required, "spark-submit not on PATH (pip install pyspark)"))
    func disorderedLogsSplitAtRandomGiveOneMachinesRecordsWithTwoOrThreePartitions() throws {
        let directory = TemporaryDirectory()
        let generated = try SluiceBinary.run(["generate", "--events", "12000", "--seed", "19", "--duplicates", "0.02", "--late", "0.02"],
                                             in: directory.path)
        try #require(generated.status == 0)
        let lines = ndjsonLines(generated.stdout)
        let keyed = try SluiceBinary.run(["shard-of", "--shards", "1", directory.write("stream.ndjson", generated.stdout)], in: directory.path)
        try #require(keyed.status == 0, "\(keyed.stderr)")
        let times = ndjsonLines(keyed.stdout).map { Int(String(decoding: $0.split(separator: 0x09)[1], as: UTF8.self))! }
        var random = TestRandom(state: 77)
        let arrived = DisorderedLogs.arrivalOrder(lines, times, maxDelayMs: 2 * 3_600_000, random: &random)
        directory.write("one.ndjson", arrived.flatMap { $0 + [UInt8(0x0A)] })
        var files = [[UInt8]](repeating: [], count: 5)
        for line in arrived { files[random.below(5)] += line + [0x0A] }
        let names = ["c.ndjson.gz", "a.ndjson", "e.ndjson", "b.ndjson.gz", "d.ndjson"]
        for (index, bytes) in files.enumerated() {
            directory.write("logs/" + names[index], names[index].hasSuffix(".gz") ? TestGzip.compress(bytes) : bytes)
        }
        let pipeline = repositoryRoot + "/pipelines/sharded.yaml"
        let single = try SluiceBinary.run(["run", "--pipeline", pipeline, "--out", "single", "--quiet", "one.ndjson"], in: directory.path)
        #expect(single.status == 0, "\(single.stderr)")
        for partitions in [2, 3] {
            let given = names.shuffled().map { "logs/" + $0 }.joined(separator: " ")
            let (job, _) = try sparkJob("--pipeline \"\(pipeline)\" --out sharded-\(partitions) --partitions \(partitions) \(given)", in: directory)
            #expect(job.status == 0, "\(job.stderr.suffix(4000))")
            for destination in ["mixpanel", "amplitude"] {
                let one = records(directory, out: "single", destination)
                #expect(one.count > 5000)
                #expect(records(directory, out: "sharded-\(partitions)", destination) == one,
                        "\(partitions) partitions: \(destination) differs from one machine's")
            }
        }
    }

    @Test(.enabled(if: SparkJobTests.sparkSubmit != nil || SparkJobTests.required, "spark-submit not on PATH (pip install pyspark)"))
    func aPipelineWithoutShardOrAMissingInputFailsBeforeSparkStartsWithSluicesOwnMessageLast() throws {
        let directory = TemporaryDirectory()
        // The destination's path has {shard}; the rejects' (the default) has not.
        directory.write("p.yaml", """
            version: 1
            destinations:
              archive: {type: ndjson, path: "{dest}/{date}/{dest}-{shard}-{hour}-{seq}.ndjson.gz"}
            """)
        #expect(try SluiceBinary.shell("$SLUICE generate --events 100 > in.ndjson", in: directory.path).status == 0)

        // About 7 s on a quiet machine, nearly all of it spark-submit's own JVM start (docs/scale-out.md);
        // that start took 10.4 s once under a parallel test run, so the bound here is a hang guard. That the
        // job failed before any Spark work is shown by `out` never being made (the job makes it just before
        // Spark starts).
        let (noShard, seconds) = try sparkJob("--pipeline p.yaml --out out --partitions 2 in.ndjson", in: directory)
        #expect(noShard.status == 78, "\(noShard.stderr.suffix(4000))")
        #expect(seconds < 20, "the job took \(seconds)s to fail")
        #expect(lastLine(noShard.stderr) == "sluice: error: \(directory.file("p.yaml")):1:1: rejects.path "
            + "\"rejects/{date}/rejects-{seq}.ndjson.gz\" has no {shard}: with --shard 0, the shards that share --out would write the same names; "
            + "put {shard} in it, e.g. \"rejects/{date}/rejects-{shard}-{seq}.ndjson.gz\"", "\(noShard.stderr.suffix(2000))")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out")), "the job made its --out")

        let (missing, missingSeconds) = try sparkJob("--pipeline \"\(repositoryRoot)/pipelines/sharded.yaml\" --out out --partitions 2 in.ndjson nope.ndjson",
                                                     in: directory)
        #expect(missing.status == 66, "\(missing.stderr.suffix(4000))")
        #expect(missingSeconds < 20, "the job took \(missingSeconds)s to fail")
        #expect(lastLine(missing.stderr) == "sluice_spark.py: error: cannot open input nope.ndjson: No such file or directory",
                "\(missing.stderr.suffix(2000))")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out")), "the job made its --out")
    }

    @Test(.enabled(if: SparkJobTests.sparkSubmit != nil || SparkJobTests.required, "spark-submit not on PATH (pip install pyspark)"))
    func aShardThatFailsInEveryAttemptEndsTheJobWithItsSluicesMessageLastAndCommitsNothing() throws {
        let directory = TemporaryDirectory()
        #expect(try SluiceBinary.shell("$SLUICE generate --events 2000 --seed 3 > in.ndjson", in: directory.path).status == 0)
        // Partition 1's Sluice is given a --metrics file it cannot write, in every attempt.
        let (job, _) = try sparkJob("""
            --pipeline "\(repositoryRoot)/pipelines/sharded.yaml" --out out --partitions 2 --inject-sluice-error 1 in.ndjson
            """, in: directory)
        #expect(job.status == 70, "\(job.stderr.suffix(4000))")
        let lines = job.stderr.split(separator: "\n").suffix(2).map(String.init)
        #expect(lines.first == "sluice_spark.py: error: shard 1 failed in its 3 attempts (the last: sluice exited 73); "
            + "nothing of the job was moved into OUT; its sluice said:", "\(job.stderr.suffix(2000))")
        #expect(lines.last == "sluice: error: cannot write --metrics /dev/null/metrics.prom: Not a directory; nothing was read")
        // Shard 0 succeeded, but nothing of the job is committed.
        #expect(!directory.files().contains { $0.hasPrefix("out/") }, "\(directory.files().filter { $0.hasPrefix("out/") })")
    }
}
