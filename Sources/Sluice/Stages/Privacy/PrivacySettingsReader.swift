import Crypto
import SluiceJSON

/// Reads `privacy: {...}` from the pipeline file, reporting every error with its location.
enum PrivacySettingsReader {
    static let keys = ["consent", "drop", "allow", "ip", "pseudonymize", "redact", "patterns"]
    static let consentKeys = ["field", "categories", "unlisted"]
    static let ipKeys = ["fields", "v4_keep_bits", "v6_keep_bits"]
    static let pseudonymizeKeys = ["fields", "key_env", "key_file", "normalize_emails"]
    static let redactKeys = ["detectors", "paths", "exempt", "keys", "tokens"]
    static let defaultKeyEnvironment = "SLUICE_HMAC_KEY"
    /// Shorter keys make pseudonyms guessable by brute force.
    static let minimumKeyBytes = 16

    static func read(_ node: ConfigValue, _ reader: inout ConfigReader) -> PrivacySettings? {
        var settings = PrivacySettings()
        if isEmpty(node) { return settings }
        guard let entries = reader.mapping(node, known: keys, what: "the privacy stage") else { return nil }
        let errorsBefore = reader.diagnostics.count
        for entry in entries {
            let what = "privacy.\(entry.key)"
            switch entry.key {
            case "consent":
                if isOff(entry.value) { settings.consent = nil } else { settings.consent = readConsent(entry.value, &reader) }
            case "drop":
                settings.drop = readPatterns(entry.value, what: what, &reader) ?? []
            case "allow":
                settings.allow = isEmpty(entry.value) ? nil : readPatterns(entry.value, what: what, &reader)
                for (pattern, item) in zip(settings.allow ?? [], entry.value.sequence ?? []) {
                    guard case .key = pattern.components[0] else {
                        reader.error(item, "each entry of privacy.allow starts with the object it governs, a plain key "
                            + "(properties.plan, traits.*), not '\(pattern)'")
                        continue
                    }
                }
            case "ip":
                if isOff(entry.value) { settings.ip = nil } else { settings.ip = readIP(entry.value, &reader) }
            case "pseudonymize":
                if !isOff(entry.value) { settings.pseudonymize = readPseudonymize(entry.value, &reader) }
            case "redact":
                if isOff(entry.value) { settings.redact = nil } else { settings.redact = readRedact(entry.value, &reader) }
            case "patterns":
                settings.patterns = readCustomPatterns(entry.value, &reader)
            default:
                break
            }
        }
        if !settings.patterns.isEmpty && settings.redact == nil {
            reader.error(node, "privacy.patterns need redaction on: remove `redact: false`")
        }
        return reader.diagnostics.count == errorsBefore ? settings : nil
    }

    private static func isEmpty(_ node: ConfigValue) -> Bool {
        if let scalar = node.scalar, scalar.style == .plain, ["", "~", "null"].contains(scalar.text) { return true }
        return false
    }

    private static func isOff(_ node: ConfigValue) -> Bool {
        if let scalar = node.scalar, scalar.style == .plain, ["false", "False", "no", "off"].contains(scalar.text) { return true }
        return false
    }

    private static func readConsent(_ node: ConfigValue, _ reader: inout ConfigReader) -> PrivacySettings.Consent? {
        var consent = PrivacySettings.Consent()
        if isEmpty(node) { return consent }
        guard let entries = reader.mapping(node, known: consentKeys, what: "privacy.consent") else { return nil }
        for entry in entries {
            let what = "privacy.consent.\(entry.key)"
            switch entry.key {
            case "field", "categories":
                let path: JSONPath?
                if isEmpty(entry.value) || isOff(entry.value) {
                    path = nil
                } else if let text = reader.string(entry.value, what: what), let pattern = FieldPattern(text), pattern.isLiteral {
                    path = JSONPath(text)
                } else {
                    reader.error(entry.value, "\(what) must be a dotted path such as context.consent.analytics (no wildcards), or null")
                    continue
                }
                if entry.key == "field" { consent.field = path } else { consent.categories = path }
            case "unlisted":
                switch reader.string(entry.value, what: what) {
                case "deny": consent.unlistedAllowed = false
                case "allow": consent.unlistedAllowed = true
                case let other?: reader.error(entry.value, "\(what) must be deny or allow, not '\(other)'")
                case nil: break
                }
            default:
                break
            }
        }
        return consent
    }

