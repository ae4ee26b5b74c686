/// The event times a provider takes; an event outside them is refused
/// (`time_out_of_range`, the detail saying which bound), never sent to be
/// dropped or re-dated by the provider:
///
/// | provider | earliest | latest |
/// | --- | --- | --- |
/// | Mixpanel | 1971-01-01 ([400]: "rejects events dated before 1971-01-01") | 1 hour after Sluice's clock ([400]: "or more than one hour in the future"; such a time "will be overwritten with the current present time at ingestion") |
/// | Amplitude | 1970-01-01 ([v2] `time`: "milliseconds since epoch") | 24 hours after Sluice's clock |
/// | GA4 | 1970-01-01 (`timestamp_micros`: "A Unix timestamp (in microseconds)") | 24 hours after Sluice's clock ("only be set to record events that happened in the past") |
/// | Adjust | 1970-01-01 (`created_at_unix`: a Unix timestamp) | 24 hours after Sluice's clock |
///
/// The day of margin is for device clocks, which drift, and time zones set
/// wrong (at most 14 hours); an event further ahead than that is not dated by
/// its own clock. No time in any provider's API is before the epoch.
/// (GA4's own limit in the past, 72 hours before the request, is checked by
/// `sluice send`, which knows when the request goes.)
///
/// The clock is read once, and again only when an event seems to be ahead of
/// it: an event of the past costs one comparison, and a long-running `serve`
/// or `--follow` run keeps its clock current.
///
/// [400]: docs.mixpanel.com/troubleshooting/errors/400-bad-request;
/// [v2]: amplitude.com/docs/apis/analytics/http-v2
struct ProviderTimeRange: Sendable {
    let provider: StaticString
    let earliestMs: Int64
    /// How far past Sluice's clock an event may be.
    let aheadMs: Int64

    static let hourMs: Int64 = 3_600_000
    static let dayMs: Int64 = 86_400_000

    static let mixpanel = ProviderTimeRange(provider: "Mixpanel", earliestMs: 31_536_000_000, aheadMs: hourMs)
    static let amplitude = ProviderTimeRange(provider: "Amplitude", earliestMs: 0, aheadMs: dayMs)
    static let ga4 = ProviderTimeRange(provider: "GA4", earliestMs: 0, aheadMs: dayMs)
    static let adjust = ProviderTimeRange(provider: "Adjust", earliestMs: 0, aheadMs: dayMs)

    /// The refusal for an event at `time`, or nil when the provider takes it.
    @inline(__always)
    func refusal(_ time: EventTime, _ clock: inout WallClock) -> Rejection? {
        let ms = time.milliseconds
        if ms >= earliestMs && !clock.isBefore(ms, by: aheadMs) { return nil }
        return describe(time, ms)
    }

    @inline(never)
    private func describe(_ time: EventTime, _ ms: Int64) -> Rejection {
        if ms < earliestMs {
            let bound = EventTime(milliseconds: earliestMs).iso8601.prefix(10)
            return Rejection(.timeOutOfRange, "\(time.iso8601) is before \(bound), which \(provider) does not take")
        }
        let margin = aheadMs == ProviderTimeRange.hourMs ? "an hour" : "a day"
        return Rejection(.timeOutOfRange, "\(time.iso8601) is more than \(margin) after Sluice's clock, which \(provider) does not take")
    }
}

extension RejectReason {
    /// Mixpanel, Amplitude, GA4, Adjust: the event's time is outside what the provider takes.
    static let timeOutOfRange = RejectReason("time_out_of_range")
}
