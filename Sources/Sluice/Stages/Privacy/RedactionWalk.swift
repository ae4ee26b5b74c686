// Unsafe code: the walk visits every value of every event, so it reads the
// document's index and bytes through `UnsafeJSONView` (pointers valid inside
// `withUnsafeView`, which keeps the document alive; the view is never stored)
// and the handled nodes through a buffer pointer lent for the same call, and
// hands each key to `ExemptKeys` in place. The walk and that look-up on the
// bounds-checked `JSONView` and spans cost the privacy stage's benchmark 3%
// more instructions (docs/architecture.md). The strings found are handed on
// as spans: the detectors, the memo and the rewriting are safe code.

import SluiceJSON

/// Rule 6 of the `privacy` stage: walks an event's values and replaces what the
/// detectors find in string values (and keys) by tokens, as splice changes.
///
/// The walk reads the document's bytes in place. Exempt fields given as plain
/// paths (`messageId`, `context.app.version`) are known as the walk reaches
/// them (`ExemptKeys`) and searched by the email detectors only; a string is only scanned
/// (`PIIScanner`, with its fast reject) and never copied unless something is
/// found; a field's path is only built for the audit, and wildcard exemptions
/// only consulted, when it had a hit. A string with JSON escapes is decoded
/// before scanning, so `\u0040` hides nothing. A string scanned clean is
/// remembered with its field's name (`CleanScanMemo`) and not scanned again.
struct RedactionWalk {
    struct Hit {
        var detector: Int
        /// The node indexes of the keys down to the field (a key hit: down to that key).
        var keys: ArraySlice<Int>
        var isKey: Bool
    }

    /// The detectors and patterns, with their tokens.
    private var text: TextRedaction
    /// The email detectors alone, for exempt fields: an id or a version may look
    /// like a number or an address, but an email there is still personal data.
    private var emailScanner: PIIScanner?
    let settings: PrivacySettings.Redaction
    /// `paths`, when every one is literal (the outermost ones): walk only below
    /// them; nil: walk everything.
    private let scopeKeys: ScopeKeys?
    private let everywhere: Bool
    private let scansKeys: Bool
    private let hasPatterns: Bool
    /// Numbers are searched for cards and phones (a card typed as a JSON number is still a card).
    private let cardsInNumbers: Bool
    private let phonesInNumbers: Bool
    private var numberDigits: [UInt8] = []
    private var numberFieldHints = PhoneHintCache()
    private var regions = PhoneRegion.Cache()
    private var phoneScratch = PatternProgram.Scratch()
    private let exemptKeys: ExemptKeys
    /// The exemptions with wildcards, checked on a hit.
    private let exemptPatterns: [FieldPattern]
    private var matches: [PIIMatch] = []
    private var keys: [Int] = []
    private var decoded: [UInt8] = []
    private var body: [UInt8] = []
    /// What the last `run` found.
    private(set) var hits: [Hit] = []
    private var keyNames = RedactedKeyNames()
    private var memo = CleanScanMemo()

    init(settings: PrivacySettings.Redaction, patterns: [PrivacySettings.Pattern]) {
        self.settings = settings
        text = TextRedaction(settings: settings, patterns: patterns)
        let emailDetectors = settings.detectors.intersection([.email, .urlEmail])
        emailScanner = emailDetectors.isEmpty ? nil : PIIScanner(enabled: emailDetectors, patterns: [])
        everywhere = settings.paths.contains { $0.components.first == .anyDepth && $0.components.count == 1 }
        let literalScope = !everywhere && settings.paths.allSatisfy(\.isLiteral)
            ? RedactionWalk.outermost(settings.paths.compactMap(\.literalPath)) : nil
        scopeKeys = literalScope.map(ScopeKeys.init)
        exemptKeys = ExemptKeys(settings.exempt.compactMap(\.literalPath))
        scansKeys = settings.keys
        hasPatterns = !patterns.isEmpty
        cardsInNumbers = settings.detectors.contains(.card)
        phonesInNumbers = settings.detectors.contains(.phone)
        exemptPatterns = settings.exempt.filter { !$0.isLiteral }
        matches.reserveCapacity(8)
        keys.reserveCapacity(16)
    }

    var isEmpty: Bool { text.isEmpty }

    /// The paths with duplicates and paths below another one left out, so that
    /// no field is walked twice (`[properties, properties.text]` walks `properties` once).
    static func outermost(_ paths: [JSONPath]) -> [JSONPath] {
        var kept: [JSONPath] = []
        for path in paths where !paths.contains(where: { other in
            other.components.count < path.components.count && Array(path.components.prefix(other.components.count)) == other.components
        }) && !kept.contains(path) {
            kept.append(path)
        }
        return kept
    }