    static func readPatterns(_ node: ConfigValue, what: String, _ reader: inout ConfigReader) -> [FieldPattern]? {
        guard let list = reader.strings(node, what: what) else { return nil }
        var patterns: [FieldPattern] = []
        for (text, item) in zip(list, node.sequence ?? []) {
            guard let pattern = FieldPattern(text) else {
                reader.error(item, "each entry of \(what) must be a dotted path such as properties.user_email "
                    + "(`*` within a key, `**` for any depth), not '\(text)'")
                continue
            }
            patterns.append(pattern)
        }
        return patterns
    }

    private static func readIP(_ node: ConfigValue, _ reader: inout ConfigReader) -> PrivacySettings.IPTruncation? {
        var ip = PrivacySettings.IPTruncation()
        if isEmpty(node) { return ip }
        guard let entries = reader.mapping(node, known: ipKeys, what: "privacy.ip") else { return nil }
        for entry in entries {
            let what = "privacy.ip.\(entry.key)"
            switch entry.key {
            case "fields": if let fields = readPatterns(entry.value, what: what, &reader) { ip.fields = fields }
            case "v4_keep_bits": if let bits = reader.integer(entry.value, what: what, range: 0...32) { ip.v4KeepBits = bits }
            case "v6_keep_bits": if let bits = reader.integer(entry.value, what: what, range: 0...128) { ip.v6KeepBits = bits }
            default: break
            }
        }
        return ip
    }

    private static func readPseudonymize(_ node: ConfigValue, _ reader: inout ConfigReader) -> PrivacySettings.Pseudonymization? {
        guard let entries = reader.mapping(node, known: pseudonymizeKeys, what: "privacy.pseudonymize") else { return nil }
        var fields: [FieldPattern] = []
        var normalize = true
        var keyEnv: (name: String, node: ConfigValue)?
        var keyFile: (path: String, node: ConfigValue)?
        for entry in entries {
            let what = "privacy.pseudonymize.\(entry.key)"
            switch entry.key {
            case "fields": fields = readPatterns(entry.value, what: what, &reader) ?? []
            case "normalize_emails": if let value = reader.boolean(entry.value, what: what) { normalize = value }
            case "key_env": if let name = reader.string(entry.value, what: what) { keyEnv = (name, entry.value) }
            case "key_file": if let path = reader.string(entry.value, what: what) { keyFile = (path, entry.value) }
            default: break
            }
        }
        if fields.isEmpty { reader.error(node, "privacy.pseudonymize needs `fields:`, the fields to replace by their pseudonym") }
        if keyEnv != nil && keyFile != nil {
            reader.error(keyFile!.node, "privacy.pseudonymize takes key_env or key_file, not both")
            return nil
        }
        let key: [UInt8]
        let source: String
        if let keyFile {
            let path = keyFile.path.hasPrefix("/") ? keyFile.path : reader.fileDirectory + "/" + keyFile.path
            source = "file \(path)"
            do {
                let file = try SecretSource.readFile(path)
                var bytes = file.bytes
                // An editor's final newline is not part of the key.
                while let last = bytes.last, last == 0x0A || last == 0x0D { bytes.removeLast() }
                key = bytes
                if file.readableByOthers {
                    reader.warning(keyFile.node, "privacy.pseudonymize.key_file \(path) is readable by group or others (mode "
                        + "0" + String(file.mode & 0o777, radix: 8) + "): whoever reads the key can tell whose pseudonym is whose; "
                        + "`chmod 600` it")
                }
            } catch {
                reader.error(keyFile.node, "privacy.pseudonymize.key_file \(path): \(error)")
                return nil
            }
        } else {
            let name = keyEnv?.name ?? defaultKeyEnvironment
            source = "env \(name)"
            guard let value = reader.environment(name), !value.isEmpty else {
                if SecretSource.looksLikeKey(name) {
                    // Never repeat a secret: the message names the place, not the value.
                    reader.error(keyEnv?.node ?? node, "privacy.pseudonymize.key_env looks like a key, not the name of an environment "
                        + "variable (such as SLUICE_HMAC_KEY), and no variable has that name; the value is not shown. Keep the key "
                        + "out of the pipeline file: put it in a variable and name the variable here, or name a key_file")
                } else {
                    reader.error(keyEnv?.node ?? node, "privacy.pseudonymize: the environment variable \(name) that holds the key is not set; "
                        + "export it (at least \(minimumKeyBytes) bytes, e.g. `openssl rand -hex 32`) or name a key_file")
                }
                return nil
            }
            key = Array(value.utf8)
        }
        guard key.count >= minimumKeyBytes else {
            reader.error(keyFile?.node ?? keyEnv?.node ?? node,
                         "privacy.pseudonymize: the key (\(source)) has \(key.count) bytes; it needs at least \(minimumKeyBytes)")
            return nil
        }
        return PrivacySettings.Pseudonymization(fields: fields, key: SymmetricKey(data: key), keySource: source,
                                                normalizeEmails: normalize)
    }

