import Foundation
import SluiceTestSupport
import Testing

/// End-to-end: `sluice shard-of`, the line a driver partitions and sorts by.
@Suite struct ShardOfCommandTests {
    /// `SHARD<TAB>TIME_MS` lines as pairs.
    private func pairs(_ result: SluiceBinary.Result) -> [(shard: UInt64, time: Int64)] {
        result.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { line in
            let fields = line.split(separator: "\t")
            return (UInt64(fields[0]) ?? .max, Int64(fields[1]) ?? .min)
        }
    }

    @Test func theDocumentedVectorsAreWhatShardOfPrints() throws {
        let vectors = try ShardTestVector.read(repositoryRoot: repositoryRoot)
        #expect(vectors.count == 12)
        let directory = TemporaryDirectory()
        directory.write("vectors.ndjson", vectors.map { $0.line + "\n" }.joined())
        for n in ShardTestVector.columns {
            let result = try SluiceBinary.run(["shard-of", "--shards", "\(n)", "vectors.ndjson"], in: directory.path)
            #expect(result.status == 0, "\(result.stderr)")
            let printed = pairs(result)
            #expect(printed.map(\.shard) == vectors.map { $0.shards[n]! }, "N=\(n)")
            #expect(printed.map(\.time) == vectors.map(\.timeMilliseconds), "N=\(n)")
        }
    }