    /// Adds a change to `splice` for every string with a hit, skipping the node
    /// indexes in `handled` (fields truncated or pseudonymized); returns whether
    /// there was any (`hits`: the array is not handed out for every event).
    mutating func run(_ document: JSONDocument, handled: [Int], splice: inout JSONSplice) -> Bool {
        if !hits.isEmpty { hits.removeAll(keepingCapacity: true) }
        keyNames.reset()
        // The event's region for national phone numbers is read once, when a string or a number first needs it.
        if phonesInNumbers { text.phoneEvent = document }
        defer { if phonesInNumbers { text.phoneEvent = nil } }
        handled.withUnsafeBufferPointer { handled in document.withUnsafeView { json in
            let view = View(json: json, handled: handled)
            if let scope = scopeKeys {
                // The paths' keys read from one flat buffer: no array per path or key to retain, event after event.
                scope.bytes.withSpan { keys in
                    var component = 0
                    var start = 0
                    for pathEnd in scope.pathEnds {
                        var node = 0
                        var exempt = 0
                        while component < pathEnd {
                            let end = scope.ends[component]
                            let next = node >= 0 ? document.member(keys.extracting(start..<end), of: node) : nil
                            if let next {
                                exempt = exemptKeys.child(of: exempt, json.rawStringBody(next - 1))
                                node = next
                            } else {
                                node = -1
                            }
                            start = end
                            component += 1
                        }
                        let emailOnly = exempt == ExemptKeys.skip
                        if node >= 0 && (!emailOnly || emailScanner != nil) {
                            walk(node, field: -1, exempt: exempt, emailOnly: emailOnly, view, document, checkScope: false, &splice)
                        }
                    }
                }
            } else {
                walk(0, field: -1, exempt: 0, emailOnly: false, view, document, checkScope: !everywhere, &splice)
            }
        } }
        return !hits.isEmpty
    }

    /// What the walk reads, in place: one document's values and bytes, and the
    /// nodes not to scan.
    private struct View {
        let json: UnsafeJSONView
        let handled: UnsafeBufferPointer<Int>

        @inline(__always)
        func isHandled(_ node: Int) -> Bool { !handled.isEmpty && handled.contains(node) }
    }

    /// Whether the string at `node` needs scanning at all: the scanner's fast
    /// reject, done here so that most strings cost no call. Escaped strings are
    /// always scanned (an escape may hide an `@`), and so is everything when
    /// custom patterns are configured (they may look for any byte).
    @inline(__always)
    private func mayHit(_ node: Int, _ view: View) -> Bool {
        if hasPatterns || view.json.hasEscapes(node) { return true }
        return PIIScanner.mayHoldPII(view.json.bytes.span, from: view.json.start(node) + 1, to: view.json.end(node) - 1)
    }

    /// Walks the value at `node`; `field`: the key whose value it is (or holds
    /// it, for an array's elements), -1 for none; `emailOnly`: inside an exempt
    /// field, where only the email detectors look.
    private mutating func walk(_ node: Int, field: Int, exempt: Int, emailOnly: Bool, _ view: View, _ document: JSONDocument,
                               checkScope: Bool, _ splice: inout JSONSplice) {
        let json = view.json
        switch json.kind(node) {
        case .object:
            let end = json.after(node)
            var key = node + 1
            while key < end {
                let value = key + 1
                let following = json.after(value)
                let childExempt = exempt < 0 ? ExemptKeys.none : exemptKeys.child(of: exempt, json.rawStringBody(key))
                var childEmailOnly = emailOnly
                if childExempt == ExemptKeys.skip {
                    // The exempt field's own key is the configured name: not scanned.
                    guard emailScanner != nil else {
                        key = following
                        continue
                    }
                    childEmailOnly = true
                } else if scansKeys && mayHit(key, view) {
                    scan(key, field: -1, view, document, isKey: true, emailOnly: emailOnly, checkScope: checkScope, &splice, object: node)
                }
                switch json.kind(value) {
                case .string:
                    if (childEmailOnly ? mayHoldEmail(value, view) : mayHit(value, view)) && !view.isHandled(value) {
                        scan(value, field: key, view, document, isKey: false, emailOnly: childEmailOnly, checkScope: checkScope, &splice)
                    }
                case .object, .array:
                    walk(value, field: key, exempt: childExempt, emailOnly: childEmailOnly, view, document, checkScope: checkScope, &splice)
                case .number:
                    if !childEmailOnly && mayBeNumberHit(value, view) {
                        scanNumber(value, field: key, view, document, checkScope: checkScope, &splice)
                    }
                default:
                    break
                }
                key = following
            }
        case .array:
            let end = json.after(node)
            var element = node + 1
            while element < end {
                let following = json.after(element)
                if json.kind(element) == .string {
                    if (emailOnly ? mayHoldEmail(element, view) : mayHit(element, view)) && !view.isHandled(element) {
                        scan(element, field: field, view, document, isKey: false, emailOnly: emailOnly, checkScope: checkScope, &splice)
                    }
                } else {
                    walk(element, field: field, exempt: exempt, emailOnly: emailOnly, view, document, checkScope: checkScope, &splice)
                }
                element = following
            }
        case .string:
            if !view.isHandled(node) { scan(node, field: field, view, document, isKey: false, emailOnly: emailOnly, checkScope: checkScope, &splice) }
        case .number:
            if !emailOnly && mayBeNumberHit(node, view) { scanNumber(node, field: field, view, document, checkScope: checkScope, &splice) }
        default:
            break
        }
    }

