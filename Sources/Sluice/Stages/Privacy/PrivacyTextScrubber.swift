/// The stage's detectors and patterns for text that is reported (an event
/// name in the stats): each match becomes its token, as plain text.
struct PrivacyTextScrubber: TextScrubber {
    private var text: TextRedaction
    private var out: [UInt8] = []

    /// Nil when redaction is off, or has neither a detector nor a pattern.
    init?(settings: PrivacySettings) {
        guard let text = TextRedaction(privacy: settings) else { return nil }
        self.text = text
    }

    mutating func scrub(_ bytes: inout [UInt8]) -> Bool {
        let found = text.redact(bytes.span, escaped: false, into: &out) { _ in }
        if found { swap(&bytes, &out) }
        return found
    }
}

extension PrivacyProtection {
    public var reportedTextScrubber: (any TextScrubber)? { PrivacyTextScrubber(settings: settings) }
}
