// Unsafe code: one `withUnsafeBytes`, to write the merged stats to stdout with
// write(2) (`FileSystem.writeAll`); the array outlives the call.

import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `sluice stats merge FILE... [--out FILE] [--metrics FILE]` as one library
/// call: read every shard's `--stats`, merge, re-check, write, and the exit status.
public enum StatsMergeProgram {
    public struct Request: Sendable {
        /// The shards' `--stats` files, in the order their inputs are listed.
        public var paths: [String] = []
        /// Where the merged JSON goes (atomically); nil: stdout.
        public var outPath: String?
        /// Where the merged Prometheus textfile goes (atomically), if anywhere.
        public var metricsPath: String?
        /// The job's wall time, for the merged `elapsed_seconds`; nil: the longest shard's.
        public var elapsedSeconds: Double?

        public init() {}
    }

    /// Exit statuses: 0 merged and balanced; 65 a file is not `--stats` JSON of
    /// `sluice run` (a `sluice send` file is named as one), the files are of
    /// different pipelines, or two are of the same shard or the same file
    /// (nothing written), or a shard is not balanced or stopped on an error
    /// (the merge is written, and says so); 66 a file cannot be opened; 73 an
    /// output cannot be written; 74 a read failed.
    public static func run(_ request: Request, logger: Logger) -> Int32 {
        var shards: [(path: String, summary: RunSummary)] = []
        var files: [StatsMerge.File] = []
        for path in request.paths {
            do {
                let bytes = try readFileBytes(path)
                var shard: String?
                shards.append((path, try RunSummary(statsJSON: bytes, path: path, shard: &shard)))
                files.append(StatsMerge.File(path: path, shard: shard, bytes: bytes))
            } catch let error as InputError {
                logger.error("\(error)")
                return ExitStatus.forInputError(error)
            } catch {
                logger.error("\(error)")
                return ExitStatus.dataError
            }
        }
        var merged: RunSummary
        do {
            try StatsMerge.checkDistinct(files)
            merged = try StatsMerge.merge(shards)
        } catch {
            logger.error("\(error)")
            return ExitStatus.dataError
        }
        if let elapsed = request.elapsedSeconds { merged.elapsedSeconds = elapsed }
        let problems = StatsMerge.problems(shards)
        for problem in problems { logger.error("\(problem)") }
        var status = problems.isEmpty ? ExitStatus.ok : ExitStatus.dataError

        let outputs: [(flag: String, path: String?, text: String)] = [
            ("--out", request.outPath, merged.json),
            ("--metrics", request.metricsPath, PrometheusTextfile.render(merged, outcome: .init(exitStatus: status))),
        ]
        for (flag, path, text) in outputs {
            let failure: OutputError?
            if let path {
                do { try AtomicFile.write(text, to: path); failure = nil } catch { failure = error }
            } else if flag == "--out" {
                let code = Array((text + "\n").utf8).withUnsafeBytes { FileSystem.writeAll(STDOUT_FILENO, $0).errno }
                failure = code == 0 ? nil : .writeFailed(path: "<stdout>", errno: code)
            } else {
                failure = nil
            }
            if let failure {
                logger.error("\(failure.report(flag, path ?? "stdout"))")
                if status == ExitStatus.ok { status = ExitStatus.cannotCreate }
            }
        }
        if problems.isEmpty {
            logger.info("\(shards.count) stats merged: \(merged.summaryLine)")
        } else {
            logger.error("the merged stats are written, but \(problems.count) of the \(shards.count) shards did not end cleanly (above)")
        }
        return status
    }
}
