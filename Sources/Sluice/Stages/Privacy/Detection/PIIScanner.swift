import SluiceJSON

/// The built-in detectors of the `privacy` stage, in the order they claim text:
/// an email is claimed before the digits in it can look like a phone, an IP
/// before its octets can look like a phone.
public enum PIIDetector: Int, CaseIterable, Sendable {
    case email, urlEmail, ip, iban, card, phone

    /// The name in `redact:`, in the counters and in the audit.
    public var name: String {
        switch self {
        case .email: return "email"
        case .urlEmail: return "url_email"
        case .ip: return "ip"
        case .iban: return "iban"
        case .card: return "card"
        case .phone: return "phone"
        }
    }

    /// What a match becomes unless `redact.tokens` says otherwise.
    public var defaultToken: String {
        switch self {
        case .email, .urlEmail: return "[email]"
        case .ip: return "[ip]"
        case .iban: return "[iban]"
        case .card: return "[card]"
        case .phone: return "[phone]"
        }
    }
}

/// One match: a byte range of the scanned text and who found it (a
/// `PIIDetector` raw value, or `PIIDetector.allCases.count + n` for custom pattern n).
struct PIIMatch: Equatable {
    var start: Int
    var end: Int
    var detector: Int
}

/// Runs the enabled detectors over one string's bytes.
///
/// The fast reject: one pass over the bytes ORs their classes together and
/// counts digits; a string with no `@`, no `%`, fewer than two `:` and fewer
/// than two digits (most strings: names, words, enum values) is done after
/// that pass. Each detector runs only on the strings its own pre-condition
/// lets through (an `@` for emails, two digits and 15 bytes for IBANs, 12
/// digits for cards, ...); a `%` or `+` next to a digit in a query or form
/// value has the number detectors read it decoded too (`FormDecoding`).
struct PIIScanner {
    let enabled: Set<PIIDetector>
    let patterns: [PatternProgram]
    private let email, urlEmail, ip, iban, card, phone: Bool
    private var groups: [NumberDetection.Group] = []
    private var phoneScratch = PhoneDetection.Scratch()
    private var patternScratch = PatternProgram.Scratch()
    private var claims = MatchClaims()
    private var form = FormDecoding()
    /// Matches read while settling detectors' claims (`MatchClaims.steps`).
    var claimSteps: Int { claims.steps }
    /// The event whose `context.locale` national phone numbers are read in
    /// (`PhoneRegion`), read the first time a run needs it; nil: none. Set it
    /// back to nil once the event is scanned, so the scanner holds no reference
    /// to a document about to change.
    var phoneEvent: JSONDocument? {
        get { phoneScratch.event }
        set {
            phoneScratch.event = newValue
            phoneScratch.region = newValue == nil ? -1 : -2
        }
    }

    /// Whether a scan since it was last cleared read the event's region (a national phone number's reading).
    var regionRead: Bool {
        get { phoneScratch.regionRead }
        set { phoneScratch.regionRead = newValue }
    }

    /// The regions of `phoneEvent` (a pair, `PhoneRegion.regions(ofPair:)`; -1 for none), read now if no scan has yet.
    mutating func eventRegion() -> Int {
        if phoneScratch.region == -2 { phoneScratch.region = phoneScratch.event.flatMap(PhoneRegion.ofEvent) ?? -1 }
        return phoneScratch.region
    }

    /// Reads national phone numbers in the regions `pair` (`PhoneRegion.regions(ofPair:)`) instead of an event's, for the tests.
    mutating func setPhoneRegionsForTesting(_ pair: Int) {
        phoneScratch.event = nil
        phoneScratch.region = pair
    }

    init(enabled: Set<PIIDetector>, patterns: [PatternProgram]) {
        self.enabled = enabled
        self.patterns = patterns
        email = enabled.contains(.email)
        urlEmail = enabled.contains(.urlEmail)
        ip = enabled.contains(.ip)
        iban = enabled.contains(.iban)
        card = enabled.contains(.card)
        phone = enabled.contains(.phone)
        groups.reserveCapacity(24)
    }

    var isEmpty: Bool { enabled.isEmpty && patterns.isEmpty }

