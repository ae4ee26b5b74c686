import SluiceJSON

/// The `privacy` stage's rules, applied to rejected lines and their details.
///
/// A line rejected before the stage never reached it (not JSON, refused by a stage
/// before it, an input-level reject), so without this its personal data
/// would be written to the rejects as it came:
/// - a line that is a JSON object gets rules 2 to 6, the stage's own code
///   with its settings (drop, allow, IP truncation, pseudonymization,
///   detection where `redact.paths` and `exempt` say), as if it were an event;
/// - any other line (not JSON, duplicate keys, not UTF-8, the first 1 KiB of
///   a line too long) is one text to the detectors and patterns: each match
///   becomes its token. Of a line too long, the value the cut went through is
///   left out first: a detector cannot know half an address for one;
/// - the reject's detail (which may quote a name or a value) is text too.
/// Consent is not applied: a reject is kept, whoever sent it. A line rejected
/// after the stage (a later stage's, a destination's refusal) was scrubbed
/// there: the reject writer does not hand it here again (a pseudonym of a
/// pseudonym would join nothing).
final class PrivacyRejectScrubber: RejectScrubber {
    private let settings: PrivacySettings
    /// The stage's rules with consent off, counting on their own; made at the first reject that is a JSON object.
    @exclusivity(unchecked) private var rules: PrivacyProtection?
    @exclusivity(unchecked) private var text: TextRedaction?
    private let detectorNames: [String]
    /// Reject records changed.
    @exclusivity(unchecked) private(set) var scrubbed = 0
    /// Detector and pattern hits in text that is not a JSON object, and in details, by detector index.
    @exclusivity(unchecked) private var textHits: [Int]
    @exclusivity(unchecked) private var out: [UInt8] = []

    init(settings: PrivacySettings) {
        var rulesSettings = settings
        rulesSettings.consent = nil
        self.settings = rulesSettings
        text = TextRedaction(privacy: settings)
        detectorNames = PIIDetector.allCases.map(\.name) + settings.patterns.map(\.name)
        textHits = Array(repeating: 0, count: detectorNames.count)
    }

    func scrub(line: inout [UInt8], detail: inout String, truncated: Bool) -> Bool {
        var changed = false
        if !truncated, Self.mayBeObject(line), var document = try? JSONDocument.parse(line), document.kind(0) == .object {
            if rules == nil { rules = PrivacyProtection(settings: settings) }
            if rules!.applyFieldRules(to: &document) != .none {
                line = document.bytes
                changed = true
            }
        } else {
            if truncated { changed = Self.leaveOutCutValue(&line) }
            changed = redact(&line, escaped: true) || changed
        }
        var detailBytes = Array(detail.utf8)
        if redact(&detailBytes, escaped: false) {
            detail = String(decoding: detailBytes, as: UTF8.self)
            changed = true
        }
        if changed { scrubbed += 1 }
        return changed
    }

    /// `rejects_scrubbed`, for the stage's counters.
    var counters: [(name: String, value: Int)] { [("rejects_scrubbed", scrubbed)] }

    /// `rejects_hits_by_rule`: what each rule changed in rejects (fields for
    /// drop, allow, IP truncation and pseudonymization; matches for each detector and pattern).
    var group: CounterGroup {
        let stats = rules?.stats
        var counters: [(name: String, value: Int)] = [("drop", stats?.fieldsDropped ?? 0), ("allow", stats?.fieldsNotAllowed ?? 0),
                                                      ("truncate_ip", stats?.ipTruncated ?? 0), ("pseudonymize", stats?.pseudonymized ?? 0)]
        for (index, name) in detectorNames.enumerated() { counters.append((name, (stats?.redacted[index] ?? 0) + textHits[index])) }
        return CounterGroup(name: "rejects_hits_by_rule", counters: counters)
    }

    private func redact(_ bytes: inout [UInt8], escaped: Bool) -> Bool {
        guard text != nil else { return false }
        let found = text!.redact(bytes.span, escaped: escaped, into: &out) { textHits[$0] += 1 }
        if found { swap(&bytes, &out) }
        return found
    }

    /// Whether the first byte that is not white space is `{` (else parsing is not worth trying).
    private static func mayBeObject(_ line: [UInt8]) -> Bool {
        line.first { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D } == UInt8(ascii: "{")
    }

    /// The start of a line cut short, without the value the cut went through:
    /// from the opening quote of the string it is in (quotes counted from the
    /// start, escapes skipped), or else the letters, digits and signs it ends
    /// in (a number or a word). Whether anything was left out.
    static func leaveOutCutValue(_ line: inout [UInt8]) -> Bool {
        var openQuote: Int?
        var index = 0
        while index < line.count {
            let byte = line[index]
            if openQuote != nil && byte == UInt8(ascii: "\\") {
                index += 2
                continue
            }
            if byte == UInt8(ascii: "\"") { openQuote = openQuote == nil ? index : nil }
            index += 1
        }
        if let openQuote {
            line.removeSubrange(openQuote...)
            return true
        }
        var end = line.count
        while end > 0 && !Self.separators.contains(line[end - 1]) { end -= 1 }
        guard end < line.count else { return false }
        line.removeSubrange(end...)
        return true
    }

    private static let separators = Array("\",:[]{} \t\r".utf8)
}

extension PrivacyProtection: PersonalDataStage {
    public mutating func makeRejectScrubber() -> any RejectScrubber {
        let scrubber = PrivacyRejectScrubber(settings: settings)
        rejectScrubber = scrubber
        return scrubber
    }
}
