@testable import Sluice
import Testing

/// The leaks of issue 36, each a shape the detectors missed in part or whole:
/// addresses with non-ASCII local parts, two numbers with only a space between
/// them, form- and percent-encoded values, and IBANs whose BBAN has letters
/// only. Test numbers are real: Luhn-valid cards, mod-97-valid IBANs.
@Suite struct PrivacyLeakTests {
    /// `text` with every match of every detector replaced by its default token.
    /// `text` redacted by every detector, national phone numbers read in the US (the phone rule).
    static func redacted(_ text: String) -> String {
        var scanner = PIIScanner(enabled: Set(PIIDetector.allCases), patterns: [])
        scanner.setPhoneRegionsForTesting(Array("en-US".utf8).withUnsafeBufferPointer { PhoneRegion.named(byLocale: $0.span) } ?? -1)
        var matches: [PIIMatch] = []
        let bytes = Array(text.utf8)
        scanner.scan(bytes.span, into: &matches)
        var out: [UInt8] = []
        let tokens = PIIDetector.allCases.map { Array($0.defaultToken.utf8) }
        TextRedaction.append(bytes.span, replacing: matches, tokens: tokens, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: - 1. Addresses with Unicode letters (RFC 6531)

    @Test(arguments: [
        ("josé.garcía@example.com", "[email]"),
        ("jörg@müller.de", "[email]"),
        ("write to josé.garcía@example.com today", "write to [email] today"),
        ("Ελένη: δημήτρης.παπαδόπουλος@example.gr", "Ελένη: [email]"),
        ("почта иван.петров@пример.рф", "почта [email]"),
        ("nguyễn.văn@example.vn", "[email]"),
        ("françois@bücher.café.", "[email]."),
        ("用户@例子.广告", "[email]"),
    ])
    func anAddressWithUnicodeLettersIsRedactedWhole(text: String, expected: String) {
        #expect(Self.redacted(text) == expected)
    }

    @Test(arguments: [
        ("連絡先はjane@x.comです", "連絡先は[email]です"),
        ("«jane@x.com»", "«[email]»"),
        ("¿josé@x.es?", "¿[email]?"),
        ("(jörg@x.de)", "([email])"),
    ])
    func textAndQuotesWrittenAgainstAnAddressStayOutsideIt(text: String, expected: String) {
        #expect(Self.redacted(text) == expected)
    }

    @Test func scriptLettersAreTheAlphabeticOnesNotPunctuationOrCJK() {
        for letter in ["é", "ß", "ø", "ł", "ő", "ș", "α", "ж", "ա", "ễ", "ἀ"] {
            #expect(TextBytes.isScriptLetter(letter.unicodeScalars.first!.value), "\(letter)")
        }
        for other in ["«", "»", "¿", "×", "÷", "\u{A0}", "で", "中", "א", "ع", "—", "“"] {
            #expect(!TextBytes.isScriptLetter(other.unicodeScalars.first!.value), "\(other)")
        }
    }

    // MARK: - 2. Two numbers with only a space between them

    @Test(arguments: [
        ("415-555-0142 415-555-0143", "[phone] [phone]"),
        ("4111111111111111 5500000000000004", "[card] [card]"),
        ("+44 20 7946 0958 4111111111111111", "[phone] [card]"),
        ("call 415-555-0142 or 415-555-0143", "call [phone] or [phone]"),
        ("415-555-0142, 415-555-0143", "[phone], [phone]"),
        ("4111 1111 1111 1111 5500 0000 0000 0004", "[card] [card]"),
    ])
    func twoNumbersSeparatedBySpaceAreEachFound(text: String, expected: String) {
        #expect(Self.redacted(text) == expected)
    }

    @Test(arguments: ["9400 1000 0000 0000 0000 00", "5 585 170 304", "12 34 56 78 90 12 34 56", "1 234 567 890 123"])
    func aRunGroupedOneWayThroughoutIsNotCut(text: String) {
        #expect(Self.redacted(text) == text)
    }

    // MARK: - 3. Form- and percent-encoded values

    @Test(arguments: [
        ("phone=%2B44+20+7946+0958", "phone=[phone]"),
        ("card=4111+1111+1111+1111", "card=[card]"),
        ("iban=DE89+3704+0044+0532+0130+00", "iban=[iban]"),
        ("iban=DE89%203704%200044%200532%200130%2000", "iban=[iban]"),
        ("https://x.com/pay?card=4111%201111%201111%201111&amount=12", "https://x.com/pay?card=[card]&amount=12"),
        ("name=Jane+Doe&phone=%2B1+415+555+0142&email=jane%40example.com",
         "name=Jane+Doe&phone=[phone]&email=[email]"),
        ("sent phone=%2B44+20+7946+0958 today", "sent phone=[phone] today"),
        ("4111+1111+1111+1111", "[card]"),
    ])
    func aFormOrPercentEncodedValueIsFoundAndRedactedInTheEncodedText(text: String, expected: String) {
        #expect(Self.redacted(text) == expected)
    }

    @Test(arguments: ["https://x.com/?q=shoes+size+42&page=2", "C++ 1+1=2", "v2.1.0+20130313144700", "utm_content=spring%2B2026",
                      "ts=2026-11-20T08%3A00%3A07Z"])
    func anEncodedValueWithoutPersonalDataIsLeftAsItCame(text: String) {
        #expect(Self.redacted(text) == text)
    }

    @Test(arguments: [
        ("¿Es correcto +34810523025?", "¿Es correcto [phone]?"),
        ("call +44 20 7946 0958 now", "call [phone] now"),
        ("phone=+34810523025&x=1", "phone=[phone]&x=1"),
    ])
    func aPlusThatIsNoFormEncodingKeepsItsNumberWhole(text: String, expected: String) {
        // Free text is not a form value; where the encoded text already has a match, the decoded one adds no piece.
        #expect(Self.redacted(text) == expected)
    }

    @Test func decodingMapsEachDecodedByteToWhereItStarts() {
        var form = FormDecoding()
        let text = Array("a=%2B4+5 x+y".utf8)
        let decoded = form.decode(text.span)
        #expect(decoded)
        // `x+y` is letters joined by `+`: form-encoded too.
        #expect(String(decoding: form.decoded, as: UTF8.self) == "a=+4 5 x y")
        #expect(form.offsets == [0, 1, 2, 5, 6, 7, 8, 9, 10, 11, 12])
        var plain = FormDecoding()
        let other = Array("a=b+c&d=%41".utf8)
        let needed = plain.decode(other.span)
        #expect(!needed, "no + or escape touches a digit")
    }

    // MARK: - 4. IBANs of every registered country, letters-only BBANs too

    @Test(arguments: [
        "LV80BANK0000435195001", "LV44KBAZZCUINISPLMMQY", "LV44 KBAZ ZCUI NISP LMMQ Y",
        "PS92PALS000000000400123456702", "PS32GQJFSRTPGLPXIHOJXHSCLWTPS", "PS32 GQJF SRTP GLPX IHOJ XHSC LWTP S",
        "KW81CBKU0000000000001234560101", "KW70XICDGXEZUZIRRBPMJFGOUDVRSC", "KW70 XICD GXEZ UZIR RBPM JFGO UDVR SC",
        "BH67BMAG00001299123456", "BH44UBKHLLLONMFTSLFCXC", "BH44 UBKH LLLO NMFT SLFC XC",
        "QA58DOHB00001234567890ABCDEFG", "QA09XUVEWDQANMUDHVAAFOIUWLZAT", "QA09 XUVE WDQA NMUD HVAA FOIU WLZA T",
        "MD24AG000225100013104168", "MD28AKXWDPMXAXJKIAPEOXTF", "MD28 AKXW DPMX AXJK IAPE OXTF",
    ])
    func anIBANWhoseOnlyDigitsMayBeItsCheckDigitsIsFound(iban: String) {
        #expect(Self.redacted("IBAN: \(iban).") == "IBAN: [iban].")
    }

    @Test func everyRegistryCountryHasItsLength() {
        // SWIFT IBAN registry, release 100: 89 countries and 16 territories.
        #expect(IBANDetection.lengths.count == 105)
        let code = { (text: String) -> UInt16 in let bytes = Array(text.utf8); return UInt16(bytes[0]) << 8 | UInt16(bytes[1]) }
        #expect(IBANDetection.lengths[code("NO")] == 15 && IBANDetection.lengths[code("RU")] == 33)
        #expect(IBANDetection.lengths[code("RE")] == 27 && IBANDetection.lengths[code("JE")] == 22 && IBANDetection.lengths[code("AX")] == 18)
    }

    @Test func aWordOfRegistryLengthWithAFailingChecksumIsNoIBAN() {
        // LV44KBAZZCUINISPLMMQY with its check digits changed.
        #expect(Self.redacted("LV45KBAZZCUINISPLMMQY") == "LV45KBAZZCUINISPLMMQY")
    }
}