    /// For exempt fields, where only the email detectors look: whether the string
    /// at `node` has an `@` or a `%` (or an escape, which may hide one).
    @inline(__always)
    private func mayHoldEmail(_ node: Int, _ view: View) -> Bool {
        if view.json.hasEscapes(node) { return true }
        return PIIScanner.mayHoldEmail(view.json.bytes.span, from: view.json.start(node) + 1, to: view.json.end(node) - 1)
    }

    /// Whether the number at `node` is long enough to be a phone or a card (7 characters), and not handled.
    @inline(__always)
    private func mayBeNumberHit(_ node: Int, _ view: View) -> Bool {
        (cardsInNumbers || phonesInNumbers) && view.json.rawLength(node) >= 7 && !view.isHandled(node)
    }

    /// A number whose value is an integer of 7-19 digits is read as its digits:
    /// a card when they are one (an issuer's range and length, Luhn) and the
    /// field's name does not say it is something else (`request_count`,
    /// `order_id`; `card_id` still says card), a phone
    /// when the field's name says phone (`"phone": 4155550100`) or, in a field
    /// not named for something else, when the digits are a calling code and a
    /// valid national number of it (`4915123456789`; from eight digits when
    /// the code is that of the country the event's `context.locale` names):
    /// a count, an id or a time of ten digits is a number, not a phone. A hit replaces the whole number
    /// by the token, as a string.
    private mutating func scanNumber(_ node: Int, field: Int, _ view: View, _ document: JSONDocument, checkScope: Bool,
                                     _ splice: inout JSONSplice) {
        RedactionWalk.withFieldName(field, view) { fieldName in
            scanNumber(node, fieldName: fieldName, hasField: field >= 0,
                       numberText: UnsafeBufferPointer(rebasing: view.json.bytes[view.json.start(node)..<view.json.end(node)]).span,
                       view, document, checkScope: checkScope, &splice)
        }
    }

