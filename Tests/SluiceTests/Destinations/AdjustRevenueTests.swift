import Testing
@testable import Sluice
@testable import SluiceJSON

/// Adjust revenue from `revenue`, or `price` × `quantity`, given as JSON numbers or as strings.
///
/// [s2s] dev.adjust.com/en/api/s2s-api/events, "Record revenue events": `revenue` is the
/// "Revenue event value in full currency units (149.99 = $149.99). Adjust's servers accept a
/// minimum value of 0.001", with `currency`; the request example sends `currency=EUR&revenue=123.4`.
/// Every S2S parameter is text, so apps send revenue as `"20.37566"` too.
@Suite struct AdjustRevenueTests {
    private let adjust = "{type: adjust, app_token: 4w565xzmb54d, tokens: {purchase_completed: f0ob4r}}"
    private static let counters = ["revenue_invalid", "revenue_without_currency", "revenue_below_minimum"]

    /// The `revenue` written for these properties (nil when left out), and the revenue counters that moved.
    private func revenue(_ properties: String) throws -> (revenue: String?, currency: String?, counted: [String]) {
        var destination = try DestinationHarness(adjust)
        let line = try destination.encode(#"{"type":"track","event":"purchase_completed","messageId":"m-1","timestamp":"2026-11-20T08:00:07.269Z","anonymousId":"dev-000001","properties":\#(properties)}"#).get()
        let document = try JSONDocument.parse(Array(line.utf8))
        return (document.member("revenue").map { String(decoding: document.rawBytes($0), as: UTF8.self) },
                document.member("currency").flatMap { document.string($0) },
                Self.counters.filter { destination.change($0) > 0 })
    }

    /// [s2s] revenue in full currency units: a string spelled as a JSON number is that number.
    @Test(arguments: [
        (#"{"revenue":"20.37566","currency":"EUR"}"#, "20.3757"),
        (#"{"revenue":"149.99","currency":"USD"}"#, "149.99"),
        (#"{"revenue":"123.4","currency":"EUR"}"#, "123.4"),
        (#"{"revenue":"1.5e2","currency":"EUR"}"#, "150"),
        (#"{"revenue":"1E-3","currency":"EUR"}"#, "0.001"),
        (#"{"revenue":"0.001","currency":"EUR"}"#, "0.001"),
        (#"{"revenue":"\u0032\u0030","currency":"EUR"}"#, "20"),
    ])
    func aNumericStringIsRevenueLikeTheNumberItSpells(_ properties: String, _ expected: String) throws {
        let result = try revenue(properties)
        #expect(result.revenue == expected)
        #expect(result.counted.isEmpty)
        guard !properties.contains(#"\u"#) else { return }
        // The same text as a JSON number gives the same revenue.
        let number = try revenue(properties.replacingAll(#""revenue":""#, with: #""revenue":"#).replacingAll(#"","currency""#, with: #","currency""#))
        #expect(number.revenue == expected)
    }

    /// Only the JSON number grammar (RFC 8259 §6), nothing trimmed: anything else is no amount.
    @Test(arguments: [
        #"" 20.5""#, #""20.5 ""#, #""+20.5""#, #""20,37""#, #""020.5""#, #"".5""#, #""5.""#, #""1e""#, #""1e+""#,
        #""0x10""#, #""NaN""#, #""Infinity""#, #""20.5 EUR""#, #""--1""#, #""-""#,
    ])
    func aStringThatIsNotExactlyAJSONNumberIsLeftOutAndCountedInvalid(_ value: String) throws {
        let result = try revenue(#"{"revenue":\#(value),"currency":"EUR"}"#)
        #expect(result.revenue == nil && result.currency == nil)
        #expect(result.counted == ["revenue_invalid"])
    }

    /// A refund is not revenue, and infinity has no amount: numbers and strings alike are invalid
    /// (before, `1e400` reached `formatAmount` as +inf; a value past `maxRevenue` cannot be written).
    @Test(arguments: [#""-5""#, "-5", #""-0.5""#, "-0.5", #""1e400""#, "1e400", "1e15", #""1e15""#, "true", #"{"amount":5}"#, "[5]"])
    func aNegativeNonFiniteOrNonNumericRevenueIsLeftOutAndCountedInvalid(_ value: String) throws {
        let result = try revenue(#"{"revenue":\#(value),"currency":"EUR"}"#)
        #expect(result.revenue == nil)
        #expect(result.counted == ["revenue_invalid"])
    }

    /// Empty strings are omitted, not sent: `""` and `null` are no revenue, and not a mistake to count;
    /// then `price` × `quantity` is looked at, as when `revenue` is absent.
    @Test(arguments: [
        (#"{"revenue":"","currency":"EUR"}"#, nil as String?),
        (#"{"revenue":null,"currency":"EUR"}"#, nil),
        (#"{"revenue":null,"price":2.5,"currency":"EUR"}"#, "2.5"),
        (#"{"revenue":"","price":"2.5","currency":"EUR"}"#, "2.5"),
    ])
    func anEmptyOrNullRevenueIsAbsentAndNotCounted(_ properties: String, _ expected: String?) throws {
        let result = try revenue(properties)
        #expect(result.revenue == expected)
        #expect(result.counted.isEmpty)
    }

    /// `price` and `quantity` are read like `revenue`; either one invalid leaves the product out.
    @Test(arguments: [
        (#"{"price":"4.99","quantity":"2","currency":"USD"}"#, "9.98" as String?, nil as String?),
        (#"{"price":"4.99","quantity":2,"currency":"USD"}"#, "9.98", nil),
        (#"{"price":"4.99","currency":"USD"}"#, "4.99", nil),
        (#"{"price":"abc","currency":"USD"}"#, nil, "revenue_invalid"),
        (#"{"price":4.99,"quantity":"two","currency":"USD"}"#, nil, "revenue_invalid"),
        (#"{"price":-4.99,"quantity":-2,"currency":"USD"}"#, nil, "revenue_invalid"),
        (#"{"quantity":"2","currency":"USD"}"#, nil, nil),
    ])
    func priceAndQuantityAreReadTheSameWay(_ properties: String, _ expected: String?, _ counter: String?) throws {
        let result = try revenue(properties)
        #expect(result.revenue == expected)
        #expect(result.counted == (counter.map { [$0] } ?? []))
    }

    /// [s2s] "a minimum value of 0.001" and a `currency`: string revenue meets the same rules and
    /// the same counters as numbers do.
    @Test(arguments: [
        (#"{"revenue":"0.0009","currency":"EUR"}"#, "revenue_below_minimum"),
        (#"{"revenue":"-0","currency":"EUR"}"#, "revenue_below_minimum"),
        (#"{"revenue":"0","currency":"EUR"}"#, "revenue_below_minimum"),
        (#"{"revenue":"20.37566"}"#, "revenue_without_currency"),
        (#"{"revenue":"20.37566","currency":"EURO"}"#, "revenue_without_currency"),
        (#"{"revenue":"20.37566","currency":"€"}"#, "revenue_without_currency"),
    ])
    func stringRevenueMeetsTheSameMinimumAndCurrencyRulesAsNumbers(_ properties: String, _ counter: String) throws {
        let result = try revenue(properties)
        #expect(result.revenue == nil && result.currency == nil)
        #expect(result.counted == [counter])
    }

    /// ISO 4217 codes are capitals; `eur` is the same code, sent `EUR` as GA4 and Amplitude send it.
    @Test func aLowercaseCurrencyIsSentUppercase() throws {
        let result = try revenue(#"{"revenue":"20.5","currency":"eur"}"#)
        #expect(result.revenue == "20.5" && result.currency == "EUR")
        #expect(result.counted.isEmpty)
    }

    @Test(arguments: [
        ("0", true), ("-0", true), ("20.37566", true), ("1E+2", true), ("-1.5e-3", true), ("123", true),
        ("", false), ("-", false), ("01", false), ("1.", false), (".1", false), ("1e", false), ("+1", false), (" 1", false), ("1 ", false),
    ])
    func theNumberGrammarIsJSONs(_ text: String, _ valid: Bool) {
        #expect(Array(text.utf8).withUnsafeBytes { JSONNumberText.isNumber($0) } == valid)
    }
}
