// Unsafe code: one `withUnsafeBytes`, to write a report's bytes to stdout with
// write(2) (`FileSystem.writeAll`); the array outlives the call.

import Foundation
import Logging
import SluiceJSON
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `--stats` and `--metrics` files of one `sluice run`: their paths are
/// checked before anything is read, and both are written at every exit the
/// run reaches, failures included (66, 73, 74, 75, 78), with the exit code,
/// the error, the start and end times, and the time of the last run that
/// exited 0, carried over from the files a previous run left. `--stats -`
/// writes the JSON to stdout. A sharded run's `--stats` names its shard
/// first (`"shard"`), so `sluice stats merge` can refuse a shard given twice.
///
/// A forced exit (75: the drain outlasted `--shutdown-timeout`, a second
/// SIGINT) comes from the signal thread while the run is stuck: it writes both
/// with the counts of the run's last report (a `RunReporter`, at the flush
/// interval), and holds the lock until the process exits, so no later write
/// of the run's own replaces them.
///
/// Sendable: `lastReported` and every write are under `lock`; the rest are
/// `let`s set in `init` (`metrics` serializes its own writes with a lock).
final class RunReports: RunReporter, @unchecked Sendable {
    let statsPath: String?
    let metrics: MetricsFileReporter?
    let shard: ShardID?
    let interval: Duration
    let process: RunProcess
    /// Serializes the writes of the run's thread and the signal thread's forced exit.
    private let lock = NSLock()
    /// The stats the run last reported, for a forced exit.
    private var lastReported: RunSummary?
    /// The stats of the last run that ended through `write` (`sluice serve`'s
    /// epochs share one `RunReports`, and add each epoch's up for `/metrics`).
    private var lastWritten: RunSummary?

    init(statsPath: String?, metricsPath: String?, interval: Duration, shard: ShardID? = nil) {
        self.shard = shard
        var process = RunProcess(startedAt: RunProcess.now())
        process.lastSuccessAt = [metricsPath.flatMap(Self.lastSuccess(metrics:)), statsPath.flatMap(Self.lastSuccess(stats:))]
            .compactMap { $0 }.max()
        self.process = process
        self.statsPath = statsPath
        self.interval = interval
        metrics = metricsPath.map { MetricsFileReporter(path: $0, interval: interval, process: process) }
    }

    /// Keeps the stats so far, for a forced exit (nothing is written).
    func report(_ summary: RunSummary) {
        lock.lock()
        lastReported = summary
        lock.unlock()
    }

    /// The reports of a forced exit, from the signal thread: the counts last
    /// reported (none yet: zeros), `status` and `error`. The lock is not given
    /// back: the process exits next, and nothing may replace what this wrote.
    func writeAtForcedExit(status: Int32, error: String) {
        // The run's thread may be stuck inside a write of its own: a forced exit never waits long.
        guard lock.lock(before: Date(timeIntervalSinceNow: 1)) else { return }
        var summary = lastReported ?? RunSummary()
        summary.error = error
        _ = writeLocked(summary, status: status, logger: nil, atForcedExit: true)
    }

    /// Why a report could not be written at the end, found now (exit 73
    /// then, before anything is read), or nil.
    func problem() -> String? {
        for (flag, path) in [("--stats", statsPath), ("--metrics", metrics?.path)] {
            guard let path, !(flag == "--stats" && path == "-") else { continue }
            do {
                try AtomicFile.checkWritable(path)
            } catch {
                return error.report(flag, path) + "; nothing was read"
            }
        }
        return nil
    }

    /// Writes `--stats` and the last `--metrics` of a run that ended with
    /// `status`; false if one could not be written (logged, unless `logger` is nil).
    /// `stopWaiting`: asked while a FIFO waits for its reader; true gives that report up.
    func write(_ summary: RunSummary, status: Int32, logger: Logger?, stopWaiting: (() -> Bool)? = nil) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        lastWritten = summary
        return writeLocked(summary, status: status, logger: logger, stopWaiting: stopWaiting)
    }

    /// The stats the last run that ended wrote (nil before one has), and forgets them.
    func takeWritten() -> RunSummary? {
        lock.lock()
        defer { lock.unlock() }
        let summary = lastWritten
        lastWritten = nil
        return summary
    }

    private func writeLocked(_ summary: RunSummary, status: Int32, logger: Logger?, atForcedExit: Bool = false,
                             stopWaiting: (() -> Bool)? = nil) -> Bool {
        var summary = summary
        var ended = process
        ended.end(exitCode: status)
        summary.process = ended
        var written = true
        if let path = statsPath {
            let json = statsJSON(summary)
            do {
                if path == "-" {
                    let bytes = Array((json + "\n").utf8)
                    let code = bytes.withUnsafeBytes { FileSystem.writeAll(STDOUT_FILENO, $0).errno }
                    if code != 0 { throw OutputError.writeFailed(path: "<stdout>", errno: code) }
                } else {
                    try AtomicFile.write(json, to: path, waitingForReader: !atForcedExit, stopWaiting: stopWaiting)
                }
            } catch let error as OutputError {
                logger?.error("\(error.report("--stats", path))")
                written = false
            } catch {}
        }
        if let metrics {
            do {
                try metrics.finish(summary, exitStatus: status, atForcedExit: atForcedExit, stopWaiting: stopWaiting)
            } catch {
                logger?.error("\(error.report("--metrics", metrics.path))")
                written = false
            }
        }
        return written
    }

    /// The `--stats` JSON: the summary's, with `"shard"` as its first key in a
    /// sharded run (`summary.json` is an object and always has keys).
    private func statsJSON(_ summary: RunSummary) -> String {
        let json = summary.json
        guard let shard, json.hasPrefix("{") else { return json }
        var member = JSONObjectWriter()
        member.field("shard", shard.name)
        return String(member.text.dropLast()) + "," + json.dropFirst()
    }

    /// A run that stopped before it read anything: the reports say why, with
    /// nothing counted. Returns `status`.
    func failed(_ status: Int32, error: String, logger: Logger) -> Int32 {
        var summary = RunSummary()
        summary.error = error
        _ = write(summary, status: status, logger: logger)
        return status
    }

    /// Only a regular file is read back: a FIFO or a device is written to, never read.
    private static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && info.st_size < 64 << 20
    }

    /// `sluice_last_success_timestamp_seconds` in a metrics file a run wrote.
    private static func lastSuccess(metrics path: String) -> Double? {
        guard isRegularFile(path), let text = try? readFile(path) else { return nil }
        let name = "sluice_last_success_timestamp_seconds "
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            return Double(line.dropFirst(name.count)).flatMap { $0.isFinite ? $0 : nil }
        }
        return nil
    }

    /// `last_success_at` in a `--stats` file a run wrote.
    private static func lastSuccess(stats path: String) -> Double? {
        guard isRegularFile(path), let bytes = try? readFileBytes(path), let document = try? JSONDocument.parse(bytes),
              document.kind(0) == .object, let node = document.member("last_success_at"),
              let text = document.string(node) else { return nil }
        return RunProcess.seconds(rfc3339: text)
    }
}