    private static func readRedact(_ node: ConfigValue, _ reader: inout ConfigReader) -> PrivacySettings.Redaction? {
        var redact = PrivacySettings.Redaction()
        if isEmpty(node) { return redact }
        if node.sequence != nil {
            // The short form: the list of detectors.
            return readDetectors(node, what: "privacy.redact", &reader).map { redact.detectors = $0; return redact }
        }
        guard let entries = reader.mapping(node, known: redactKeys, what: "privacy.redact") else { return nil }
        for entry in entries {
            let what = "privacy.redact.\(entry.key)"
            switch entry.key {
            case "detectors": if let detectors = readDetectors(entry.value, what: what, &reader) { redact.detectors = detectors }
            case "paths": if let paths = readPatterns(entry.value, what: what, &reader) { redact.paths = paths }
            case "exempt": if let paths = readPatterns(entry.value, what: what, &reader) { redact.exempt = paths }
            case "keys": if let value = reader.boolean(entry.value, what: what) { redact.keys = value }
            case "tokens":
                let names = PIIDetector.allCases.map(\.name)
                guard let tokens = reader.mapping(entry.value, known: names, what: what) else { continue }
                for token in tokens {
                    guard let detector = PIIDetector.allCases.first(where: { $0.name == token.key }),
                          let text = reader.string(token.value, what: "\(what).\(token.key)") else { continue }
                    redact.tokens[detector] = text
                }
            default:
                break
            }
        }
        return redact
    }

    private static func readDetectors(_ node: ConfigValue, what: String, _ reader: inout ConfigReader) -> Set<PIIDetector>? {
        guard let list = reader.strings(node, what: what) else { return nil }
        var detectors: Set<PIIDetector> = []
        let names = PIIDetector.allCases.map(\.name)
        for (name, item) in zip(list, node.sequence ?? []) {
            guard let detector = PIIDetector.allCases.first(where: { $0.name == name }) else {
                reader.error(item, "unknown detector '\(name)' in \(what)" + ConfigReader.suggestion(for: name, among: names)
                    + "; known: " + names.joined(separator: ", "))
                continue
            }
            detectors.insert(detector)
        }
        return detectors
    }

    private static func readCustomPatterns(_ node: ConfigValue, _ reader: inout ConfigReader) -> [PrivacySettings.Pattern] {
        guard let mapping = node.mapping else {
            reader.error(node, "privacy.patterns must map names to patterns, e.g. {order_ref: \"ORD-[0-9]{8}\"}")
            return []
        }
        var patterns: [PrivacySettings.Pattern] = []
        for (keyNode, value) in mapping {
            guard let name = keyNode.scalar?.text, !name.isEmpty,
                  name.utf8.allSatisfy({ TextBytes.isWord($0) }) else {
                reader.error(keyNode, "a pattern's name is a word of letters, digits and _ (it names the counter)")
                continue
            }
            if PIIDetector.allCases.contains(where: { $0.name == name }) {
                reader.error(keyNode, "'\(name)' is a built-in detector; name the pattern otherwise")
                continue
            }
            var source: String?
            var sourceNode = value
            var token = "[\(name)]"
            if value.scalar != nil {
                source = value.scalar?.text
            } else if let entries = reader.mapping(value, known: ["match", "token"], what: "privacy.patterns.\(name)") {
                for entry in entries {
                    if entry.key == "match" { source = reader.string(entry.value, what: "privacy.patterns.\(name).match"); sourceNode = entry.value }
                    if entry.key == "token", let text = reader.string(entry.value, what: "privacy.patterns.\(name).token") { token = text }
                }
                if source == nil { reader.error(value, "privacy.patterns.\(name) needs `match:`, the pattern") }
            }
            guard let source else { continue }
            let node: PatternNode
            do {
                node = try PatternParser.parse(source)
            } catch {
                reader.error(sourceNode, "privacy.patterns.\(name): \(error.message) at character \(error.offset + 1) of \"\(source)\"")
                continue
            }
            do {
                let program = try PatternProgram(node)
                patterns.append(PrivacySettings.Pattern(name: name, source: source, token: token, program: program))
            } catch {
                switch error {
                case .emptyMatch:
                    reader.error(sourceNode, "privacy.patterns.\(name): \"\(source)\" can match nothing at all; it must match at least one character")
                case .tooCostly(let cost):
                    reader.error(sourceNode, "privacy.patterns.\(name): \"\(source)\" may cost \(cost) steps per byte of a string; "
                        + "the bound is \(PatternProgram.maxCostPerByte) (fewer or smaller repetitions: {1,100}, not {1,1000})")
                }
            }
        }
        return patterns
    }
}
