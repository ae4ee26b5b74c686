import Foundation
import SluiceTestSupport
import Testing

/// End-to-end: one stream split by `sluice shard-of` and run as shards into
/// one `--out`, the way a Spark driver runs it, against one run over the
/// whole stream and one over a single device's events.
@Suite struct ShardedRunTests {
    private static let pipeline = """
        version: 1
        stages:
          - dedupe: {}
          - session: {inactivity: 30m, sign_out_events: [signed_out], attach: {settings: true}}
          - timed: {}
        destinations:
          archive: {type: ndjson, path: "{dest}/{date}/{dest}-{shard}-{hour}-{seq}.ndjson.gz"}
          mixpanel: {type: mixpanel, screen_event: "Viewed {name} Screen", path: "{dest}/{shard}/{date}/{hour}-{seq}.json.gz"}
          amplitude: {type: amplitude, min_id_length: 5, path: "{dest}/{shard}/{date}/{hour}-{seq}.json.gz"}
          ga4: {type: ga4, stream: app, names: normalize, timed: split, path: "{dest}/{shard}/{date}/{hour}-{seq}.json.gz"}
        rejects: {path: "rejects/{date}/rejects-{shard}-{seq}.ndjson.gz"}
        """

    private static let destinations = ["archive", "mixpanel", "amplitude", "ga4"]

    /// Every record of a destination under `out`, sorted (which file a record is in follows from the shard).
    private func records(_ directory: TemporaryDirectory, _ out: String, _ destination: String) -> [[UInt8]] {
        gunzipFiles(directory, under: "\(out)/\(destination)/", suffix: ".gz").flatMap(\.lines).sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// The rejects under `out` without where they came from (`source`, `line_number` name the shard's input).
    private func rejects(_ directory: TemporaryDirectory, _ out: String) -> [String] {
        gunzipFiles(directory, under: "\(out)/rejects/").flatMap(\.lines).map { line -> String in
            let object = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any] ?? [:]
            return ["stage", "reason", "destination", "line", "line_base64"].map { "\(object[$0] ?? "-")" }.joined(separator: "|")
        }.sorted()
    }

