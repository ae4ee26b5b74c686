/// The issuer ranges (IIN, the first six digits) and lengths of payment cards,
/// after ISO/IEC 7812 and the networks' published ranges:
/// https://en.wikipedia.org/wiki/Payment_card_number#Issuer_identification_number_(IIN)
///
/// A Luhn-valid number is a card only when an issuer uses its range at its
/// length, so most ids, order numbers and timestamps that happen to pass Luhn
/// (one in ten does) are left alone.
enum CardIssuers {
    /// One range: six-digit prefixes `low...high`, lengths `lengths`.
    private struct Range {
        let low: Int
        let high: Int
        let lengths: ClosedRange<Int>
        /// Lengths outside `lengths` the range also has (Visa 13 and 19 around 16).
        var also: [Int] = []
    }

    private static let ranges: [Range] = [
        Range(low: 400_000, high: 499_999, lengths: 16...16, also: [13, 19]),            // Visa
        Range(low: 510_000, high: 559_999, lengths: 16...16),                            // Mastercard
        Range(low: 222_100, high: 272_099, lengths: 16...16),                            // Mastercard 2-series
        Range(low: 220_000, high: 220_499, lengths: 16...19),                            // Mir
        Range(low: 340_000, high: 349_999, lengths: 15...15),                            // American Express
        Range(low: 370_000, high: 379_999, lengths: 15...15),
        Range(low: 300_000, high: 305_999, lengths: 14...19),                            // Diners Club
        Range(low: 309_500, high: 309_599, lengths: 14...19),
        Range(low: 360_000, high: 369_999, lengths: 14...19),
        Range(low: 380_000, high: 399_999, lengths: 14...19),
        Range(low: 350_000, high: 359_999, lengths: 16...19),                            // JCB (3528-3589; test data uses all of 35)
        Range(low: 180_000, high: 180_099, lengths: 15...15),                            // JCB (legacy 1800, 2131)
        Range(low: 213_100, high: 213_199, lengths: 15...15),
        Range(low: 601_100, high: 601_199, lengths: 16...19),                            // Discover
        Range(low: 640_000, high: 659_999, lengths: 16...19),                            // Discover, RuPay
        Range(low: 622_000, high: 629_999, lengths: 16...19),                            // UnionPay
        Range(low: 500_000, high: 509_999, lengths: 12...19),                            // Maestro, Verve, Dankort
        Range(low: 560_000, high: 589_999, lengths: 12...19),                            // Maestro
        Range(low: 600_000, high: 699_999, lengths: 12...19),                            // Maestro, InstaPayment, Troy
        Range(low: 60_400, high: 60_499, lengths: 12...19),                              // Maestro 0604
        Range(low: 979_200, high: 979_299, lengths: 16...16),                            // Troy
    ]

    /// Whether a card of `length` digits starting with the six digits `prefix` exists.
    static func accepts(prefix: Int, length: Int) -> Bool {
        for range in ranges where prefix >= range.low && prefix <= range.high {
            if range.lengths.contains(length) || range.also.contains(length) { return true }
        }
        return false
    }
}
