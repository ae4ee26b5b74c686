#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The wall clock (`CLOCK_REALTIME`) in milliseconds since the epoch: read once
/// and kept, so a check against it costs a comparison until it must be read again.
/// The one reader of the wall clock: the providers' time ranges, `sluice send`'s
/// GA4 age limit and the run's start and end times all go through it.
public struct WallClock: Sendable {
    public private(set) var nowMs: Int64 = WallClock.milliseconds()

    public init() {}

    /// Whether `ms` is more than `margin` after the clock, reading it again first when it seems so.
    @inline(__always)
    public mutating func isBefore(_ ms: Int64, by margin: Int64) -> Bool {
        if ms <= nowMs &+ margin { return false }
        nowMs = WallClock.milliseconds()
        return ms > nowMs &+ margin
    }

    /// The wall clock now.
    public static func milliseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }
}