    @Test func everyLineGetsOneLineInOrderAndLinesRunRejectsGoToShardZeroAtThePreviousTime() throws {
        let directory = TemporaryDirectory()
        let event = { (id: String, second: Int) in
            #"{"type":"track","event":"e","anonymousId":"\#(id)","timestamp":"2026-11-20T08:00:0\#(second)Z"}"#
        }
        let long = #"{"type":"track","event":"e","anonymousId":"dev-000001-7f3a9c21","timestamp":"2026-11-20T08:00:09Z","p":""#
            + String(repeating: "x", count: 200) + #""}"#
        let lines = [
            "not json",                                  // first line: shard 0, time 0
            event("dev-000001-7f3a9c21", 1) + "\r",       // a \r\n ending
            "",                                          // blank
            "   \t",                                     // blank
            #"{"type":"track","anonymousId":"a","timestamp":"2026-11-20T08:00:05Z"}"#,  // missing_event_name
            event("a", 2),
            long,                                        // longer than --max-line-bytes 200
            #"{"type":"track","event":"e","anonymousId":"a","timestamp":"2026-11-20T08:00:07Z","anonymousId":"b"}"#,  // duplicate_key
            event("dev-000001-7f3a9c21", 3),             // the last line, without a newline
        ]
        directory.write("in.ndjson", lines.joined(separator: "\n"))
        let result = try SluiceBinary.run(["shard-of", "--shards", "16", "--max-line-bytes", "200", "in.ndjson"], in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        let t0 = Int64(1_795_161_600_000)
        let expected: [(UInt64, Int64)] = [(0, 0), (6, t0 + 1000), (0, t0 + 1000), (0, t0 + 1000), (0, t0 + 1000),
                                           (1, t0 + 2000), (0, t0 + 2000), (0, t0 + 2000), (6, t0 + 3000)]
        let printed = pairs(result)
        #expect(printed.map(\.shard) == expected.map(\.0))
        #expect(printed.map(\.time) == expected.map(\.1))

        // A run with the same max_line_bytes rejects exactly the lines in shard 0 that are not blank.
        directory.write("p.yaml", "version: 1\ninput: {max_line_bytes: 200}\ndestinations:\n  archive: {type: ndjson}\n")
        let run = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "--stats", "s.json", "in.ndjson"], in: directory.path)
        let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("s.json")))) as? [String: Any]
        #expect(run.status == 0)
        #expect(stats?["rejected"] as? Int == 4)
        #expect(stats?["blank_lines"] as? Int == 2)
    }

    @Test func eachInputStartsItsTimeAtZeroAndInputsAreReadInOrder() throws {
        let directory = TemporaryDirectory()
        directory.write("a.ndjson", #"{"type":"identify","userId":"u","timestamp":"2026-11-20T08:00:00Z"}"# + "\n")
        directory.write("b.ndjson", "{\n")
        let result = try SluiceBinary.run(["shard-of", "--shards", "4", "a.ndjson", "b.ndjson", "a.ndjson"], in: directory.path)
        #expect(pairs(result).map(\.time) == [1_795_161_600_000, 0, 1_795_161_600_000])
    }

    @Test func aDirectoryIsItsFilesInNameOrderAsRunReadsIt() throws {
        let directory = TemporaryDirectory()
        directory.write("logs/b.ndjson", "{\n")
        directory.write("logs/a.ndjson", #"{"type":"identify","userId":"u","timestamp":"2026-11-20T08:00:00Z"}"# + "\n")
        let result = try SluiceBinary.run(["shard-of", "--shards", "4", "logs"], in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        let files = try SluiceBinary.run(["shard-of", "--shards", "4", "logs/a.ndjson", "logs/b.ndjson"], in: directory.path)
        #expect(result.stdoutText == files.stdoutText)
        #expect(pairs(result).map(\.time) == [1_795_161_600_000, 0])
    }

    @Test func gzipPlainAndStdinGiveTheSameLines() throws {
        let directory = TemporaryDirectory()
        #expect(try SluiceBinary.shell("$SLUICE generate --events 6000 --malformed 0.02 --seed 4 > in.ndjson "
            + "&& head -n 2500 in.ndjson | gzip > in.ndjson.gz && tail -n +2501 in.ndjson | gzip >> in.ndjson.gz",
            in: directory.path).status == 0)
        let plain = try SluiceBinary.run(["shard-of", "--shards", "5", "in.ndjson"], in: directory.path)
        let gzip = try SluiceBinary.run(["shard-of", "--shards", "5", "in.ndjson.gz"], in: directory.path)
        let stdin = try SluiceBinary.run(["shard-of", "--shards", "5"], in: directory.path, stdin: directory.file("in.ndjson"))
        #expect(plain.status == 0 && gzip.status == 0 && stdin.status == 0)
        #expect(pairs(plain).count == 6000)
        #expect(plain.stdout == gzip.stdout)
        #expect(plain.stdout == stdin.stdout)
    }

    @Test func everyLineOfADeviceIsInTheSameShard() throws {
        let directory = TemporaryDirectory()
        #expect(try SluiceBinary.shell("$SLUICE generate --events 6000 --seed 4 > in.ndjson", in: directory.path).status == 0)
        let result = try SluiceBinary.run(["shard-of", "--shards", "5", "in.ndjson"], in: directory.path)
        let input = ndjsonLines(Array(FileManager.default.contents(atPath: directory.file("in.ndjson"))!))
        let printed = pairs(result)
        #expect(printed.count == input.count)
        var shardOfDevice: [String: UInt64] = [:]
        for (line, assigned) in zip(input, printed) {
            let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
            let device = try #require(object?["anonymousId"] as? String)
            let known = shardOfDevice[device, default: assigned.shard]
            #expect(known == assigned.shard, "\(device) is in shards \(known) and \(assigned.shard)")
            shardOfDevice[device] = known
        }
        #expect(Set(shardOfDevice.values) == [0, 1, 2, 3, 4])
        #expect(shardOfDevice.count > 50)
    }

    @Test func aMissingInputPrintsNothingAndExits66AndABadShardCountIsAUsageError() throws {
        let directory = TemporaryDirectory()
        directory.write("a.ndjson", "{}\n")
        let missing = try SluiceBinary.run(["shard-of", "--shards", "2", "a.ndjson", "none.ndjson"], in: directory.path)
        #expect(missing.status == 66)
        #expect(missing.stdout.isEmpty)
        #expect(missing.stderr.contains("cannot open input none.ndjson"))
        for count in ["0", "1048577", "x"] {
            #expect(try SluiceBinary.run(["shard-of", "--shards", count, "a.ndjson"], in: directory.path).status == 64)
        }
        #expect(try SluiceBinary.run(["shard-of", "--shards", "2", "--max-line-bytes", "2GiB", "a.ndjson"], in: directory.path).status == 64)
    }

    @Test func aReaderThatStopsEarlyEndsItWithZero() throws {
        let directory = TemporaryDirectory()
        let result = try SluiceBinary.shell("$SLUICE generate --events 40000 > in.ndjson && "
            + "$SLUICE shard-of --shards 2 in.ndjson | head -n 1; echo \"status ${PIPESTATUS[0]}\"", in: directory.path)
        #expect(result.stdoutText.hasSuffix("status 0\n"), "\(result.stdoutText)\(result.stderr)")
        #expect(result.stdoutText.split(separator: "\n").count == 2)
    }
}
