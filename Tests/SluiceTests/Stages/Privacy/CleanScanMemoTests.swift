@testable import Sluice
import Testing

/// The walk's memory of strings scanned clean: it answers only for the same
/// string, field name, mode and (when the scan read one) event country.
struct CleanScanMemoTests {
    private typealias P = PrivacyCase

    private static func lookUp(_ memo: CleanScanMemo, mode: UInt8 = 0, field: String, text: String, region: Int = -1) -> Bool {
        var memo = memo
        let field = Array(field.utf8), text = Array(text.utf8)
        guard let clean = memo.cleanRegion(CleanScanMemo.probe(mode: mode, field: field.span, text: text.span), mode: mode,
                                           field: field.span, text: text.span) else { return false }
        return clean == CleanScanMemo.anyRegion || Int(clean) == region
    }

    private static func remember(_ memo: inout CleanScanMemo, mode: UInt8 = 0, field: String, text: String,
                                 region: Int32 = CleanScanMemo.anyRegion) {
        let field = Array(field.utf8), text = Array(text.utf8)
        memo.remember(CleanScanMemo.probe(mode: mode, field: field.span, text: text.span), mode: mode, field: field.span, text: text.span, region: region)
    }

    @Test func aRememberedStringIsCleanInTheSameFieldAndModeOnly() {
        var memo = CleanScanMemo()
        #expect(!Self.lookUp(memo, field: "model", text: "Pixel 8"))
        Self.remember(&memo, field: "model", text: "Pixel 8")
        #expect(Self.lookUp(memo, field: "model", text: "Pixel 8"))
        #expect(!Self.lookUp(memo, field: "phone", text: "Pixel 8"))
        #expect(!Self.lookUp(memo, field: "model", text: "Pixel 9"))
        #expect(!Self.lookUp(memo, field: "model", text: "Pixel 8 "))
        #expect(!Self.lookUp(memo, mode: 2, field: "model", text: "Pixel 8"))
        // The name and the text are kept apart: "ab" + "c" is not "a" + "bc".
        Self.remember(&memo, field: "ab", text: "c1")
        #expect(!Self.lookUp(memo, field: "a", text: "bc1"))
    }

    @Test func anEntryWhoseScanReadTheCountryAnswersForThatCountryOnly() {
        var memo = CleanScanMemo()
        Self.remember(&memo, field: "note", text: "601 461 055", region: 7)
        #expect(Self.lookUp(memo, field: "note", text: "601 461 055", region: 7))
        #expect(!Self.lookUp(memo, field: "note", text: "601 461 055", region: 8))
        #expect(!Self.lookUp(memo, field: "note", text: "601 461 055", region: -1))
    }

    @Test func aStringTooLongForASlotIsNotRemembered() {
        var memo = CleanScanMemo()
        let long = String(repeating: "7", count: CleanScanMemo.slotBytes)
        Self.remember(&memo, field: "id", text: long)
        #expect(!Self.lookUp(memo, field: "id", text: long))
        let fitting = String(repeating: "7", count: CleanScanMemo.slotBytes - 3 - 2)
        Self.remember(&memo, field: "id", text: fitting)
        #expect(Self.lookUp(memo, field: "id", text: fitting))
    }

    @Test func aNewEntryReplacesTheOneInItsSlotAndTheTableStaysItsSize() {
        var memo = CleanScanMemo()
        // Far more strings than slots: every lookup is still exact.
        for index in 0..<(3 * CleanScanMemo.slotCount) { Self.remember(&memo, field: "k", text: "v\(index)") }
        var remembered = 0
        for index in 0..<(3 * CleanScanMemo.slotCount) where Self.lookUp(memo, field: "k", text: "v\(index)") { remembered += 1 }
        #expect(remembered > 0 && remembered <= CleanScanMemo.slotCount)
        #expect(!Self.lookUp(memo, field: "k", text: "v\(3 * CleanScanMemo.slotCount)"))
    }

    /// `601 461 055` is a Spanish mobile number written in groups: a phone in
    /// an event from Spain, a number elsewhere. The same string in the same
    /// field, event after event, is read in each event's own country.
    @Test func aRememberedCleanStringIsReadAgainInAnotherCountry() throws {
        var stage = try P.stage()
        let line = { (locale: String) in P.track(#""context":{"locale":"\#(locale)"},"properties":{"note":"601 461 055"}"#) }
        var readings: [String?] = []
        for locale in ["en_US", "es_ES", "en_US", "es_ES", "es_ES", "en_US"] {
            let written = try #require(P.apply(line(locale), &stage))
            readings.append((P.object(written)["properties"] as? [String: Any])?["note"] as? String)
        }
        #expect(readings == ["601 461 055", "[phone]", "601 461 055", "[phone]", "[phone]", "601 461 055"])
    }

    @Test func aStringCleanInOneFieldIsStillFoundInAFieldNamedForPhones() throws {
        var stage = try P.stage()
        let first = try #require(P.apply(P.track(#""properties":{"ref":"4155550123"}"#), &stage))
        let second = try #require(P.apply(P.track(#""properties":{"phone":"4155550123"}"#), &stage))
        let again = try #require(P.apply(P.track(#""properties":{"ref":"4155550123"}"#), &stage))
        #expect((P.object(first)["properties"] as? [String: Any])?["ref"] as? String == "4155550123")
        #expect((P.object(second)["properties"] as? [String: Any])?["phone"] as? String == "[phone]")
        #expect((P.object(again)["properties"] as? [String: Any])?["ref"] as? String == "4155550123")
    }

    /// `8222125341` is a Korean number with its calling code: a phone in an
    /// event from Korea, a number elsewhere. A number remembered clean in one
    /// country is read again in another.
    @Test func aRememberedCleanNumberIsReadAgainInAnotherCountry() throws {
        var stage = try P.stage()
        var readings: [String] = []
        for locale in ["en_US", "ko_KR", "en_US", "ko_KR"] {
            let written = try #require(P.apply(P.track(#""context":{"locale":"\#(locale)"},"properties":{"n":8222125341}"#), &stage))
            readings.append("\((P.object(written)["properties"] as? [String: Any])?["n"] ?? "none")")
        }
        #expect(readings == ["8222125341", "[phone]", "8222125341", "[phone]"])
    }
}
