@testable import Sluice
import Testing

/// A digit run that may or may not be a phone number is read with its field's
/// name and the words before it.
@Suite struct PhoneContextTests {
    typealias P = PrivacyCase

    @Test(arguments: [
        ("phone", PhoneContext.Hint.phone), ("mobileNumber", .phone), ("home_phone", .phone), ("tel", .phone),
        ("faxNo", .phone), ("telefono", .phone), ("contact_msisdn", .phone),
        ("order_id", .notPhone), ("userId", .notPhone), ("sku", .notPhone), ("app_version", .notPhone), ("count", .notPhone),
        ("expires_at", .notPhone), ("createdAt", .notPhone), ("order_reference", .notPhone),
        ("value", .none), ("note", .none), ("hotel", .none), ("x1", .none), ("ref", .none), ("", .none),
    ])
    func aFieldsNameSaysPhoneOrSomethingElse(key: String, expected: PhoneContext.Hint) {
        let bytes = Array(key.utf8)
        #expect(PhoneContext.hint(forKey: bytes.span) == expected)
    }

    @Test func anAmbiguousRunIsAPhoneOnlyWhereTheFieldNameSaysSo() throws {
        var stage = try P.stage()
        let line = P.track(#""properties":{"mobile":"612345678","value":"612345678","order_id":"4155550123","#
            + #""list":{"phones":["1234-5678"],"codes":["1234-5678"]}}"#)
        #expect(P.apply(line, &stage) == P.track(#""properties":{"mobile":"[phone]","value":"612345678","order_id":"4155550123","#
            + #""list":{"phones":["[phone]"],"codes":["1234-5678"]}}"#))
    }

    /// A name written with escapes is read as it decodes: `"ph\u006fne"` is `"phone"`.
    @Test func aFieldNameWrittenWithEscapesSaysPhoneAsItDecodes() throws {
        var stage = try P.stage()
        let line = P.track(#""properties":{"ph\u006fne":"4155550123","m\u006fbile":4155550123,"\u006frder_id":"4155550123"}"#)
        #expect(P.apply(line, &stage) == P.track(#""properties":{"ph\u006fne":"[phone]","m\u006fbile":"[phone]","\u006frder_id":"4155550123"}"#))
    }

    @Test func aNumberIsAPhoneInAFieldNamedForOneOrWhenValidForTheEventsCountry() throws {
        var stage = try P.stage()
        // Ten digits of no plan: a phone only by the field's name; valid for the event's country (written with its
        // calling code too): a phone unless the name says otherwise; another country's number written without `+`: none.
        let line = P.track(#""context":{"locale":"en-US"},"properties":{"phone":1234567890,"counter":4155550123,"x":1234567890,"#
            + #""n":14155550123,"total":14155550123,"m":4915123456789,"ms":1795161600040}"#)
        #expect(P.apply(line, &stage) == P.track(#""context":{"locale":"en-US"},"properties":{"phone":"[phone]","counter":4155550123,"#
            + #""x":1234567890,"n":"[phone]","total":14155550123,"m":4915123456789,"ms":1795161600040}"#))
    }

    @Test(arguments: [("card_number", true), ("cardId", true), ("cc", true), ("cc_code", true), ("Kreditkarte", true),
                      ("tarjeta", true), ("creditCard", true),
                      ("request_count", false), ("order_id", false), ("ccount", false), ("discard_count", false),
                      ("cardinality", false), ("", false)])
    func aFieldsNameSaysCard(key: String, expected: Bool) {
        #expect(Array(key.utf8).withUnsafeBufferPointer { PhoneContext.namesCard($0.span) } == expected)
    }

    @Test func aVersionInAFieldNamedForOneIsNotAnAddress() throws {
        var stage = try P.stage()
        let line = P.track(#""properties":{"build":"16.4.27.43","firmware_version":"10.0.0.1","peer":"10.0.0.1"}"#)
        #expect(P.apply(line, &stage) == P.track(#""properties":{"build":"16.4.27.43","firmware_version":"10.0.0.1","peer":"[ip]"}"#))
    }
}
