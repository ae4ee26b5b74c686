@testable import Sluice
import Testing

/// `Duration` in whole nanoseconds and microseconds: truncated toward zero, saturating.
@Suite struct DurationUnitsTests {
    @Test func wholeUnitsTruncateTowardZero() {
        #expect(Duration.seconds(5).nanoseconds == 5_000_000_000)
        #expect(Duration.seconds(5).microseconds == 5_000_000)
        #expect(Duration.milliseconds(1500).microseconds == 1_500_000)
        #expect(Duration.nanoseconds(1999).microseconds == 1)
        #expect(Duration.nanoseconds(1999).nanoseconds == 1999)
        #expect(Duration.nanoseconds(-1999).microseconds == -1)
        #expect(Duration.seconds(-2).nanoseconds == -2_000_000_000)
    }

    @Test func durationsBeyondInt64Saturate() {
        #expect(Duration.seconds(Int64.max / 10).nanoseconds == .max)
        #expect(Duration.seconds(Int64.min / 10).nanoseconds == .min)
        #expect(Duration.seconds(Int64.max / 10).microseconds == .max)
    }
}