    /// `scanNumber` with the field's name read (`withFieldName`).
    private mutating func scanNumber(_ node: Int, fieldName: Span<UInt8>, hasField: Bool, numberText: Span<UInt8>, _ view: View,
                                     _ document: JSONDocument, checkScope: Bool, _ splice: inout JSONSplice) {
        let start = view.json.start(node), end = view.json.end(node)
        // A number read clean before, in a field of the same name, is clean again (`CleanScanMemo`).
        let probe = CleanScanMemo.probe(mode: CleanScanMemo.numberMode, field: fieldName, text: numberText)
        if let clean = memo.cleanRegion(probe, mode: CleanScanMemo.numberMode, field: fieldName, text: numberText),
           clean == CleanScanMemo.anyRegion || Int(clean) == text.eventRegion() { return }
        text.regionRead = false
        var detector: PIIDetector?
        defer {
            if detector == nil {
                memo.remember(probe, mode: CleanScanMemo.numberMode, field: fieldName, text: numberText,
                              region: text.regionRead ? Int32(text.eventRegion()) : CleanScanMemo.anyRegion)
            }
        }
        guard RedactionWalk.integerDigits(numberText, into: &numberDigits) else { return }
        // Read from a local while the closure calls this walk's mutating methods
        // (read in place, the array would be retained for the call).
        var numberDigits: [UInt8] = []
        swap(&numberDigits, &self.numberDigits)
        defer { swap(&numberDigits, &self.numberDigits) }
        do {
            let digits = numberDigits.span
            // The field's name is read only for a number that may be a card or a phone (most are neither).
            let isCard = cardsInNumbers && digits.count >= 12 && NumberDetection.isCard(digits, 0, digits.count)
            guard isCard || (phonesInNumbers && digits.count <= 15) else { return }
            let hint = hasField ? numberFieldHints.hint(forKey: fieldName) : .none
            // A count, an id or a time that passes Luhn in an issuer's range is still a count (`"request_count": 30010575493922`).
            if isCard && (hint != .notPhone || PhoneContext.namesCard(fieldName)) {
                detector = .card
            } else if phonesInNumbers && digits.count <= 15 && hint != .notPhone {
                // The phone rule (`PhoneDetection`): valid for the event's country, or of a possible length in a
                // field named for a phone. Digits are no international form: `4915123456789` is a German number
                // only in a German event (or a field named for a phone).
                if regionalReading(digits) == .valid {
                    detector = .phone
                } else if hint == .phone && (regionalReading(digits) == .possible
                                             || PhoneDetection.internationalReading(digits, from: 0, codes: &regions, scratch: &phoneScratch) != .none) {
                    detector = .phone
                }
            }
        }
        guard let detector else { return }
        keys.removeAll(keepingCapacity: true)
        document.withView { RedactionWalk.keyPath(to: node, isKey: false, $0, into: &keys) }
        let path = keys[...]
        if checkScope && !settings.paths.contains(where: { $0.covers(path, in: document) }) { return }
        if exemptPatterns.contains(where: { $0.covers(path, in: document) }) { return }
        splice.replaceString(node: node, start: start, end: end, body: text.escapedTokens[detector.rawValue])
        hits.append(Hit(detector: detector.rawValue, keys: path, isKey: false))
    }

    /// How the digits read in the country (or the two) the event names
    /// (`PhoneRegion.reading`): a person's number written nationally
    /// (`601461055` in `cs-CZ`) or after the calling code (`8222125341` in
    /// `ko-KR`) is valid. With no country named, 7-12 digits are possible.
    /// (The region is the one the detectors read, `TextRedaction.eventRegion`, marked read for `CleanScanMemo`.)
    private mutating func regionalReading(_ digits: Span<UInt8>) -> PhoneRegion.Reading {
        text.regionRead = true
        let (first, second) = PhoneRegion.regions(ofPair: text.eventRegion())
        guard first >= 0 else { return digits.count >= 7 && digits.count <= 12 ? .possible : .none }
        var reading = regions.region(first).reading(digits, scratch: &phoneScratch)
        if reading != .valid && second >= 0 {
            reading = Swift.max(reading, regions.region(second).reading(digits, scratch: &phoneScratch))
        }
        return reading
    }

    /// The decimal digits of the JSON number `text` when its value is an
    /// integer of 7-19 digits (`4.111111111111111e15` and `4111111111111111.0`
    /// give the 16 digits; the sign is ignored); false otherwise.
    static func integerDigits(_ text: Span<UInt8>, into digits: inout [UInt8]) -> Bool {
        digits.removeAll(keepingCapacity: true)
        var index = 0
        let count = text.count
        if index < count && text[index] == UInt8(ascii: "-") { index += 1 }
        var fraction = 0
        var seenPoint = false
        while index < count {
            let byte = text[index]
            if TextBytes.isDigit(byte) {
                if !(digits.isEmpty && byte == UInt8(ascii: "0")) { digits.append(byte) }
                if seenPoint { fraction += 1 }
                if digits.count > 40 { return false }
            } else if byte == UInt8(ascii: ".") {
                seenPoint = true
            } else {
                break
            }
            index += 1
        }
        var exponent = 0
        if index < count && (text[index] | 0x20) == UInt8(ascii: "e") {
            index += 1
            var negative = false
            if index < count && (text[index] == UInt8(ascii: "+") || text[index] == UInt8(ascii: "-")) {
                negative = text[index] == UInt8(ascii: "-")
                index += 1
            }
            while index < count && TextBytes.isDigit(text[index]) {
                exponent = exponent * 10 + Int(text[index] - 0x30)
                if exponent > 100 { return false }
                index += 1
            }
            if negative { exponent = -exponent }
        }
        // The value is digits × 10^(exponent - fraction), leading zeros dropped.
        var scale = exponent - fraction
        while scale < 0, let last = digits.last, last == UInt8(ascii: "0") {
            digits.removeLast()
            scale += 1
        }
        guard scale >= 0, !digits.isEmpty, digits.count + scale >= 7, digits.count + scale <= 19 else { return false }
        for _ in 0..<scale { digits.append(UInt8(ascii: "0")) }
        return true
    }

