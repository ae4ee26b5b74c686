import Foundation

/// How long to wait before trying a batch again: the provider's `Retry-After`
/// when it gave one, otherwise exponential backoff with full jitter (a random
/// wait between 0 and `base * 2^attempt`, capped), so many senders that failed
/// together do not come back together. A batch is given up (exit 75) once the
/// next wait would end past `maxRetryTime` after its first attempt.
struct RetryPolicy: Sendable {
    /// The first backoff's ceiling (Mixpanel: "exponential backoff starting at 2s"; 1s gives the first retry sooner on average).
    var base: Duration = .seconds(1)
    /// The longest wait between two attempts (Mixpanel: "up to 60s").
    var cap: Duration = .seconds(60)
    /// `--max-retry-time` (default 1h).
    var maxRetryTime: Duration = .seconds(3600)

    /// The wait before attempt `attempt + 1` (attempt 0 was the first try).
    func delay(attempt: Int, retryAfter: Duration?, random: Double = Double.random(in: 0..<1)) -> Duration {
        if let retryAfter { return min(retryAfter, maxRetryTime) }
        let ceiling = min(cap, base * Int(1 << min(attempt, 30)))
        return ceiling * random
    }

    /// `Retry-After`: delay-seconds, or an HTTP-date (RFC 9110 §10.2.3).
    static func parseRetryAfter(_ value: String?, now: Date = Date()) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int(value), seconds >= 0 { return .seconds(seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return .milliseconds(max(0, Int(date.timeIntervalSince(now) * 1000)))
    }
}

/// At most `perSecond` requests started per second, for one destination
/// (`max_requests_per_second`): each request takes the next free slot.
actor RateLimiter {
    private let interval: Duration?
    private var next = ContinuousClock.now

    init(perSecond: Double?) {
        interval = perSecond.map { .nanoseconds(Int64(1_000_000_000 / $0)) }
    }

    /// The moment this request may start.
    func slot() -> ContinuousClock.Instant {
        guard let interval else { return .now }
        let slot = max(next, .now)
        next = slot + interval
        return slot
    }
}