    @Test func aDevicesRecordsAreTheSameWhicheverShardItLandsInAndWhateverElseSharesIt() throws {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", Self.pipeline)
        #expect(try SluiceBinary.shell("$SLUICE generate --events 20000 --seed 11 --duplicates 0.01 --late 0.02 --malformed 0.01 "
            + "> in.ndjson && $SLUICE shard-of --shards 3 in.ndjson > in.shards", in: directory.path).status == 0)
        let input = ndjsonLines(Array(FileManager.default.contents(atPath: directory.file("in.ndjson"))!))
        let assigned = try String(contentsOfFile: directory.file("in.shards"), encoding: .utf8).split(separator: "\n").map { line in
            let fields = line.split(separator: "\t")
            return (shard: Int(fields[0])!, time: Int64(fields[1])!)
        }
        #expect(assigned.count == input.count)

        // What the driver does: each shard's lines, sorted by (TIME_MS, line number); the whole stream sorted the same way.
        let order = input.indices.sorted { (assigned[$0].time, $0) < (assigned[$1].time, $1) }
        func write(_ name: String, _ indices: [Int]) {
            directory.write(name, indices.flatMap { input[$0] + [0x0A] })
        }
        write("whole.ndjson", order)
        for shard in 0..<3 { write("shard-\(shard).ndjson", order.filter { assigned[$0].shard == shard }) }
        // One device of shard 1, alone: its lines, and its ids as records carry them.
        let deviceLines = order.filter { assigned[$0].shard == 1 }.compactMap { index -> (Int, [String: Any])? in
            guard let object = (try? JSONSerialization.jsonObject(with: Data(input[index]))) as? [String: Any] else { return nil }
            return (index, object)
        }
        let device = try #require(deviceLines.first?.1["anonymousId"] as? String)
        let alone = deviceLines.filter { $0.1["anonymousId"] as? String == device }
        let appInstance = try #require(((alone.first?.1["context"] as? [String: Any])?["device"] as? [String: Any])?["appInstanceId"] as? String)
        write("alone.ndjson", alone.map(\.0))
        #expect(alone.count > 20)

        let whole = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "--out", "whole", "whole.ndjson"], in: directory.path)
        #expect(whole.status == 0, "\(whole.stderr)")
        #expect(whole.stderr.contains("{shard} becomes \"all\" in a run without --shard"))
        for shard in 0..<3 {
            let run = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "--shard", "\(shard)", "--out", "shards", "shard-\(shard).ndjson"],
                                           in: directory.path)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(!run.stderr.contains("warning"), "\(run.stderr)")
        }
        let single = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "--shard", "9", "--out", "alone", "alone.ndjson"], in: directory.path)
        #expect(single.status == 0, "\(single.stderr)")

        for destination in Self.destinations {
            let all = records(directory, "whole", destination)
            #expect(!all.isEmpty)
            #expect(records(directory, "shards", destination) == all, "\(destination): the shards' records are not the whole run's")
            let ids = ["\"\(device)\"", "\"\(appInstance)\""].map { Array($0.utf8) }
            let devices = all.filter { record in ids.contains { id in record.firstRange(of: id) != nil } }
            let own = records(directory, "alone", destination)
            #expect(!own.isEmpty)
            #expect(own == devices, "\(destination): \(device)'s records alone are not its records in the whole stream")
        }
        // Session ids are in those records: the device's, from its archive records, are the same alone.
        let sessions = { (out: String) in
            Set(records(directory, out, "archive").compactMap { line -> String? in
                let object = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any]
                guard object?["anonymousId"] as? String == device else { return nil }
                return ((object?["context"] as? [String: Any])?["session"] as? [String: Any])?["id"] as? String
            })
        }
        #expect(!sessions("alone").isEmpty)
        #expect(sessions("alone") == sessions("whole"))
        #expect(rejects(directory, "shards") == rejects(directory, "whole"))
        #expect(!rejects(directory, "whole").isEmpty)

        // Each shard's files carry its name; the whole run's are `all`.
        let names = directory.files().filter { $0.hasPrefix("shards/archive/") }
        #expect(Set(names.map { String($0.split(separator: "/").last!.split(separator: "-")[1]) }) == ["0", "1", "2"])
        #expect(directory.files().filter { $0.hasPrefix("whole/archive/") }.allSatisfy { $0.contains("archive-all-") })
        #expect(Set(directory.files().filter { $0.hasPrefix("shards/mixpanel/") }.map { $0.split(separator: "/")[2] }) == ["0", "1", "2"])
    }

    @Test func aShardedRunTakesItsShardFromTheEnvironment() throws {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", """
            version: 1
            destinations:
              archive: {type: ndjson, path: "{dest}/{date}/{dest}-{shard}-{hour}-{seq}.ndjson.gz"}
            rejects: {path: "rejects/{date}/rejects-{shard}-{seq}.ndjson.gz"}
            """)
        #expect(try SluiceBinary.shell("$SLUICE generate --events 200 --malformed 0.05 > in.ndjson", in: directory.path).status == 0)
        let fromEnvironment = try SluiceBinary.shell("SLUICE_SHARD=7 $SLUICE run --pipeline p.yaml in.ndjson", in: directory.path)
        #expect(fromEnvironment.status == 0, "\(fromEnvironment.stderr)")
        #expect(directory.files().contains("out/archive/2026-11-20/archive-7-08-0000.ndjson.gz"))
        #expect(directory.files().contains("out/rejects/2026-11-20/rejects-7-0000.ndjson.gz"))

        let optionWins = try SluiceBinary.shell("SLUICE_SHARD=7 $SLUICE run --pipeline p.yaml --shard eu-8 in.ndjson", in: directory.path)
        #expect(optionWins.status == 0)
        #expect(directory.files().contains("out/archive/2026-11-20/archive-eu-8-08-0000.ndjson.gz"))

        let badName = try SluiceBinary.shell("SLUICE_SHARD=../x $SLUICE run --pipeline p.yaml in.ndjson", in: directory.path)
        #expect(badName.status == 64)
        #expect(badName.stderr.contains("SLUICE_SHARD=../x: '../x' is not a shard name"))
    }

    @Test func aShardedRunWhosePathsLackShardExits78BeforeReadingAnything() throws {
        let directory = TemporaryDirectory()
        // The destination's path has {shard}; the rejects' (the default) has not.
        directory.write("p.yaml", """
            version: 1
            destinations:
              archive: {type: ndjson, path: "{dest}/{date}/{dest}-{shard}-{hour}-{seq}.ndjson.gz"}
            """)
        #expect(try SluiceBinary.shell("$SLUICE generate --events 200 --malformed 0.05 > in.ndjson", in: directory.path).status == 0)
        let message = "sluice: error: p.yaml:1:1: rejects.path \"rejects/{date}/rejects-{seq}.ndjson.gz\" has no {shard}: "
            + "with --shard 7, the shards that share --out would write the same names; "
            + "put {shard} in it, e.g. \"rejects/{date}/rejects-{shard}-{seq}.ndjson.gz\""
        // Its stdin is a FIFO it holds open itself, so it never ends: a run that started reading would not exit.
        #expect(try SluiceBinary.shell("mkfifo never-ends", in: directory.path).status == 0)
        for command in ["timeout 60 $SLUICE run --pipeline p.yaml --shard 7 --stats s.json - <> never-ends",
                        "SLUICE_SHARD=7 $SLUICE run --pipeline p.yaml --stats s.json in.ndjson"] {
            let refused = try SluiceBinary.shell(command, in: directory.path)
            #expect(refused.status == 78, "\(command): \(refused.stderr)")
            #expect(refused.stderr.split(separator: "\n").last.map(String.init) == message, "\(refused.stderr)")
            #expect(!directory.files().contains { $0.hasPrefix("out/") }, "\(command): something was written")
            let stats = (try? JSONSerialization.jsonObject(with: FileManager.default.contents(atPath: directory.file("s.json")) ?? Data())) as? [String: Any]
            #expect(stats?["lines_in"] as? Int == 0 && stats?["exit_code"] as? Int == 78)
        }

        // validate --shard says the same, as an error (78 without --strict).
        let validate = try SluiceBinary.run(["validate", "--shard", "7", "p.yaml"], in: directory.path)
        #expect(validate.status == 78)
        #expect(validate.stderr.contains("p.yaml:1:1: error: rejects.path"), "\(validate.stderr)")
        let unsharded = try SluiceBinary.run(["validate", "--strict", "p.yaml"], in: directory.path)
        #expect(unsharded.status == 0)
        #expect(unsharded.stderr.contains("p.yaml:3:33: note: destinations.archive.path"))
    }
}
