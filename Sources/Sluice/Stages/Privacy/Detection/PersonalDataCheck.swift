/// Whether a text holds personal data, by the `privacy` stage's detectors
/// (email, phone, IP, card, IBAN), for code outside the stage that must keep
/// such text out of what it writes (`sluice plan infer`'s enums).
public struct PersonalDataCheck {
    private var scanner = PIIScanner(enabled: Set(PIIDetector.allCases), patterns: [])
    private var matches: [PIIMatch] = []

    public init() {}

    public mutating func holdsPersonalData(_ text: String) -> Bool {
        matches.removeAll(keepingCapacity: true)
        let bytes = Array(text.utf8)
        scanner.scan(bytes.span, into: &matches)
        return !matches.isEmpty
    }
}