    private static let classes: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 256)
        for byte in UInt8(ascii: "0")...UInt8(ascii: "9") { table[Int(byte)] = 1 }
        table[Int(UInt8(ascii: "@"))] = 2
        table[Int(UInt8(ascii: "%"))] = 4
        table[Int(UInt8(ascii: ":"))] = 8
        table[Int(UInt8(ascii: "+"))] = 16
        return table
    }()

    /// Appends the matches in `text` to `matches`, in text order, none overlapping.
    /// `fieldName`: the raw bytes of the key whose value `text` is (or of the
    /// array holding it), read only when a number's reading depends on it.
    mutating func scan(_ text: Span<UInt8>, fieldName: Span<UInt8> = Span<UInt8>(),
                       into matches: inout [PIIMatch]) {
        if patterns.isEmpty && !PIIScanner.mayHoldPII(text) { return }
        let first = matches.count
        var seen: UInt8 = 0
        var digits = 0
        var colons = 0
        Self.classes.withSpan { table in
            for index in text.indices {
                let kind = table[Int(text[index])]
                seen |= kind
                digits &+= Int(kind & 1)
                colons &+= Int(kind >> 3 & 1)
            }
        }
        if seen & 15 == 0 && patterns.isEmpty { return }
        // Each detector offers its matches in text order; they are settled before the next detector runs.
        // (Held in a local while the detectors run, so their closures do not overlap with `groups`.)
        var claims = MatchClaims()
        swap(&claims, &self.claims)
        defer { swap(&claims, &self.claims) }
        // The detectors' closures offer to `claims` directly: a nested function doing it would box
        // `claims`, and every offer would pay a run-time exclusivity check.
        if email && seen & 2 != 0 { EmailDetection.scanPlain(text) { claims.offer(PIIMatch(start: $0, end: $1, detector: PIIDetector.email.rawValue)) } }
        claims.settle(into: &matches, from: first)
        if urlEmail && seen & 4 != 0 { EmailDetection.scanEncoded(text) { claims.offer(PIIMatch(start: $0, end: $1, detector: PIIDetector.urlEmail.rawValue)) } }
        claims.settle(into: &matches, from: first)
        if ip && colons >= 2 { IPDetection.scanIPv6(text) { claims.offer(PIIMatch(start: $0, end: $1, detector: PIIDetector.ip.rawValue)) } }
        claims.settle(into: &matches, from: first)
        if digits >= 4 {
            if ip { IPDetection.scanIPv4(text, fieldName: fieldName) { claims.offer(PIIMatch(start: $0, end: $1, detector: PIIDetector.ip.rawValue)) } }
            claims.settle(into: &matches, from: first)
        }
        scanNumbers(text, digits: digits, fieldName: fieldName, claims: &claims, matches: &matches, first: first)
        // A query or form value (`phone=%2B44+20+7946+0958`) is read decoded too (`FormDecoding`): what that
        // finds, mapped back to the encoded bytes, is taken where nothing was found in the encoded text.
        if seen & 20 != 0 && digits >= 2 && (iban || card || phone) {
            var form = FormDecoding()
            swap(&form, &self.form)
            defer { swap(&form, &self.form) }
            if form.decode(text) {
                var decodedMatches: [PIIMatch] = []
                var decodedClaims = MatchClaims()
                scanNumbers(form.decoded.span, digits: digits, fieldName: fieldName, claims: &decodedClaims, matches: &decodedMatches, first: 0)
                for match in decodedMatches {
                    let start = form.offsets[match.start], end = form.offsets[match.end]
                    // Taken where nothing was found, or over a shorter match of the same detector that it covers
                    // (`090-1773-0889+ext.+971`: the number with its extension).
                    let overlapping = matches[first...].indices.filter { matches[$0].start < end && start < matches[$0].end }
                    if overlapping.allSatisfy({ matches[$0].detector == match.detector && matches[$0].start >= start
                                                && matches[$0].end <= end && matches[$0].end - matches[$0].start < end - start }) {
                        for index in overlapping.reversed() { matches.remove(at: index) }
                        claims.offer(PIIMatch(start: start, end: end, detector: match.detector))
                    }
                }
                claims.settle(into: &matches, from: first)
            }
        }
        // Iterating the patterns retains the array, even an empty one: asked first.
        guard !patterns.isEmpty else { return }
        for (index, pattern) in patterns.enumerated() {
            pattern.forEachMatch(text, scratch: &patternScratch) { start, end in
                claims.offer(PIIMatch(start: start, end: end, detector: PIIDetector.allCases.count + index))
            }
            claims.settle(into: &matches, from: first)
        }
    }

    /// The IBAN, card and phone detectors over `text` (`digits` of its bytes are
    /// digits), each one's matches settled into `matches` before the next runs.
    /// An IBAN may hold two digits only (`LV27IRRDCNIDRAJFHQVJF`); cards and
    /// phones need more.
    @inline(__always)
    private mutating func scanNumbers(_ text: Span<UInt8>, digits: Int, fieldName: Span<UInt8>, claims: inout MatchClaims,
                                      matches: inout [PIIMatch], first: Int) {
        if iban && digits >= 2 && text.count >= 15 {
            IBANDetection.scan(text) { claims.offer(PIIMatch(start: $0, end: $1, detector: PIIDetector.iban.rawValue)) }
            claims.settle(into: &matches, from: first)
        }
        guard digits >= 4 else { return }
        if card && digits >= 12 {
            NumberDetection.scanCards(text, groups: &groups) { start, end in
                // An order's, a shipment's or a customer's id that passes Luhn stays an id, unless a card word says card.
                if PhoneContext.saysIdNotCard(text, start) || PhoneContext.namesIdNotCard(fieldName) { return }
                claims.offer(PIIMatch(start: start, end: end, detector: PIIDetector.card.rawValue))
            }
            claims.settle(into: &matches, from: first)
        }
        if phone && digits >= 7 {
            // The field's name is read once per string, when a run first needs it.
            var hint: PhoneContext.Hint?
            PhoneDetection.scan(text, fieldHint: {
                if let hint { return hint }
                let read = PhoneContext.hint(forKey: fieldName)
                hint = read
                return read
            }, scratch: &phoneScratch) {
                claims.offer(PIIMatch(start: $0, end: $1, detector: PIIDetector.phone.rawValue))
            }
            claims.settle(into: &matches, from: first)
        }
    }

    /// Whether `text` holds a digit, `:`, `@` or `%` at all: eight bytes at a
    /// time (SWAR bit tricks, `SpanWords.any`), so the usual word or name is rejected in a few steps.
    @inline(__always)
    static func mayHoldPII(_ text: Span<UInt8>) -> Bool {
        SpanWords.any(text, from: 0, to: text.count, hit)
    }

    /// The same for the bytes `start..<end` of `line` (read as one word, masked
    /// to its length, when the range is shorter than eight bytes and `line` has eight from its start).
    @inline(__always)
    static func mayHoldPII(_ line: Span<UInt8>, from start: Int, to end: Int) -> Bool {
        SpanWords.any(line, from: start, to: end, hit)
    }

    /// Whether the bytes `start..<end` of `line` hold an `@` or a `%` (as `mayHoldPII`).
    @inline(__always)
    static func mayHoldEmail(_ line: Span<UInt8>, from start: Int, to end: Int) -> Bool {
        SpanWords.any(line, from: start, to: end, emailHit)
    }

    /// Whether a word holds a byte in 0x30...0x3A (digits and `:`), `@` or `%`
    /// (Warren, "Hacker's Delight": hasbetween, haszero; exact as booleans).
    @inline(__always)
    private static func hit(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let low = word & 0x7F7F_7F7F_7F7F_7F7F
        let between = (ones &* (127 + 0x3B) &- low) & ~word & (low &+ ones &* (127 - 0x2F)) & high
        return between | emailBits(word) != 0
    }

    /// Whether a word holds an `@` or a `%`.
    @inline(__always)
    private static func emailHit(_ word: UInt64) -> Bool { emailBits(word) != 0 }

    /// Not 0 exactly when a word holds an `@` or a `%` (haszero of the word xor each).
    @inline(__always)
    private static func emailBits(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let at = word ^ (ones &* 0x40)
        let percent = word ^ (ones &* 0x25)
        return ((at &- ones) & ~at & high) | ((percent &- ones) & ~percent & high)
    }

    /// Settles one match against `matches` (sorted, none overlapping), for the tests.
    static func addForTesting(_ match: PIIMatch, to matches: inout [PIIMatch]) {
        var claims = MatchClaims()
        claims.offer(match)
        claims.settle(into: &matches, from: 0)
    }
}
