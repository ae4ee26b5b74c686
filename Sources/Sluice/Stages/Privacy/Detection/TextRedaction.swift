import SluiceJSON

/// The `privacy` stage's detectors and custom patterns with their tokens: what
/// rule 6 finds in one string and writes in its place.
///
/// `RedactionWalk` uses it on each string of an event; the stage also runs it
/// over text that need not be JSON and never went through the stage: a
/// rejected line that is not a JSON object, a reject's detail, an event name
/// counted in the stats (`PrivacyRejectScrubber`, `PrivacyTextScrubber`).
struct TextRedaction {
    private var scanner: PIIScanner
    /// The tokens by detector index (built-ins, then patterns), as written
    /// inside a JSON string (escaped), and as plain text.
    let escapedTokens: [[UInt8]]
    let plainTokens: [[UInt8]]
    private var matches: [PIIMatch] = []

    init(settings: PrivacySettings.Redaction, patterns: [PrivacySettings.Pattern]) {
        scanner = PIIScanner(enabled: settings.detectors, patterns: patterns.map(\.program))
        plainTokens = (PIIDetector.allCases.map { settings.token($0) } + patterns.map(\.token)).map { Array($0.utf8) }
        escapedTokens = plainTokens.map { token in
            var quoted: [UInt8] = []
            JSONString.appendQuoted(token, to: &quoted)
            return Array(quoted[1..<(quoted.count - 1)])
        }
    }

    /// The stage's detectors and patterns, or nil when it has none on (`redact: false`).
    init?(privacy settings: PrivacySettings) {
        guard let redact = settings.redact else { return nil }
        self.init(settings: redact, patterns: settings.patterns)
        if isEmpty { return nil }
    }

    /// Whether no detector and no pattern is on.
    var isEmpty: Bool { scanner.isEmpty }

    /// The event national phone numbers are read for (`PIIScanner.phoneEvent`).
    var phoneEvent: JSONDocument? {
        get { scanner.phoneEvent }
        set { scanner.phoneEvent = newValue }
    }

    /// Whether a scan since it was last cleared read the event's region (`PIIScanner.regionRead`).
    var regionRead: Bool {
        get { scanner.regionRead }
        set { scanner.regionRead = newValue }
    }

    /// The region of `phoneEvent` (`PIIScanner.eventRegion`).
    mutating func eventRegion() -> Int { scanner.eventRegion() }

    /// Appends the matches in `text` to `matches` (`PIIScanner.scan`).
    mutating func scan(_ text: Span<UInt8>, fieldName: Span<UInt8> = Span<UInt8>(),
                       into matches: inout [PIIMatch]) {
        scanner.scan(text, fieldName: fieldName, into: &matches)
    }

    /// Appends `text` to `out` with each of `matches` (in text order, none
    /// overlapping) replaced by its token; `escaped`: the token as written inside a JSON string.
    func append(_ text: Span<UInt8>, replacing matches: [PIIMatch], escaped: Bool, to out: inout [UInt8]) {
        TextRedaction.append(text, replacing: matches, tokens: escaped ? escapedTokens : plainTokens, to: &out)
    }

    /// `append(_:replacing:escaped:to:)` with the tokens given: what a caller
    /// holding the redaction in a closure calls, so that it is not copied.
    static func append(_ text: Span<UInt8>, replacing matches: [PIIMatch], tokens: [[UInt8]], to out: inout [UInt8]) {
        var copied = 0
        for match in matches {
            out.append(span: text.extracting(copied..<match.start))
            out.append(contentsOf: tokens[match.detector])
            copied = match.end
        }
        out.append(span: text.extracting(copied...))
    }

    /// Scans the whole of `text` as one string, whatever it holds (JSON or
    /// not): when something is found, `out` becomes the text with each match
    /// replaced by its token, `hit` is told each match's detector index, and
    /// the result is true; otherwise `out` is left as it was.
    mutating func redact(_ text: Span<UInt8>, escaped: Bool, into out: inout [UInt8],
                         hit: (Int) -> Void) -> Bool {
        if !matches.isEmpty { matches.removeAll(keepingCapacity: true) }
        scanner.scan(text, into: &matches)
        guard !matches.isEmpty else { return false }
        out.removeAll(keepingCapacity: true)
        append(text, replacing: matches, escaped: escaped, to: &out)
        for match in matches { hit(match.detector) }
        return true
    }
}
