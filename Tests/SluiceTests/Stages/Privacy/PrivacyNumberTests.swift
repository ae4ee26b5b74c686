@testable import Sluice
import Testing

/// Cards and phones typed as JSON numbers are found like their digits in a string.
@Suite struct PrivacyNumberTests {
    typealias P = PrivacyCase

    @Test func cardAndPhoneNumbersTypedAsNumbersAreMasked() throws {
        var stage = try P.stage()
        let line = P.track(#""properties":{"card":4111111111111111,"phone":4155550100,"list":[5500000000000004,1],"#
            + #""float":4.111111111111111e15,"point":4111111111111111.0,"neg":-4111111111111111}"#)
        let out = try #require(P.apply(line, &stage))
        #expect(out == P.track(#""properties":{"card":"[card]","phone":"[phone]","list":["[card]",1],"#
            + #""float":"[card]","point":"[card]","neg":"[card]"}"#))
        #expect(P.counter(stage, "redacted_card") == 5 && P.counter(stage, "redacted_phone") == 1)
        #expect(stage.hitsByPath["card"]?["properties.*"] == 5)
    }

    @Test func ordinaryNumbersAreLeftAlone() throws {
        var stage = try P.stage()
        // Not Luhn-valid, a unix time in ms, a unix time in s, a price, small counts, an order number.
        let line = P.track(#""properties":{"order":4111111111111112,"ms":1795161600040,"s":1732000000,"#
            + #""price":12.5,"n":3,"id":123456789,"big":1e300,"tiny":4.1e-7}"#)
        #expect(P.apply(line, &stage) == line)
    }

    @Test func aCountOrAnIdThatPassesLuhnIsNotACardUnlessItsFieldSaysCard() throws {
        var stage = try P.stage()
        // 30010575493922: Diners Club's range and length, Luhn-valid.
        let line = P.track(#""properties":{"request_count":30010575493922,"order_id":4111111111111111,"#
            + #""card_id":4111111111111111,"x":30010575493922}"#)
        #expect(P.apply(line, &stage) == P.track(#""properties":{"request_count":30010575493922,"order_id":4111111111111111,"#
            + #""card_id":"[card]","x":"[card]"}"#))
    }

    @Test func numbersFollowPathsExemptionsAndDetectors() throws {
        var onlyEmail = try P.stage("{redact: [email]}")
        let line = P.track(#""properties":{"card":4111111111111111}"#)
        #expect(P.apply(line, &onlyEmail) == line)
        var scoped = try P.stage("{redact: {paths: [properties.text]}}")
        #expect(P.apply(line, &scoped) == line)
        var exempt = try P.stage("{redact: {exempt: [properties.card]}}")
        #expect(P.apply(line, &exempt) == line)
        var custom = try P.stage("{redact: {tokens: {card: X}}}")
        #expect(P.apply(line, &custom) == P.track(#""properties":{"card":"X"}"#))
    }

    @Test(arguments: [
        ("4111111111111111", "4111111111111111"), ("4.111111111111111e15", "4111111111111111"),
        ("41111111111111110e-1", "4111111111111111"), ("0.5e7", "5000000"), ("-4155550100", "4155550100"),
        ("123456", nil), ("1.5", nil), ("12345678901234567890", nil), ("1e30", nil),
    ] as [(String, String?)])
    func integerDigitsOfANumber(text: String, expected: String?) {
        var digits: [UInt8] = []
        let ok = Array(text.utf8).withUnsafeBufferPointer { RedactionWalk.integerDigits($0.span, into: &digits) }
        #expect((ok ? String(decoding: digits, as: UTF8.self) : nil) == expected)
    }
}
