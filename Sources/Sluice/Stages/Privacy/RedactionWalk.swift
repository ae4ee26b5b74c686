/// Rule 6 of the `privacy` stage: walks an event's tape and replaces what the
/// detectors find in string values (and keys) by tokens, as splice changes.
///
/// The walk reads the document's bytes in place. A string is only scanned
/// (`PIIScanner`, with its fast reject) and never copied unless something is
/// found; a field's path is only built for the audit when it had a hit; the
/// exemption list is only consulted then too. A string with JSON escapes is
/// decoded before scanning, so `\u0040` hides nothing.
struct RedactionWalk {
    struct Hit {
        var detector: Int
        /// The tape indexes of the keys down to the field (a key hit: down to that key).
        var keys: ArraySlice<Int>
        var isKey: Bool
    }

    private var scanner: PIIScanner
    let settings: PrivacySettings.Redaction
    /// Escaped token bodies, by detector index (built-ins, then patterns).
    private let tokens: [[UInt8]]
    /// `paths`, when every one is literal: walk only below them. Nil: walk everything.
    private let literalScope: [JSONPath]?
    private let everywhere: Bool
    private var matches: [PIIMatch] = []
    private var keys: [Int] = []
    private var decoded: [UInt8] = []
    private var body: [UInt8] = []

    init(settings: PrivacySettings.Redaction, patterns: [PrivacySettings.Pattern]) {
        self.settings = settings
        scanner = PIIScanner(enabled: settings.detectors, patterns: patterns.map(\.program))
        var tokens = PIIDetector.allCases.map { settings.token($0) }
        tokens += patterns.map(\.token)
        self.tokens = tokens.map { token in
            var quoted: [UInt8] = []
            JSONString.appendQuoted(token, to: &quoted)
            return Array(quoted[1..<(quoted.count - 1)])
        }
        everywhere = settings.paths.contains { $0.components.first == .anyDepth && $0.components.count == 1 }
        literalScope = !everywhere && settings.paths.allSatisfy(\.isLiteral) ? settings.paths.compactMap(\.literalPath) : nil
        matches.reserveCapacity(8)
        keys.reserveCapacity(16)
    }

    var isEmpty: Bool { scanner.isEmpty }

    /// Adds a change to `splice` for every string with a hit, skipping the tape
    /// indexes in `handled` (fields truncated or pseudonymized), and reports each hit.
    mutating func run(_ document: JSONDocument, handled: [Int], splice: inout JSONSplice, _ report: (Hit) -> Void) {
        keys.removeAll(keepingCapacity: true)
        if let literalScope {
            for path in literalScope {
                var node = 0
                var found = true
                for component in path.components {
                    guard let next = component.withUnsafeBytes({ document.member($0, of: node) }) else { found = false; break }
                    keys.append(next - 1)
                    node = next
                }
                if found { walk(node, document, handled, checkScope: false, &splice, report) }
                keys.removeAll(keepingCapacity: true)
            }
        } else {
            walk(0, document, handled, checkScope: !everywhere, &splice, report)
        }
    }

    private mutating func walk(_ node: Int, _ document: JSONDocument, _ handled: [Int], checkScope: Bool,
                               _ splice: inout JSONSplice, _ report: (Hit) -> Void) {
        let tape = document.tape
        switch tape[node].kind {
        case .object:
            let end = Int(tape[node].next)
            var key = node + 1
            while key < end {
                let value = key + 1
                keys.append(key)
                if settings.keys { scan(key, document, isKey: true, checkScope: checkScope, &splice, report) }
                switch tape[value].kind {
                case .string:
                    if handled.isEmpty || !handled.contains(value) {
                        scan(value, document, isKey: false, checkScope: checkScope, &splice, report)
                    }
                case .object, .array:
                    walk(value, document, handled, checkScope: checkScope, &splice, report)
                default:
                    break
                }
                keys.removeLast()
                key = Int(tape[value].next)
            }
        case .array:
            let end = Int(tape[node].next)
            var element = node + 1
            while element < end {
                if tape[element].kind == .string {
                    if handled.isEmpty || !handled.contains(element) {
                        scan(element, document, isKey: false, checkScope: checkScope, &splice, report)
                    }
                } else {
                    walk(element, document, handled, checkScope: checkScope, &splice, report)
                }
                element = Int(tape[element].next)
            }
        case .string:
            if handled.isEmpty || !handled.contains(node) {
                scan(node, document, isKey: false, checkScope: checkScope, &splice, report)
            }
        default:
            break
        }
    }

    private mutating func scan(_ node: Int, _ document: JSONDocument, isKey: Bool, checkScope: Bool,
                               _ splice: inout JSONSplice, _ report: (Hit) -> Void) {
        let string = document.tape[node]
        let escaped = string.flags & JSONNode.hasEscapes != 0
        matches.removeAll(keepingCapacity: true)
        if escaped {
            decoded = JSONString.unescape(document.bytes[Int(string.start + 1)..<Int(string.end - 1)])
            decoded.withUnsafeBufferPointer { scanner.scan($0, into: &matches) }
        } else {
            document.bytes.withUnsafeBufferPointer { all in
                scanner.scan(UnsafeBufferPointer(rebasing: all[Int(string.start + 1)..<Int(string.end - 1)]), into: &matches)
            }
        }
        guard !matches.isEmpty else { return }
        let path = keys[...]
        if checkScope && !settings.paths.contains(where: { $0.covers(path, in: document) }) { return }
        if settings.exempt.contains(where: { $0.covers(path, in: document) }) { return }
        // The new text: the original with each match replaced by its token.
        body.removeAll(keepingCapacity: true)
        if escaped {
            var plain: [UInt8] = []
            var copied = 0
            for match in matches {
                plain.append(contentsOf: decoded[copied..<match.start])
                plain.append(contentsOf: tokens[match.detector])
                copied = match.end
            }
            plain.append(contentsOf: decoded[copied...])
            var quoted: [UInt8] = []
            JSONString.appendQuoted(plain, to: &quoted)
            body.append(contentsOf: quoted[1..<(quoted.count - 1)])
        } else {
            let base = Int(string.start) + 1
            var copied = 0
            for match in matches {
                body.append(contentsOf: document.bytes[(base + copied)..<(base + match.start)])
                body.append(contentsOf: tokens[match.detector])
                copied = match.end
            }
            body.append(contentsOf: document.bytes[(base + copied)..<(Int(string.end) - 1)])
        }
        let newBody = body
        splice.replaceString(node, in: document) { $0.append(contentsOf: newBody) }
        for match in matches { report(Hit(detector: match.detector, keys: path, isKey: isKey)) }
    }
}