    /// `object`: for a key, the object holding it (its new name must stay unique there).
    private mutating func scan(_ node: Int, field: Int, _ view: View, _ document: JSONDocument, isKey: Bool, emailOnly: Bool,
                               checkScope: Bool, _ splice: inout JSONSplice, object: Int = -1) {
        RedactionWalk.withFieldName(field, view) { fieldName in
            scan(node, fieldName: fieldName, view, document, isKey: isKey, emailOnly: emailOnly, checkScope: checkScope, &splice,
                 object: object)
        }
    }

    /// The name of the field at `field` (a key's node, -1 for none) as the
    /// detectors read it: decoded when written with escapes, so `"ph\u006fne"`
    /// names a phone as `"phone"` does.
    private static func withFieldName<Result>(_ field: Int, _ view: View,
                                              _ body: (Span<UInt8>) -> Result) -> Result {
        guard field >= 0 else { return body(Span<UInt8>()) }
        guard view.json.hasEscapes(field) else { return body(view.json.rawStringBody(field).span) }
        let decoded = JSONString.unescape(view.json.rawStringBody(field))
        return body(decoded.span)
    }

    /// `scan` with the field's name read (`withFieldName`).
    private mutating func scan(_ node: Int, fieldName: Span<UInt8>, _ view: View, _ document: JSONDocument, isKey: Bool,
                               emailOnly: Bool, checkScope: Bool, _ splice: inout JSONSplice, object: Int) {
        let start = view.json.start(node), end = view.json.end(node)
        let escaped = view.json.hasEscapes(node)
        if !matches.isEmpty { matches.removeAll(keepingCapacity: true) }
        func run(_ string: Span<UInt8>) {
            if emailOnly {
                emailScanner!.scan(string, into: &matches)
            } else {
                text.scan(string, fieldName: fieldName, into: &matches)
            }
        }
        if escaped {
            decoded = JSONString.unescape(view.json.rawStringBody(node))
            let decoded = self.decoded
            run(decoded.span)
        } else {
            // A string scanned clean before, in a field of the same name, is clean again (`CleanScanMemo`).
            let string = view.json.rawStringBody(node).span
            let mode = UInt8(isKey ? 1 : 0) | UInt8(emailOnly ? 2 : 0)
            let probe = CleanScanMemo.probe(mode: mode, field: fieldName, text: string)
            if let clean = memo.cleanRegion(probe, mode: mode, field: fieldName, text: string),
               clean == CleanScanMemo.anyRegion || Int(clean) == text.eventRegion() { return }
            text.regionRead = false
            run(string)
            if matches.isEmpty {
                let region = emailOnly || !text.regionRead ? CleanScanMemo.anyRegion : Int32(text.eventRegion())
                memo.remember(probe, mode: mode, field: fieldName, text: string, region: region)
                return
            }
        }
        guard !matches.isEmpty else { return }
        // The keys down to this string, found again from the root (only on a hit; the walk keeps no stack).
        keys.removeAll(keepingCapacity: true)
        document.withView { RedactionWalk.keyPath(to: node, isKey: isKey, $0, into: &keys) }
        let path = keys[...]
        if checkScope && !settings.paths.contains(where: { $0.covers(path, in: document) }) { return }
        if !emailOnly && exemptPatterns.contains(where: { $0.covers(path, in: document) }) {
            matches.removeAll { $0.detector != PIIDetector.email.rawValue && $0.detector != PIIDetector.urlEmail.rawValue }
            if matches.isEmpty { return }
        }
        // The new text: the original with each match replaced by its token.
        body.removeAll(keepingCapacity: true)
        if escaped {
            // The decoded text takes the plain tokens: quoting it escapes them once.
            var plain: [UInt8] = []
            text.append(decoded.span, replacing: matches, escaped: false, to: &plain)
            var quoted: [UInt8] = []
            JSONString.appendQuoted(plain, to: &quoted)
            body.append(contentsOf: quoted[1..<(quoted.count - 1)])
        } else {
            TextRedaction.append(view.json.rawStringBody(node).span, replacing: matches, tokens: text.escapedTokens, to: &body)
        }
        if isKey { keyNames.makeUnique(&body, object: object, in: document) }
        splice.replaceString(node: node, start: start, end: end, body: body)
        for match in matches { hits.append(Hit(detector: match.detector, keys: path, isKey: isKey)) }
    }
}
