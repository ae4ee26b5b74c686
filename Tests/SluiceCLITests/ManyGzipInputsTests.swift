import Foundation
import SluiceTestSupport
import Testing

/// End-to-end: hundreds of gzip inputs merged in event time at once (a day
/// of logs from many servers), every line accounted for, and the run's peak
/// memory bounded: an input's buffers while it waits its turn are small.
@Suite struct ManyGzipInputsTests {
    private func json(_ path: String) -> [String: Any] {
        FileManager.default.contents(atPath: path).flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [String: Any] ?? [:]
    }

    /// Runs `sluice ARGS` in `directory` under a Python parent that prints
    /// its children's peak RSS (KiB): sluice's own, give or take the few MB
    /// of the parent it was forked from. (A child spawned from the test
    /// process itself would count the test process's memory in its peak.)
    private func runMeasuringPeakMemory(_ arguments: [String], in directory: TemporaryDirectory) throws -> (status: Int32, peakKiB: Int, stderr: String) {
        directory.write("peak.py", """
            import resource, subprocess, sys
            status = subprocess.call(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
            print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
            sys.exit(status)
            """)
        let quoted = arguments.map { "'\($0)'" }.joined(separator: " ")
        let result = try SluiceBinary.shell("python3 peak.py \"$SLUICE\" \(quoted)", in: directory.path)
        let peak = Int(result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)) ?? Int.max
        return (result.status, peak, result.stderr)
    }

    @Test func twoHundredGzipInputsMergedAccountForEveryLineAndTakeLittleMemoryEach() throws {
        let directory = TemporaryDirectory()
        #expect(try SluiceBinary.shell("$SLUICE generate --events 16000 --seed 21 > day.ndjson", in: directory.path).status == 0)
        let day = ndjsonLines(Array(try #require(FileManager.default.contents(atPath: directory.file("day.ndjson")))))
        // Each server's file: a member of its first events, a member of one 1.1 MB line (past
        // max_line_bytes: rejected line_too_long, and past the 1 MiB hold of an input read on
        // its own), then a member of its other events.
        let huge = TestGzip.compress(Array(repeating: UInt8(ascii: "x"), count: 1_100_000) + [0x0A])
        let servers = 200
        for server in 0..<servers {
            let mine = stride(from: server, to: day.count, by: servers).map { day[$0] }
            let half = mine.count / 2
            directory.write(String(format: "logs/server-%03d.ndjson.gz", server),
                            TestGzip.compress(mine[..<half].flatMap { $0 + [0x0A] }) + huge
                                + TestGzip.compress(mine[half...].flatMap { $0 + [0x0A] }))
        }
        let (status, peakKiB, stderr) = try runMeasuringPeakMemory(
            ["run", "--no-progress", "--out", "out", "--stats", "stats.json", "--order", "window", "logs"], in: directory)
        #expect(status == 0, "\(stderr)")

        let stats = json(directory.file("stats.json"))
        #expect(stats["lines_in"] as? Int == day.count + servers)
        #expect(stats["rejected"] as? Int == servers)
        #expect((stats["rejected_by_reason"] as? [String: Int])?["line_too_long"] == servers)
        #expect(stats["balanced"] as? Bool == true)
        #expect((stats["reorder"] as? [String: Any])?["inputs"] as? Int == servers)
        let inputs = stats["inputs"] as? [[String: Any]] ?? []
        #expect(inputs.count == servers && inputs.allSatisfy { $0["lines"] as? Int == day.count / servers + 1 && $0["error"] == nil })
        // Every event reaches the archive, byte for byte, none twice.
        let archived = gunzipFiles(directory, under: "out/archive/").flatMap(\.lines)
        #expect(archived.count == day.count)
        #expect(archived.map { String(decoding: $0, as: UTF8.self) }.sorted() == day.map { String(decoding: $0, as: UTF8.self) }.sorted())

        // Each input waits its turn with a share of a 64 MiB hold budget, 64 KiB reads
        // and zlib's state; the huge line streams past. Holding every input's 1 MiB hold and
        // the pages the huge line took (2.3 MiB an input) would take over 450 MB.
        #expect(peakKiB < 200 * 1024, "peak RSS \(peakKiB) KiB for \(servers) gzip inputs")
    }
}
