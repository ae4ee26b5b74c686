@testable import Sluice
import Testing

/// `LastTruncation` remembers the last address and its truncation: whatever
/// the order, it must give what `IPTruncation` gives, including "not an address".
@Suite struct LastTruncationTests {
    private func truncate(_ text: String, _ truncation: IPTruncation, _ last: LastTruncation?) -> String? {
        let bytes = Array(text.utf8)
        let text = last.map { $0.truncated(bytes.span, by: truncation) } ?? truncation.truncated(bytes.span)
        guard let text else { return nil }
        var out: [UInt8] = []
        text.append(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    @Test func runsOfAddressesGetWhatTruncatingEachOneGives() {
        var settings = PrivacySettings.IPTruncation()
        settings.v4KeepBits = 24
        settings.v6KeepBits = 48
        let truncation = IPTruncation(settings: settings)
        let last = LastTruncation()
        let inputs = ["203.0.113.45", "203.0.113.45", "203.0.113.46", "2001:db8:cf46:2791::9e82", "2001:db8:cf46:2791::9e82",
                      "not an ip", "not an ip", "", "", "203.0.113.45", " 10.1.2.3 ", String(repeating: "1", count: 80),
                      String(repeating: "1", count: 80), "10.1.2.3"]
        for input in inputs {
            #expect(truncate(input, truncation, last) == truncate(input, truncation, nil), "\(input)")
        }
        #expect(truncate("203.0.113.45", truncation, last) == "203.0.113.0")
        #expect(truncate("not an ip", truncation, last) == nil)
    }
}
