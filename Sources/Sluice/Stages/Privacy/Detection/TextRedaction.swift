import SluiceJSON

/// The `privacy` stage's detectors and custom patterns with their tokens: what
/// rule 6 finds in one string and writes in its place.
///
/// `RedactionWalk` uses it on each string of an event.
struct TextRedaction {
    private var scanner: PIIScanner
    /// The tokens by detector index (built-ins, then patterns), as written
    /// inside a JSON string (escaped), and as plain text.
    let escapedTokens: [[UInt8]]
    let plainTokens: [[UInt8]]

    init(settings: PrivacySettings.Redaction, patterns: [PrivacySettings.Pattern]) {
        scanner = PIIScanner(enabled: settings.detectors, patterns: patterns.map(\.program))
        plainTokens = (PIIDetector.allCases.map { settings.token($0) } + patterns.map(\.token)).map { Array($0.utf8) }
        escapedTokens = plainTokens.map { token in
            var quoted: [UInt8] = []
            JSONString.appendQuoted(token, to: &quoted)
            return Array(quoted[1..<(quoted.count - 1)])
        }
    }

    /// Whether no detector and no pattern is on.
    var isEmpty: Bool { scanner.isEmpty }

    /// Appends the matches in `text` to `matches` (`PIIScanner.scan`).
    mutating func scan(_ text: UnsafeBufferPointer<UInt8>, into matches: inout [PIIMatch]) {
        scanner.scan(text, into: &matches)
    }

    /// Appends `text` to `out` with each of `matches` (in text order, none
    /// overlapping) replaced by its token; `escaped`: the token as written inside a JSON string.
    func append(_ text: UnsafeBufferPointer<UInt8>, replacing matches: [PIIMatch], escaped: Bool, to out: inout [UInt8]) {
        let tokens = escaped ? escapedTokens : plainTokens
        var copied = 0
        for match in matches {
            out.append(contentsOf: UnsafeBufferPointer(rebasing: text[copied..<match.start]))
            out.append(contentsOf: tokens[match.detector])
            copied = match.end
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: text[copied...]))
    }
}
