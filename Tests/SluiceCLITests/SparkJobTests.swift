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

    @Test(.enabled(if: SparkJobTests.sparkSubmit != nil || SparkJobTests.required, "spark-submit not on PATH (pip install pyspark)"))
    func theShardsOnSparkWriteExactlyTheRecordsOfOneRunAndARetriedPartitionAddsNone() throws {
        let sparkSubmit = try #require(Self.sparkSubmit, "spark-submit not on PATH: pip install pyspark")
        let directory = TemporaryDirectory()
        try writeServerLogs(directory)
        let pipeline = repositoryRoot + "/pipelines/sharded.yaml"

        let single = try SluiceBinary.run(["run", "--pipeline", pipeline, "--out", "single", "--stats", "single.json",
                                           "--quiet", "logs"], in: directory.path)
        #expect(single.status == 0, "\(single.stderr)")

        // Partition 1's first attempt is killed half-way; Spark (up to 3 attempts a task) runs it again.
        let job = try SluiceBinary.shell("""
            exec "\(sparkSubmit)" --master 'local[2,3]' --conf spark.ui.enabled=false \
                "\(repositoryRoot)/integrations/spark/sluice_spark.py" --sluice "$SLUICE" --pipeline "\(pipeline)" \
                --out sharded --partitions 4 --stats merged.json --metrics merged.prom --inject-failure 1 logs
            """, in: directory.path)
        #expect(job.status == 0, "\(job.stderr.suffix(4000))")
        // The first attempt of partition 1 was killed, and Spark ran it again.
        #expect(job.stderr.contains("shard 1 (attempt 0): sluice exited -9"), "no retried partition in the job's log")

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
        #expect(!files.contains { $0.hasSuffix(".part") || $0.contains(".sluice-staging") })

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
    }
}
