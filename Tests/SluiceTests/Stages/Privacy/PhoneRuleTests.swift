@testable import Sluice
import Testing

/// The phone rule: a digit string that no numbering plan allows is not any
/// person's phone number. A phone is a number valid for the event's country
/// or in international form, or one of a possible length there when its
/// placement (the field's name, a phone word next to it) names a phone.
/// Identifier context vetoes an ambiguous run.
@Suite struct PhoneRuleTests {
    typealias P = PrivacyCase

    /// A track message whose `context` members are `context` (raw JSON, may be empty), then `properties`.
    private static func event(context: String, top: String = "", _ properties: String) -> String {
        P.track((top.isEmpty ? "" : top + ",") + (context.isEmpty ? "" : #""context":{\#(context)},"#)
                + #""properties":{\#(properties)}"#)
    }

    private static func locale(_ locale: String?) -> String {
        locale.map { #""locale":"\#($0)""# } ?? ""
    }

    /// Whether the stage replaces something in `properties` with `[phone]`.
    private static func findsPhone(_ properties: String, locale: String?) throws -> Bool {
        try findsPhone(event(context: Self.locale(locale), properties))
    }

    private static func findsPhone(_ line: String) throws -> Bool {
        var stage = try P.stage()
        let out = try #require(P.apply(line, &stage))
        return out.contains("[phone]")
    }

    @Test(arguments: [
        ("es-ES", #""v":"612 345 678""#),          // a Spanish mobile, as Spaniards write it
        ("en-US", #""v":"415-555-0123""#),
        ("de-DE", #""v":"030 1234567""#),          // the trunk prefix and a Berlin number
        ("ja-JP", #""v":"Bitte 03-1234-5678 anrufen""#),
        ("he-IL", #""v":"050-234-5678""#),
    ])
    func aValidNumberOfTheEventsCountryIsAPhoneWithoutContext(locale: String, properties: String) throws {
        #expect(try Self.findsPhone(properties, locale: locale))
    }

    @Test(arguments: [
        #""v":"+44 20 7946 0958""#,
        #""v":"+34 612 345 678""#,
        #""v":"0034 612 345 678""#,
        #""v":"Rufen Sie +49 30 123456 an""#,
    ])
    func aValidNumberInInternationalFormIsAPhoneWhateverTheCountry(properties: String) throws {
        #expect(try Self.findsPhone(properties, locale: nil))
        #expect(try Self.findsPhone(properties, locale: "ko-KR"))
    }

    @Test(arguments: [
        ("ru-RU", #""phone":"80763011349""#),              // a Russian length, in no range of its plan
        ("ru-RU", #""mobileNumber":"80763011349""#),
        ("ru-RU", #""v":"телефон 80763011349""#),
        ("ru-RU", #""v":"Тел.: 8 076 301-13-49""#),
        ("en-AU", #""v":"call me on 74619775""#),
        ("en-AU", #""v":"Mobil: 74619775""#),
        ("he-IL", #""v":"לפרטים התקשרו ב-0501234567""#),  // a phone word, then a preposition glued to the number
        ("he-IL", #""v":"טלפון: 0501234567""#),
        (nil, #""phone":"+7 807 630 1134""#),             // international form, possible only: the field names a phone
    ] as [(String?, String)])
    func aNumberOfAPossibleLengthIsAPhoneWhereItsPlacementNamesOne(locale: String?, properties: String) throws {
        #expect(try Self.findsPhone(properties, locale: locale))
    }

    @Test(arguments: [
        ("ru-RU", #""v":"80763011349""#),                  // possible, not valid, nothing says phone
        ("en-AU", #""v":"74619775""#),
        ("he-IL", #""v":"לפרטים ב-0501234567""#),          // a glued preposition alone is no phone word
        ("fr-FR", #""v":"Merci de me contacter : 86-63790-74268.""#),  // "contact" is an address or a handle too
        ("es-MX", #""v":"4519-7210""#),
        ("tr-TR", #""v":"Lütfen 795 6 732 üzerinden ulaşın.""#),
        (nil, #""v":"(415) 555-0123""#),                   // no country named: a national number is no phone
        (nil, #""v":"+7 807 630 1134""#),                  // international form, possible only, nothing says phone
        ("de-DE", #""v":"090-1234-5678""#),                // three groups of digits: a Japanese mobile, not a German number
        ("de-DE", #""v":"13812345678""#),                  // a Chinese mobile, in a German event
        ("fr-FR", #""v":"01512 3456789""#),                // a trunk prefix and a German mobile, in a French event
    ] as [(String?, String)])
    func aRunThatIsNotValidForTheCountryStaysWithoutAPhonePlacement(locale: String?, properties: String) throws {
        #expect(try !Self.findsPhone(properties, locale: locale))
    }

    @Test(arguments: [
        #""v":"model 612345678""#,
        #""v":"P/N 612 345 678""#,
        #""v":"Art. 612345678""#,
        #""v":"SKU 612345678""#,
        #""v":"HS code 612345678""#,
        #""v":"Pedido 612345678""#,
        #""v":"Artículo 612 345 678""#,
        #""v":"Заказ 612345678""#,
        #""v":"型番612345678""#,
        #""sku":"612345678""#,
        #""model_number":"612345678""#,
        #""order_id":"612345678""#,
        #""v":"Tel. wegen Bestellung 612345678""#,         // the identifier word is the nearer
    ])
    func identifierContextVetoesAValidNumber(properties: String) throws {
        #expect(try !Self.findsPhone(properties, locale: "es-ES"))
    }

    @Test(arguments: [
        ("es-ES", #""phone":"Pedido 612345678""#, true),     // valid, in a phone field: still a phone
        ("es-ES", #""v":"Pedido: llámame al 612345678""#, true),  // the phone word is the nearer
        ("ru-RU", #""phone":"Заказ 80763011349""#, false),  // possible only: the identifier vetoes it
        ("es-ES", #""order_id":"Tel. 612345678""#, true),    // valid after a phone word, in an identifier field
        ("ru-RU", #""order_id":"Тел. 80763011349""#, false), // possible only, in an identifier field
    ])
    func aPhoneWordOrFieldKeepsAValidNumberDespiteIdentifierContext(locale: String, properties: String, phone: Bool) throws {
        #expect(try Self.findsPhone(properties, locale: locale) == phone)
    }

    @Test func theEventsCountryIsReadFromItsLocaleItsLocationAndATopLevelLocale() throws {
        let number = #""v":"612 345 678""#
        #expect(try Self.findsPhone(Self.event(context: #""locale":"es-ES""#, number)))
        #expect(try Self.findsPhone(Self.event(context: #""location":{"country":"ES"}"#, number)))
        #expect(try Self.findsPhone(Self.event(context: #""location":{"country":"Spain"}"#, number)))
        #expect(try Self.findsPhone(Self.event(context: #""location":{"country":"España"}"#, number)))
        #expect(try Self.findsPhone(Self.event(context: "", top: #""locale":"es_ES""#, number)))
        // Two countries: the device's locale and where it is; a number valid in either is read.
        #expect(try Self.findsPhone(Self.event(context: #""locale":"en-US","location":{"country":"Spain"}"#, number)))
        #expect(try !Self.findsPhone(Self.event(context: #""locale":"en-US","location":{"country":"Brazil"}"#, number)))
        #expect(try !Self.findsPhone(Self.event(context: "", number)))
    }

    @Test func aNumberTypedAsAJSONNumberFollowsTheRule() throws {
        // Valid for the event's country: a phone; possible only: a phone in a field named for one.
        #expect(try Self.findsPhone(#""n":601461055"#, locale: "cs-CZ"))
        #expect(try !Self.findsPhone(#""n":80763011349"#, locale: "ru-RU"))
        #expect(try Self.findsPhone(#""phone":80763011349"#, locale: "ru-RU"))
        #expect(try !Self.findsPhone(#""order_id":601461055"#, locale: "cs-CZ"))
    }

    @Test(arguments: [
        (#""order_id":"4111111111111111""#, false),
        (#""tracking_number":"4111 1111 1111 1111""#, false),
        (#""v":"Order 4111111111111111 shipped""#, false),
        (#""v":"Rechnung 4111111111111111""#, false),
        (#""v":"order paid with card 4111111111111111""#, true),  // the card word is the nearer
        (#""card_order":"4111111111111111""#, true),             // a field that says card
        (#""v":"4111111111111111""#, true),
    ])
    func aLuhnValidIdInOrderContextStaysAnIdUnlessCardIsSaid(properties: String, card: Bool) throws {
        var stage = try P.stage()
        let out = try #require(P.apply(Self.event(context: "", properties), &stage))
        #expect(out.contains("[card]") == card, "\(out)")
    }
}
