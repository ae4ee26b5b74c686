@testable import Sluice
import Testing

/// National phone numbers are read in the country the event names (`context.locale` here).
@Suite struct PhoneRegionTests {
    typealias P = PrivacyCase

    /// A track message from a device set to `locale`, with `properties`.
    private static func event(locale: String?, _ properties: String) -> String {
        P.track((locale.map { #""context":{"locale":"\#($0)"},"# } ?? "") + #""properties":{\#(properties)}"#)
    }

    private static func redacted(_ properties: String, locale: String?) throws -> String? {
        var stage = try P.stage()
        return P.apply(event(locale: locale, properties), &stage)
    }

    @Test(arguments: [
        ("cs-CZ", "CZ"), ("pt_BR", "BR"), ("zh-Hans-CN", "CN"), ("en-us", "US"), ("en-GB-u-ca-gregory", "GB"),
        ("en", nil), ("es-419", nil), ("xx-ZZ", nil), ("", nil),
    ] as [(String, String?)])
    func aLocaleNamesItsRegion(locale: String, region: String?) {
        let found = Array(locale.utf8).withUnsafeBufferPointer { PhoneRegion.named(byLocale: $0.span) }
        #expect(found.map { PhoneNumberingPlan.regionTable[$0].region } == region)
    }

    @Test func everyRegionsPatternsCompile() {
        #expect(PhoneNumberingPlan.regionTable.count > 200)
        for index in PhoneNumberingPlan.regionTable.indices {
            let region = PhoneRegion(index: index)
            #expect(region.lengths != 0)
        }
    }

    @Test(arguments: [
        ("cs-CZ", #""v":"601 461 055""#),    // Czech mobile, written as Czechs write it
        ("cs-CZ", #""v":"601461055""#),
        ("es-ES", #""v":"612345678""#),
        ("de-DE", #""v":"030123456""#),      // the trunk prefix and a Berlin number
        ("de-DE", #""v":"30123456""#),       // the same without it, as libphonenumber reads it too
        ("it-IT", #""v":"1789578929""#),     // Italy's "personal number" range 178: valid, so a phone by the rule
        ("cs-CZ", #""v":"420601461055""#),   // the calling code without its +
        ("it-IT", #""v":"33012345678""#),    // an Italian voicemail box (3[2-8] and 9-10 digits)
        ("it-IT", #""v":"0306406152""#),     // a Rome number whose digits also pass the ISBN-10 check, as 1 in 11 do
        ("fr-FR", #""v":"0434026859""#),
        ("it-IT", #""ref":"351492658""#),    // a field named ref: a reference or a referrer, nothing certain
        ("en-US", #""v":"Il cliente scrive 2015550123, grazie!""#),
    ])
    func aNationalNumberOfTheEventsCountryIsAPhone(locale: String, properties: String) throws {
        let out = try #require(try Self.redacted(properties, locale: locale))
        #expect(out.contains("[phone]"), "\(out)")
    }

    @Test(arguments: [
        (nil, #""v":"601 461 055""#),        // no locale: grouped thousands
        ("en-US", #""v":"601 461 055""#),    // not a North American number
        ("fr-FR", #""v":"030123456""#),      // not a French number
        ("cs-CZ", #""order_id":"601461055""#),  // a field named for something else
        ("it-IT", #""isbn":"0306406152""#),  // a Rome number and an ISBN-10, in a field named for the ISBN
        ("it-IT", #""v":"ISBN 0306406152""#),
        ("cs-CZ", #""v":"601.461.055""#),    // thousands grouped with dots
        ("it-IT", #""expires_at":"33012345678""#),  // a field named for a time
    ] as [(String?, String)])
    func otherRunsStayAsTheyAre(locale: String?, properties: String) throws {
        #expect(try Self.redacted(properties, locale: locale) == Self.event(locale: locale, properties))
    }

    @Test func aNumberIsAPhoneWhenItStartsWithTheEventsCallingCode() throws {
        // Korean: 82, then a Seoul number. Czech: 420, then a mobile number whose last digit is also a GS1 check digit.
        #expect(try Self.redacted(#""x":8222125341,"y":420601572568"#, locale: "ko-KR")
                == Self.event(locale: "ko-KR", #""x":"[phone]","y":420601572568"#))
        #expect(try Self.redacted(#""y":420601572568"#, locale: "cs-CZ") == Self.event(locale: "cs-CZ", #""y":"[phone]""#))
        #expect(try Self.redacted(#""x":8222125341,"y":420601572568"#, locale: nil)
                == Self.event(locale: nil, #""x":8222125341,"y":420601572568"#))
        // A national number typed as a JSON number follows the rule too: valid for the event's country, a phone.
        #expect(try Self.redacted(#""n":601461055"#, locale: "cs-CZ") == Self.event(locale: "cs-CZ", #""n":"[phone]""#))
        #expect(try Self.redacted(#""n":601461055"#, locale: nil) == Self.event(locale: nil, #""n":601461055"#))
    }
}
