#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The run as a process, for `--stats` and `--metrics`: this build's version,
/// when it started and ended, how it exited, and when a run last succeeded
/// (exit 0), carried from the previous file so that a failed cron run does
/// not hide how long ago the last good one was.
public struct RunProcess: Sendable, Equatable {
    public var version = SluiceVersion.text
    /// Seconds since the Unix epoch (wall clock).
    public var startedAt: Double
    /// Set once the run has ended, with `exitCode`.
    public var endedAt: Double?
    public var exitCode: Int32?
    /// The end of the last run that exited 0: this one, or the one the previous file names.
    public var lastSuccessAt: Double?

    public init(startedAt: Double) { self.startedAt = startedAt }

    /// The wall clock now, in seconds since the epoch (millisecond precision).
    public static func now() -> Double {
        Double(WallClock.milliseconds()) / 1000
    }

    /// `2026-11-26T01:02:03.456Z`.
    public static func rfc3339(_ seconds: Double) -> String {
        EventTime(microseconds: Int64((seconds * 1000).rounded()) * 1000).iso8601
    }

    /// The inverse of `rfc3339` (any RFC 3339 time with a zone), or nil.
    public static func seconds(rfc3339 text: String) -> Double? {
        EventTime.parseISO8601(text).map { Double($0.milliseconds) / 1000 }
    }

    /// Ends the record: the exit status and the time, and the last success moves here on 0.
    public mutating func end(exitCode: Int32, at time: Double = RunProcess.now()) {
        self.exitCode = exitCode
        endedAt = time
        if exitCode == 0 { lastSuccessAt = time }
    }
}
