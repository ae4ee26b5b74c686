import Foundation
import SluiceTestSupport
import Testing

/// End-to-end: the built binary on real files, its gzip output read back.
@Suite struct RunCommandTests {
    private func json(_ line: [UInt8]) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any] ?? [:]
    }

    /// Every line of every gzip file under `directory/prefix`, in file order.
    private func gunzipAll(_ directory: TemporaryDirectory, under prefix: String) -> [[UInt8]] {
        directory.files().filter { $0.hasPrefix(prefix) && $0.hasSuffix(".gz") }.flatMap { file -> [[UInt8]] in
            guard let bytes = TestGzip.decompressFile(directory.file(file)) else {
                Issue.record("\(file) is not complete, valid gzip")
                return []
            }
            return ndjsonLines(bytes)
        }
    }

    @Test func everyValidLineIsDeliveredExactlyOnceAndEveryBrokenLineRejectedWithItsReason() throws {
        let directory = TemporaryDirectory()
        let generated = try SluiceBinary.shell("$SLUICE generate --events 20000 --malformed 0.05 --seed 7 > in.ndjson", in: directory.path)
        #expect(generated.status == 0)
        let input = ndjsonLines(Array(FileManager.default.contents(atPath: directory.file("in.ndjson"))!))
        #expect(input.count == 20000)

        let result = try SluiceBinary.run(["run", "--stats", "stats.json", "in.ndjson"], in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(!directory.files().contains { $0.hasSuffix(".part") })

        var rejectedLines: Set<Int> = []
        var reasons: [String: Int] = [:]
        for line in gunzipAll(directory, under: "out/rejects/") {
            let record = json(line)
            let number = record["line_number"] as! Int
            #expect(record["source"] as? String == "in.ndjson")
            #expect(record["stage"] as? String == "input")
            let original: [UInt8]
            if let text = record["line"] as? String {
                original = Array(text.utf8)
            } else {
                original = Array(Data(base64Encoded: record["line_base64"] as! String)!)
            }
            #expect(original == input[number - 1], "line \(number) is not the original")
            let reason = record["reason"] as! String
            reasons[reason, default: 0] += 1
            let head = String(decoding: original.prefix(40), as: UTF8.self)
            if original.first == 0xFF { #expect(reason == "invalid_utf8") }
            if head == "[1,2,3]" { #expect(reason == "not_an_object") }
            if head.contains("\"timestamp\":\"not-a-date") { #expect(reason == "invalid_timestamp") }
            rejectedLines.insert(number)
        }
        #expect(reasons.keys.sorted() == ["invalid_json", "invalid_timestamp", "invalid_utf8", "missing_identity", "not_an_object"])

        let expected = input.enumerated().filter { !rejectedLines.contains($0.offset + 1) }.map(\.element)
        let delivered = gunzipAll(directory, under: "out/archive/")
        #expect(delivered.count == expected.count)
        #expect(delivered.sorted { $0.lexicographicallyPrecedes($1) } == expected.sorted { $0.lexicographicallyPrecedes($1) })

        let stats = json(Array(FileManager.default.contents(atPath: directory.file("stats.json"))!))
        #expect(stats["lines_in"] as? Int == 20000)
        #expect(stats["emitted"] as? Int == expected.count)
        #expect(stats["rejected"] as? Int == rejectedLines.count)
        #expect(stats["balanced"] as? Bool == true)
        #expect(result.stderr.contains("20000 lines in"))
    }

    @Test func strictExitsWithDataErrorWhenAnythingWasRejected() throws {
        let directory = TemporaryDirectory()
        directory.write("in.ndjson", "{\"type\":\"track\",\"event\":\"e\",\"anonymousId\":\"d\",\"timestamp\":\"2026-11-20T08:00:00Z\"}\nnot json\n")
        #expect(try SluiceBinary.run(["run", "in.ndjson"], in: directory.path).status == 0)
        let strict = try SluiceBinary.run(["run", "--strict", "--out", "o2", "in.ndjson"], in: directory.path)
        #expect(strict.status == 65)
        // The outputs are complete all the same.
        #expect(directory.files().filter { $0.hasPrefix("o2/") && $0.hasSuffix(".ndjson.gz") }.count == 2)
    }

    @Test func aTooLongLineIsRejectedAndTheRunGoesOn() throws {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", "version: 1\ninput: {max_line_bytes: 1KiB}\ndestinations:\n  archive: {type: ndjson}\n")
        let ok = "{\"type\":\"track\",\"event\":\"e\",\"anonymousId\":\"d\",\"timestamp\":\"2026-11-20T08:00:00Z\"}"
        let long = "{\"type\":\"track\",\"event\":\"" + String(repeating: "x", count: 70_000) + "\"}"
        directory.write("in.ndjson", ok + "\n" + long + "\n" + ok + "\n")
        let result = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "in.ndjson"], in: directory.path)
        #expect(result.status == 0)
        #expect(gunzipAll(directory, under: "out/archive/").count == 2)
        let rejects = gunzipAll(directory, under: "out/rejects/").map(json)
        #expect(rejects.count == 1)
        #expect(rejects.first?["reason"] as? String == "line_too_long")
        #expect(rejects.first?["line_number"] as? Int == 2)
        #expect(rejects.first?["line_bytes"] as? Int == long.utf8.count)
        #expect((rejects.first?["line"] as? String)?.utf8.count == 1024)
    }

    @Test func gzipFilesAndStdinAreReadInTheOrderGiven() throws {
        let directory = TemporaryDirectory()
        func line(_ id: String) -> String {
            "{\"type\":\"track\",\"event\":\"e\",\"messageId\":\"\(id)\",\"anonymousId\":\"d\",\"timestamp\":\"2026-11-20T08:00:00Z\"}\n"
        }
        directory.write("a.ndjson.gz", TestGzip.compress(Array((line("a1") + line("a2")).utf8)) + TestGzip.compress(Array(line("a3").utf8)))
        directory.write("b.ndjson", line("b1"))
        directory.write("stdin.ndjson", line("s1"))
        let result = try SluiceBinary.run(["run", "a.ndjson.gz", "-", "b.ndjson"], in: directory.path, stdin: directory.file("stdin.ndjson"))
        #expect(result.status == 0, "\(result.stderr)")
        let ids = gunzipAll(directory, under: "out/archive/").map { json($0)["messageId"] as? String ?? "" }
        #expect(ids == ["a1", "a2", "a3", "s1", "b1"])
    }

    @Test func aCorruptGzipInputIsReportedWithItsOffsetAndExits65AfterTheGoodLines() throws {
        let directory = TemporaryDirectory()
        let good = "{\"type\":\"track\",\"event\":\"e\",\"anonymousId\":\"d\",\"timestamp\":\"2026-11-20T08:00:00Z\"}\n"
        var bytes = TestGzip.compress(Array(good.utf8))
        var bad = TestGzip.compress(Array(String(repeating: good, count: 500).utf8))
        for index in 20..<40 { bad[index] ^= 0x5A }
        bytes += bad
        directory.write("bad.ndjson.gz", bytes)
        directory.write("next.ndjson", good)
        let result = try SluiceBinary.run(["run", "bad.ndjson.gz", "next.ndjson"], in: directory.path)
        #expect(result.status == 65)
        #expect(result.stderr.contains("corrupt gzip data in bad.ndjson.gz at compressed byte"))
        // The line before the damage and the next input were delivered.
        #expect(gunzipAll(directory, under: "out/archive/").count >= 2)
    }

    @Test func aByteOrderMarkBeforeTheFirstEventIsSkippedAndAYearOutside0001To9999IsAnInvalidTimestamp() throws {
        let directory = TemporaryDirectory()
        let event = { (id: String, time: String) in
            "{\"type\":\"track\",\"event\":\"e\",\"anonymousId\":\"d\",\"messageId\":\"\(id)\",\"timestamp\":\"\(time)\"}\n"
        }
        directory.write("in.ndjson", Array("\u{FEFF}".utf8) + Array((event("m1", "2026-11-20T08:00:00Z") + event("m2", "0000-01-01T00:00:00+23:59")
            + event("m3", "9999-12-31T23:59:59Z")).utf8))
        let result = try SluiceBinary.run(["run", "--stats", "s.json", "in.ndjson"], in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        let delivered = gunzipAll(directory, under: "out/archive/").map { json($0)["messageId"] as? String ?? "" }
        #expect(delivered.sorted() == ["m1", "m3"])
        let rejects = gunzipAll(directory, under: "out/rejects/").map(json)
        #expect(rejects.map { $0["reason"] as? String ?? "" } == ["invalid_timestamp"])
        #expect(rejects.first?["line_number"] as? Int == 2)
        #expect(!directory.files().contains { $0.contains("00-1") }, "no file dated before year 1")
    }

    @Test func aMissingInputExits66BeforeAnythingIsWritten() throws {
        let directory = TemporaryDirectory()
        let result = try SluiceBinary.run(["run", "nope.ndjson"], in: directory.path)
        #expect(result.status == 66)
        #expect(result.stderr.contains("cannot open input nope.ndjson"))
        #expect(directory.files().filter { $0.hasSuffix(".gz") }.isEmpty)
    }

    @Test func anOutputDirectoryThatCannotBeCreatedExits73() throws {
        let directory = TemporaryDirectory()
        directory.write("file", "x")
        let result = try SluiceBinary.run(["run", "--out", "file/out"], in: directory.path)
        #expect(result.status == 73)
        #expect(result.stderr.contains("cannot create"))
    }

    @Test func aBadPipelineFileExits78AndNeverStartsARun() throws {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", "version: 1\ndestinations:\n  a: {type: ndjson, evnts: []}\n")
        directory.write("in.ndjson", "{}\n")
        let result = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "in.ndjson"], in: directory.path)
        #expect(result.status == 78)
        #expect(result.stderr.contains("p.yaml:3:21: unknown key 'evnts'"))
        #expect(!FileManager.default.fileExists(atPath: directory.file("out")))
    }

    @Test func anUnknownStdoutDestinationIsAUsageError() throws {
        let directory = TemporaryDirectory()
        #expect(try SluiceBinary.run(["run", "--stdout", "nope"], in: directory.path).status == 64)
        #expect(try SluiceBinary.run(["run", "--no-such-flag"], in: directory.path).status == 64)
    }

    @Test(arguments: [
        (["--stdout", "b"], "--stdout b: destination 'a' already writes to stdout (its path is \"-\")"),
        (["--stdout", "a", "--stdout", "b"], "--stdout is given 2 times (a, b): only one destination can write to stdout"),
    ])
    func twoDestinationsOnStdoutIsAUsageErrorAndNothingRuns(_ options: [String], _ message: String) throws {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", "version: 1\ndestinations:\n  a: {type: ndjson, path: \"-\"}\n  b: {type: ndjson}\n")
        directory.write("in.ndjson", #"{"type":"track","event":"e","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z"}"# + "\n")
        let result = try SluiceBinary.run(["run", "--pipeline", "p.yaml"] + options + ["in.ndjson"], in: directory.path)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: directory.file("out")))
    }

    @Test(arguments: ["--stats", "--metrics"])
    func statsOrMetricsOnTheStdoutThatCarriesRecordsIsAUsageError(_ flag: String) throws {
        let directory = TemporaryDirectory()
        directory.write("in.ndjson", #"{"type":"track","event":"e","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z"}"# + "\n")
        let result = try SluiceBinary.run(["run", "--stdout", "archive", flag, "/dev/stdout", "in.ndjson"], in: directory.path)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("\(flag) /dev/stdout is the standard output, where the records go"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        // Without records on stdout, stats may go there.
        let alone = try SluiceBinary.run(["run", "--stats", "/dev/stdout", "in.ndjson"], in: directory.path)
        #expect(alone.status == 0, "\(alone.stderr)")
        #expect(String(decoding: alone.stdout, as: UTF8.self).contains("\"emitted\""))
    }

    @Test func stdoutCarriesOnlyRecordsAndAReaderThatQuitsEarlyEndsTheRunCleanly() throws {
        let directory = TemporaryDirectory()
        let piped = try SluiceBinary.shell(
            "$SLUICE generate --events 50000 --malformed 0.01 | $SLUICE run --stdout archive 2>err.txt | head -n 3 > head.txt; echo ${PIPESTATUS[1]}",
            in: directory.path)
        #expect(piped.stdoutText == "0\n", "sluice exit status \(piped.stdoutText)")
        let head = ndjsonLines(Array(FileManager.default.contents(atPath: directory.file("head.txt"))!))
        #expect(head.count == 3)
        for line in head { #expect(json(line)["type"] != nil) }
        // The other outputs were finished and renamed.
        #expect(!directory.files().contains { $0.hasSuffix(".part") })
        #expect(!gunzipAll(directory, under: "out/rejects/").isEmpty)
    }

    @Test func recordsOnStdoutAreCountedAsWrittenAndWhatAReaderThatQuitNeverGotIsDroppedNotEmitted() throws {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", """
        version: 1
        destinations:
          archive: {type: ndjson, events: ["*"]}
          identifies: {type: ndjson, events: ["identify"]}
        """)
        _ = try SluiceBinary.shell("$SLUICE generate --events 20000 --seed 5 --duplicates 0 > in.ndjson", in: directory.path)
        let input = ndjsonLines(Array(FileManager.default.contents(atPath: directory.file("in.ndjson"))!))

        // A reader that takes all: every record written and counted like a file's.
        let all = try SluiceBinary.shell("$SLUICE run --pipeline p.yaml --stdout archive --stats all.json --metrics all.prom in.ndjson > got.ndjson 2>err.txt",
                                         in: directory.path)
        #expect(all.status == 0)
        let whole = json(Array(FileManager.default.contents(atPath: directory.file("all.json"))!))
        let got = Array(FileManager.default.contents(atPath: directory.file("got.ndjson"))!)
        let archive = try #require((whole["destinations"] as? [[String: Any]])?.first)
        #expect(archive["records"] as? Int == ndjsonLines(got).count && ndjsonLines(got).count == input.count)
        #expect(archive["uncompressed_bytes"] as? Int == got.count)
        #expect(archive["stdout"] as? Bool == true)
        #expect(whole["emitted"] as? Int == input.count && whole["balanced"] as? Bool == true)
        let metrics = String(decoding: FileManager.default.contents(atPath: directory.file("all.prom"))!, as: UTF8.self)
        #expect(metrics.contains("sluice_destination_records_total{destination=\"archive\",type=\"ndjson\"} \(input.count)"))
        let summary = String(decoding: FileManager.default.contents(atPath: directory.file("err.txt"))!, as: UTF8.self)
        #expect(summary.contains("archive \(input.count) records to stdout"), "\(summary)")

        // A reader that quits after 100000 bytes: only what reached the pipe counts as delivered there.
        // (Read as it comes, so the records on stdout are the input's first lines.)
        let cut = try SluiceBinary.shell("$SLUICE run --pipeline p.yaml --stdout archive --stats cut.json --order window in.ndjson | head -c 100000 > /dev/null",
                                         in: directory.path)
        #expect(cut.status == 0)
        let stats = json(Array(FileManager.default.contents(atPath: directory.file("cut.json"))!))
        #expect(stats["stdout_closed_early"] as? Bool == true)
        #expect(stats["balanced"] as? Bool == true)
        let linesIn = try #require(stats["lines_in"] as? Int)
        let emitted = try #require(stats["emitted"] as? Int)
        let dropped = (stats["dropped_by_reason"] as? [String: Int])?["stdout_closed"] ?? 0
        let destinations = try #require(stats["destinations"] as? [[String: Any]])
        let onStdout = try #require(destinations.first { $0["name"] as? String == "archive" })
        let identifies = try #require(destinations.first { $0["name"] as? String == "identifies" })
        let records = try #require(onStdout["records"] as? Int)
        let written = try #require(onStdout["uncompressed_bytes"] as? Int)
        // The records counted are the whole lines written before the pipe closed (records are the input lines, byte for byte).
        let writtenWhole = input.prefix(records).reduce(0) { $0 + $1.count + 1 }
        try #require(records < input.count)
        #expect(written >= writtenWhole && written < writtenWhole + input[records].count + 1)
        #expect(written >= 100_000 && written <= 100_000 + 1 << 20)
        let lost = (onStdout["not_taken_by_reason"] as? [String: Int])?["stdout_closed"] ?? 0
        #expect(lost > 0 && records + lost == linesIn)
        // A line the identifies file took still went somewhere: emitted; the others were dropped.
        #expect(emitted == records + (identifies["events"] as? Int ?? 0) - input.prefix(records).filter { json($0)["type"] as? String == "identify" }.count)
        #expect(dropped > 0 && emitted + dropped == linesIn)
    }

    /// One file in event order, read straight through after exact order's first read: a reader
    /// that quits early ends the read where it stands, and the file is not held to the first
    /// read's count (no `changed while the run read it`), every line read accounted for.
    @Test func aReaderThatQuitsWhileAnInOrderFileIsReadEndsTheRunCleanly() throws {
        let directory = TemporaryDirectory()
        // The generator's lines in exact order (the archive's records are the lines as read).
        let sorted = try SluiceBinary.shell(
            "$SLUICE generate --events 20000 --seed 5 > in.ndjson && $SLUICE run --stdout archive --quiet in.ndjson > sorted.ndjson",
            in: directory.path)
        #expect(sorted.status == 0, "\(sorted.stderr)")
        let lines = ndjsonLines(Array(FileManager.default.contents(atPath: directory.file("sorted.ndjson"))!)).count
        let cut = try SluiceBinary.shell(
            "$SLUICE run --stdout archive --stats cut.json --out out2 sorted.ndjson 2>err.txt | head -c 100000 > /dev/null; echo ${PIPESTATUS[0]}",
            in: directory.path)
        #expect(cut.stdoutText == "0\n", "sluice exit status \(cut.stdoutText)")
        let errors = String(decoding: FileManager.default.contents(atPath: directory.file("err.txt"))!, as: UTF8.self)
        #expect(!errors.contains("changed while the run read it"), "\(errors)")
        let stats = json(Array(FileManager.default.contents(atPath: directory.file("cut.json"))!))
        #expect(stats["stdout_closed_early"] as? Bool == true && stats["balanced"] as? Bool == true)
        let order = try #require(stats["order"] as? [String: Any])
        #expect(order["method"] as? String == "window" && order["window_ms"] as? Int == 0, "\(order)")
        let linesIn = try #require(stats["lines_in"] as? Int)
        #expect(linesIn > 0 && linesIn < lines, "\(linesIn) of \(lines) lines read")
    }

    @Test func rotationByEventCountWritesCompleteNumberedFiles() throws {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", """
        version: 1
        destinations:
          archive: {type: ndjson, path: "{dest}/{seq}.ndjson.gz", rotate: {max_events: 1000}}
        """)
        _ = try SluiceBinary.shell("$SLUICE generate --events 4500 --seed 3 > in.ndjson", in: directory.path)
        let result = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "in.ndjson"], in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        let files = directory.files().filter { $0.hasPrefix("out/archive/") }
        #expect(files == (0..<5).map { "out/archive/000\($0).ndjson.gz" })
        let counts = files.map { ndjsonLines(TestGzip.decompressFile(directory.file($0))!).count }
        #expect(counts == [1000, 1000, 1000, 1000, 500])
    }

    @Test func unchangedEventsAreWrittenByteForByteAndWhitespaceIsRemoved() throws {
        let directory = TemporaryDirectory()
        let compact = #"{"type":"track","event":"e","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z","properties":{"big":9223372036854775808,"z":-0.0,"e":1e21,"s":"\u00e9"}}"#
        let spaced = #"{ "type": "track", "event": "e", "anonymousId": "d", "timestamp": "2026-11-20T08:00:00Z" }"#
        directory.write("in.ndjson", compact + "\r\n" + spaced + "\n")
        #expect(try SluiceBinary.run(["run", "in.ndjson"], in: directory.path).status == 0)
        let lines = gunzipAll(directory, under: "out/archive/").map { String(decoding: $0, as: UTF8.self) }
        // Of the same time, type and name and without messageId, the events go by their bytes: `{ ` before `{"`.
        #expect(lines == [#"{"type":"track","event":"e","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z"}"#, compact])
    }

    @Test func statsListsEachFinishedFileWithItsRecordsAndBytes() throws {
        let directory = TemporaryDirectory()
        #expect(try SluiceBinary.shell("$SLUICE generate --events 1000 --malformed 0.05 > in.ndjson", in: directory.path).status == 0)
        directory.write("p.yaml", "version: 1\ndestinations:\n  archive: {type: ndjson, rotate: {max_events: 100}}\n")
        let run = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "--stats", "s.json", "in.ndjson"], in: directory.path)
        #expect(run.status == 0, "\(run.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: directory.file("s.json")))
        let summary = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let listed = try #require(summary["files"] as? [[String: Any]])
        #expect(Set(listed.compactMap { $0["path"] as? String }) == Set(directory.files().filter { $0.hasPrefix("out/") }))
        #expect(listed.filter { $0["destination"] as? String == "archive" }.count > 9)
        #expect(listed.last?["destination"] as? String == "rejects")
        var records = [String: Int]()
        for file in listed {
            let path = try #require(file["path"] as? String)
            let data = try #require(TestGzip.decompressFile(directory.file(path)))
            let size = try FileManager.default.attributesOfItem(atPath: directory.file(path))[.size] as? Int
            #expect(file["records"] as? Int == ndjsonLines(data).count, "\(path)")
            #expect(file["uncompressed_bytes"] as? Int == data.count, "\(path)")
            #expect(file["compressed_bytes"] as? Int == size, "\(path)")
            records[file["destination"] as! String, default: 0] += file["records"] as! Int
        }
        #expect(records["archive"] == summary["emitted"] as? Int)
        #expect(records["rejects"] == summary["rejected"] as? Int)
    }
}
