import Logging
import SluiceJSON
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `sluice shard-of --shards N [INPUT...]`: for every input line, in order,
/// one line `SHARD<TAB>TIME_MS`, so a driver (Spark, a shell loop) can split
/// the inputs into N shards that `sluice run --shard` processes apart, and
/// sort each shard by (TIME_MS, input index, line number).
///
/// Lines are read as `sluice run` reads them (files or stdin, plain or gzip,
/// `input.max_line_bytes`) and decoded by the same code: a line `run` takes as
/// an event gets its device's shard (`ShardFunction`) and its `timestamp` in
/// epoch milliseconds (rounded down). Every other line (blank, too long, not
/// JSON, no id, no valid timestamp, ... any line `run` rejects at `stage:
/// input`) gets shard 0 and the time of the line before it in the same input
/// (0 for an input's first line), so it reaches a shard next to its
/// neighbours and is rejected or counted blank there. No line is left out or
/// moved: output line i is input line i.
public enum ShardOf {
    public struct Options: Sendable {
        /// `--shards N`: how many shards, 1 to `ShardFunction.maxShards`.
        public var shards = 1
        /// `--max-line-bytes`: the pipeline's `input.max_line_bytes`.
        public var maxLineBytes = InputSettings().maxLineBytes

        public init() {}
    }

    /// Writes the lines to `output`; returns the exit status: 0, 65 a corrupt
    /// gzip input (its lines up to the damage are written, the other inputs
    /// too), 66 an input cannot be opened (nothing is written), 74 a read or
    /// write error. A reader that closes the pipe early ends it with 0.
    public static func run(inputs given: [String], options: Options, output: Int32, logger: Logger) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        var writer = LineWriter(fd: output)
        let shards = UInt64(options.shards)
        let scratch = JSONParseScratch()
        var status = ExitStatus.ok
        do {
            // A directory is its files in name order, as `sluice run` reads it. A line that is not
            // an event goes to shard 0 with the time of its input's event before it (0 before any).
            var time: Int64 = 0
            var current = -1
            try InputList.forEachLine(of: given, maxLineBytes: options.maxLineBytes, failed: { error in
                logger.error("\(error)")
                status = max(status, ExitStatus.forInputError(error))
            }) { input, line in
                if input != current { (current, time) = (input, 0) }
                var shard: UInt64 = 0
                if case let .line(bytes, _) = line, !LineReader.isBlank(bytes),
                   case let .success(event) = Event.decode(bytes, origin: Origin(source: 0, line: 0), scratch: scratch) {
                    shard = ShardFunction.shard(of: event.document, shards: shards)
                    time = event.time.milliseconds
                }
                try writer.write(shard: shard, time: time)
            }
            try writer.flush()
        } catch LineWriter.Closed.reader {
            return status
        } catch {
            logger.error("\(error)")
            return ExitStatus.ioError
        }
        return status
    }

    /// `SHARD\tTIME_MS\n` lines, written in 64 KiB chunks.
    private struct LineWriter {
        enum Closed: Error { case reader }

        let fd: Int32
        var buffer = ByteBuffer(capacity: 64 * 1024 + 64)

        init(fd: Int32) { self.fd = fd }

        mutating func write(shard: UInt64, time: Int64) throws {
            appendInteger(Int64(shard), to: &buffer)
            buffer.append(0x09)
            appendInteger(time, to: &buffer)
            buffer.append(0x0A)
            if buffer.count >= 64 * 1024 { try flush() }
        }

        mutating func flush() throws {
            let result = FileSystem.writeAll(fd, buffer.bytes)
            buffer.removeAll()
            if result.errno == EPIPE { throw Closed.reader }
            if result.errno != 0 { throw OutputError.writeFailed(path: "<stdout>", errno: result.errno) }
        }
    }
}
