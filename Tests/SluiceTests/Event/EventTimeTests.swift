import Testing
@testable import Sluice
import SluiceTestSupport

@Suite struct EventTimeTests {
    @Test(arguments: [
        ("2026-11-20T08:00:07.269Z", Int64(1_795_161_607_269_000)),
        ("2026-11-20T08:00:07Z", Int64(1_795_161_607_000_000)),
        ("2026-11-20T09:00:07.269+01:00", Int64(1_795_161_607_269_000)),
        ("2026-11-20T03:30:07.269-0430", Int64(1_795_161_607_269_000)),
        ("2026-11-20T08:00:07.269123456Z", Int64(1_795_161_607_269_123)),
        ("1970-01-01T00:00:00Z", Int64(0)),
        ("2024-02-29T00:00:00Z", Int64(1_709_164_800_000_000)),
        ("0001-01-01T00:00:00Z", Int64(-62_135_596_800_000_000)),
        ("0001-01-01T01:00:00+01:00", Int64(-62_135_596_800_000_000)),
        ("9999-12-31T23:59:59.999999Z", Int64(253_402_300_799_999_999)),
    ])
    func validTimestampsParseToMicroseconds(_ text: String, _ micros: Int64) {
        #expect(EventTime.parseISO8601(text)?.microseconds == micros)
    }

    @Test func theBoundsOfTheYearsTakenAreTheFirstDayOfYearOneAndOfYearTenThousand() {
        #expect(EventTime.firstMicroseconds == Int64(EventTime.daysFromCivil(year: 1, month: 1, day: 1)) * 86_400_000_000)
        #expect(EventTime.endMicroseconds == Int64(EventTime.daysFromCivil(year: 10000, month: 1, day: 1)) * 86_400_000_000)
    }

    @Test(arguments: [
        "2026-11-20T08:00:07.269",        // no zone
        "2026-11-20 08:00",               // too short
        "not-a-date 2026-11-20T08:00:00Z",
        "2025-02-29T00:00:00Z",           // not a leap year
        "2026-13-01T00:00:00Z",
        "2026-11-20T24:00:00Z",
        "2026-11-20T08:00:07.Z",
        "2026-11-20T08:00:07Zjunk",
        "2026-11-20T08:00:07+25:00",
        "0000-01-01T00:00:00+23:59",      // year -1 in UTC
        "0000-06-01T00:00:00Z",           // year 0
        "0001-01-01T00:00:00+00:01",      // a minute before year 1 in UTC
        "9999-12-31T23:59:59-00:01",      // year 10000 in UTC
    ])
    func invalidTimestampsAreRefused(_ text: String) {
        #expect(EventTime.parseISO8601(text) == nil)
    }

    @Test(arguments: [
        ("2026-11-20T08:00:07.269Z", Int64(1_795_161_607_269_000)),
        ("2026-11-20T09:00:07.269+01:00", Int64(1_795_161_607_269_000)),
        ("1795161607269", Int64(1_795_161_607_269_000)),
        ("0", Int64(0)),
        ("999999999999999", Int64(999_999_999_999_999_000)),
    ])
    func aCommandLineTimeIsRFC3339OrEpochMilliseconds(_ text: String, _ micros: Int64) {
        #expect(EventTime.parseArgument(text)?.microseconds == micros)
    }

    @Test(arguments: ["", "-1", "1795161607.269", "1e12", "1000000000000000", "2026-11-20T08:00:07", "+1795161607269", " 1795161607269"])
    func aCommandLineTimeThatIsNeitherIsRefused(_ text: String) {
        #expect(EventTime.parseArgument(text) == nil)
    }

    @Test func theCommonFormReadInPlaceGivesWhatTheGeneralParseGives() {
        // Every 24-byte string the fast form could take, and ones one byte off it: the same time or the same nil.
        var random = TestRandom(state: 11)
        let alphabet = Array("0123456789-T:.Zz ,tX\\\"".utf8)
        var memo = EventTime.DateMemo()
        var taken = 0
        for trial in 0..<20_000 {
            // Any millisecond of the years taken, 0001-9999.
            let milliseconds = EventTime.firstMicroseconds / 1000
                + Int64(random.below(Int((EventTime.endMicroseconds - EventTime.firstMicroseconds) / 1000)))
            var text = Array(EventTime(milliseconds: milliseconds).iso8601.utf8)
            #expect(text.count == 24)
            if trial % 3 == 0 { text[random.below(24)] = alphabet[random.below(alphabet.count)] }
            if trial % 7 == 0 { for index in [5, 6, 8, 9] { text[index] = UInt8(ascii: "0") + UInt8(random.below(10)) } }
            let general = text.withUnsafeBytes { EventTime.parseGeneral($0) }
            let inPlace = text.withUnsafeBytes { EventTime.parseMillisecondsUTC($0.baseAddress!, memo: &memo) }
            if trial % 3 != 0 && trial % 7 != 0 { #expect(inPlace == EventTime(milliseconds: milliseconds)) }
            if let inPlace {
                taken += 1
                #expect(inPlace == general, "\(String(decoding: text, as: UTF8.self))")
            } else if text[10] == UInt8(ascii: "T") && text[19] == UInt8(ascii: ".") && text[23] == UInt8(ascii: "Z") {
                #expect(general == nil, "\(String(decoding: text, as: UTF8.self)) is the common form")
            }
        }
        #expect(taken > 10_000)
        // A date remembered is not taken for another.
        memo = EventTime.DateMemo()
        for text in ["2026-11-20T08:00:00.000Z", "2026-11-21T08:00:00.000Z", "2026-12-20T08:00:00.000Z", "2025-11-20T08:00:00.000Z",
                     "2026-02-29T08:00:00.000Z", "2026-11-20T08:00:00.000Z"] {
            let bytes = Array(text.utf8)
            #expect(bytes.withUnsafeBytes { EventTime.parseMillisecondsUTC($0.baseAddress!, memo: &memo) }
                    == bytes.withUnsafeBytes { EventTime.parseGeneral($0) }, "\(text)")
        }
    }

    @Test func calendarFieldsRoundTrip() {
        let time = EventTime.parseISO8601("2026-11-20T23:59:59.999Z")!
        #expect(time.iso8601 == "2026-11-20T23:59:59.999Z")
        let early = EventTime.parseISO8601("1969-12-31T23:00:00.500Z")!
        #expect(early.iso8601 == "1969-12-31T23:00:00.500Z")
        #expect(early.milliseconds == -3_599_500)
    }
}
