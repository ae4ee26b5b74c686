@testable import Sluice
import Testing

@Suite struct ReportedTextTests {
    @Test func textWithinTheCapIsReportedAsItCame() {
        var text = ReportedText()
        let name = Array(String(repeating: "a", count: ReportedText.maxBytes).utf8)
        #expect(text.fit(name) == name)
    }

    @Test func longerTextIsCutAtACharacterBoundaryAndEndsInAnEllipsis() {
        var text = ReportedText()
        // 3-byte characters: the cut at 61 bytes falls inside the 21st, which goes whole.
        let reported = text.fit(Array(String(repeating: "€", count: 30).utf8))
        #expect(String(decoding: reported, as: UTF8.self) == String(repeating: "€", count: 20) + "…")
        #expect(reported.count <= ReportedText.maxBytes)
    }

    @Test func theScrubbersRunBeforeTheCutSoAnAddressAcrossItIsScrubbedWhole() throws {
        var text = ReportedText(scrubbers: [try #require(PrivacyTextScrubber(settings: PrivacySettings()))])
        let reported = String(decoding: text.fit(Array((String(repeating: "x", count: 55) + " jane.doe@example.com").utf8)), as: UTF8.self)
        #expect(reported == String(repeating: "x", count: 55) + " [email]")
        // Cut first, the address would have been left as `jane.d…`, which no detector knows.
        let long = String(decoding: text.fit(Array((String(repeating: "x", count: 50) + " +1 (415) 555-0100 and more").utf8)), as: UTF8.self)
        #expect(!long.contains("415") && long.hasPrefix(String(repeating: "x", count: 50) + " [phone]"))
    }
}
