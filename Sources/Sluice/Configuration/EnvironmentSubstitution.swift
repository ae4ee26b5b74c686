/// `${VAR}`, `${VAR:-default}` and `$$` in the pipeline file's values, as
/// Vector and Fluent Bit read them: anywhere a value is written (paths,
/// tokens, ids, numbers), not in keys, and not under `tests:` (a case's
/// events and records are data). `${VAR:-default}` takes the default when
/// VAR is unset or empty; `$$` is one `$`; any other `$` is itself (`$token`,
/// a pattern's `$`). An unset VAR without a default is an error at the
/// value's place (exit 78). A plain value substituted is read as if written
/// so (`max_open: ${MAX_OPEN}` is a number); a quoted one stays text.
public struct EnvironmentSubstitution: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int
    /// Where the value is: `destinations.mixpanel.token`, `stages[0].privacy.key_env`.
    public var key: String
    public var written: String
    public var resolved: String
    /// The key names a secret (token, secret, key, password, credential):
    /// `validate` never shows its value.
    public var isSecret: Bool

    /// What `sluice validate` prints: the resolved value, unless it is a secret's.
    public var description: String {
        "\(file):\(line):\(column): \(key) = " + (isSecret ? "(secret, not shown) from \(written)" : "\"\(resolved)\" from \(written)")
    }

    static let secretWords = ["token", "secret", "key", "password", "credential", "auth"]

    static func isSecret(key: String) -> Bool {
        let name = key.lowercased()
        return secretWords.contains { name.contains($0) }
    }

    /// The text with its references replaced, or why not (nil text).
    static func substitute(_ text: String, environment: (String) -> String?) -> (text: String?, problem: String?) {
        guard text.utf8.contains(UInt8(ascii: "$")) else { return (text, nil) }
        let scalars = Array(text.unicodeScalars)
        var result = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            guard scalar == "$", index + 1 < scalars.count, scalars[index + 1] == "$" || scalars[index + 1] == "{" else {
                result.append(scalar)
                index += 1
                continue
            }
            if scalars[index + 1] == "$" {
                result.append("$")
                index += 2
                continue
            }
            guard let close = scalars[(index + 2)...].firstIndex(of: "}") else {
                return (nil, "`${` without its `}`: write ${NAME} or ${NAME:-default}, or $$ for a `$`")
            }
            let inner = String(String.UnicodeScalarView(scalars[(index + 2)..<close]))
            let name: String, fallback: String?
            if let separator = inner.range(of: ":-") {
                name = String(inner[..<separator.lowerBound])
                fallback = String(inner[separator.upperBound...])
            } else {
                name = inner
                fallback = nil
            }
            guard isVariableName(name) else {
                return (nil, "`${\(inner)}` does not name an environment variable (letters, digits and _, not starting with a digit)")
            }
            let value = environment(name)
            if let value, !(value.isEmpty && fallback != nil) {
                result.append(contentsOf: value.unicodeScalars)
            } else if let fallback {
                result.append(contentsOf: fallback.unicodeScalars)
            } else {
                return (nil, "environment variable \(name) is not set: set it, or give a default: ${\(name):-value}")
            }
            index = close + 1
        }
        return (String(result), nil)
    }

    private static func isVariableName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || ("a"..."z").contains(first) || ("A"..."Z").contains(first)
        else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
    }
}

extension ConfigValue {
    /// This tree with every value's references replaced (keys as written),
    /// reporting each unset variable at its value's place; `substitutions`
    /// gets one entry per value that had a reference.
    func substitutingEnvironment(_ reader: inout ConfigReader, key: String,
                                 into substitutions: inout [EnvironmentSubstitution]) -> ConfigValue {
        switch content {
        case .scalar(let scalar):
            guard scalar.text.utf8.contains(UInt8(ascii: "$")) else { return self }
            let (text, problem) = EnvironmentSubstitution.substitute(scalar.text, environment: reader.environment)
            guard let text else {
                reader.error(self, "\(key): \(problem ?? "")")
                return self
            }
            guard text != scalar.text else { return self }
            substitutions.append(EnvironmentSubstitution(file: reader.file, line: line, column: column, key: key, written: scalar.text,
                                                         resolved: text, isSecret: EnvironmentSubstitution.isSecret(key: key.lastKey)))
            var substituted = scalar
            substituted.text = text
            if scalar.style == .plain { substituted.tag = ConfigValue.plainTag(of: text) }
            return ConfigValue(.scalar(substituted), line: line, column: column)
        case .mapping(let mapping):
            let entries = mapping.entries.map { entry -> ConfigMapping.Element in
                let name = entry.key.scalar?.text ?? "?"
                if key.isEmpty && name == "tests" { return entry }
                let path = key.isEmpty ? name : key + "." + name
                return (entry.key, entry.value.substitutingEnvironment(&reader, key: path, into: &substitutions))
            }
            return ConfigValue(.mapping(ConfigMapping(entries)), line: line, column: column)
        case .sequence(let items):
            let substituted = items.enumerated().map { index, item in
                item.substitutingEnvironment(&reader, key: "\(key)[\(index)]", into: &substitutions)
            }
            return ConfigValue(.sequence(substituted), line: line, column: column)
        }
    }
}

extension String {
    /// The last mapping key of a setting's path: `token` of `destinations.mixpanel.token`, `patterns` of `...patterns[1]`.
    fileprivate var lastKey: String {
        let name = split(separator: ".").last.map(String.init) ?? self
        return String(name.prefix { $0 != "[" })
    }
}
