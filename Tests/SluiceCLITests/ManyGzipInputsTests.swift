import Foundation
import SluiceTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// End-to-end: hundreds of gzip inputs merged in event time at once (a day
/// of logs from many servers), every line accounted for, and the run's peak
/// memory bounded: an input's buffers while it waits its turn are small.
@Suite struct ManyGzipInputsTests {
    private func json(_ path: String) -> [String: Any] {
        FileManager.default.contents(atPath: path).flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [String: Any] ?? [:]
    }

    /// Runs `sluice ARGS` and waits for it with wait4(2), which gives that
    /// child's own peak RSS (KiB), whatever else the test process runs.
    private func runMeasuringPeakMemory(_ arguments: [String], stderr: String) throws -> (status: Int32, peakKiB: Int) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = ([SluiceBinary.path] + arguments).map { strdup($0) } + [nil]
        defer { for arg in argv { free(arg) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, SluiceBinary.path, &actions, nil, argv, environ)
        try #require(spawned == 0, "posix_spawn: \(spawned)")
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            try #require(errno == EINTR, "wait4: \(errno)")
        }
        return ((status >> 8) & 0xFF, usage.ru_maxrss)
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
        let (status, peakKiB) = try runMeasuringPeakMemory(
            ["run", "--no-progress", "--out", directory.file("out"), "--stats", directory.file("stats.json"), directory.file("logs")],
            stderr: directory.file("stderr"))
        let stderr = String(decoding: FileManager.default.contents(atPath: directory.file("stderr")) ?? Data(), as: UTF8.self)
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
