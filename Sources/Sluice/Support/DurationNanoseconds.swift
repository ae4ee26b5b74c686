extension Duration {
    /// The whole duration in nanoseconds (saturating).
    package var nanoseconds: Int64 { wholeUnits(perSecond: 1_000_000_000) }

    /// The whole duration in microseconds, event time's unit (saturating).
    var microseconds: Int64 { wholeUnits(perSecond: 1_000_000) }

    /// The whole duration in units of which a second holds `units` (a power of ten up to 10^18), saturating.
    private func wholeUnits(perSecond units: Int64) -> Int64 {
        let (seconds, attoseconds) = components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: units)
        if overflow { return seconds < 0 ? .min : .max }
        return product + attoseconds / (1_000_000_000_000_000_000 / units)
    }
}
