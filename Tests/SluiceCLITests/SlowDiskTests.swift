import Foundation
import SluiceTestSupport
import Testing

/// End-to-end: the real binary on a disk whose fsync takes 20 ms, injected
/// with an LD_PRELOAD shim built here. Files finished faster than the disk
/// syncs them wait in a bounded queue holding no compressor: memory does not
/// grow with how far the disk is behind.
@Suite struct SlowDiskTests {
    /// fsync and fdatasync that sleep `SLOW_FSYNC_MS` first, then sync for real.
    private static let shim = """
        #define _GNU_SOURCE
        #include <stdlib.h>
        #include <sys/syscall.h>
        #include <time.h>
        #include <unistd.h>
        static void slow(void) {
            const char *text = getenv("SLOW_FSYNC_MS");
            long ms = text ? atol(text) : 20;
            struct timespec pause = {ms / 1000, (ms % 1000) * 1000000L};
            nanosleep(&pause, NULL);
        }
        int fsync(int fd) { slow(); return (int)syscall(SYS_fsync, fd); }
        int fdatasync(int fd) { slow(); return (int)syscall(SYS_fdatasync, fd); }
        """

    /// The process's peak resident memory so far (`VmHWM`), in KiB; nil once it is gone.
    private func peakKiB(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return nil }
        return Int(line.dropFirst("VmHWM:".count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
    }

    @Test func aDiskThatSyncsSlowlyQueuesFinishedFilesWithoutGrowingMemory() throws {
        let directory = TemporaryDirectory()
        directory.write("slowfsync.c", Self.shim)
        let built = try SluiceBinary.shell("${CC:-clang} -shared -fPIC -O2 -o slowfsync.so slowfsync.c", in: directory.path)
        try #require(built.status == 0, "cannot build the fsync shim: \(built.stderr)")
        let generated = try SluiceBinary.shell("$SLUICE generate --events 20000 --seed 4 > in.ndjson", in: directory.path)
        #expect(generated.status == 0)
        // A file every 20 events: 1,000 files, each waiting 20 ms for its fsync.
        directory.write("p.yaml", "version: 1\ndestinations:\n  a: {type: ndjson, rotate: {max_events: 20}}\n")
        let sluice = try SluiceProcess(["run", "--pipeline", "p.yaml", "--stats", "s.json", "in.ndjson"], in: directory.path,
                                       environment: ["LD_PRELOAD": directory.file("slowfsync.so"), "SLOW_FSYNC_MS": "20"])
        var peak = 0
        // The last reading before the process ends is its peak but for the last poll's few milliseconds.
        while let now = peakKiB(sluice.pid) { peak = max(peak, now) }
        #expect(sluice.waitForExit(timeout: 120) == 0, "\(sluice.stderr)")
        let stats = (try? JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("s.json"))))) as? [String: Any]
        let files = (stats?["destinations"] as? [[String: Any]])?.first?["files"] as? Int
        #expect(files == 1000)
        #expect(stats?["balanced"] as? Bool == true)
        // Before the queue held no compressor, 1,000 files behind took about 160 MB (debug build); now about 30 MB.
        #expect(peak > 0 && peak < 100 * 1024, "peak RSS \(peak) KiB")
    }
}
