#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One problem in a pipeline file, located as `file:line:column`.
public struct ConfigDiagnostic: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int
    public var message: String

    public var description: String { "\(file):\(line):\(column): \(message)" }
}

/// Every problem found in a pipeline file (exit 78, EX_CONFIG).
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public var diagnostics: [ConfigDiagnostic]

    public init(diagnostics: [ConfigDiagnostic]) {
        // In file order, as a compiler reports them.
        self.diagnostics = diagnostics.enumerated().sorted {
            ($0.element.file, $0.element.line, $0.element.column, $0.offset) < ($1.element.file, $1.element.line, $1.element.column, $1.offset)
        }.map(\.element)
    }

    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}

/// Walks a `ConfigValue` tree, collecting every error with its location instead
/// of stopping at the first (the raw, decoded form of the configuration).
public struct ConfigReader {
    public let file: String
    public private(set) var diagnostics: [ConfigDiagnostic] = []
    /// What is allowed but likely not meant (`rejects: {raw: keep}`, a key file others can read):
    /// `sluice validate` prints them as warnings, `sluice run` logs them.
    public private(set) var warnings: [ConfigDiagnostic] = []
    /// Looks up an environment variable (secrets such as the pseudonymization
    /// key come from the environment, never from the file); injected by tests.
    public let environment: @Sendable (String) -> String?

    public init(file: String, environment: @escaping @Sendable (String) -> String? = ConfigReader.processEnvironment) {
        self.file = file
        self.environment = environment
    }

    /// The process's own environment.
    public static let processEnvironment: @Sendable (String) -> String? = { name in
        getenv(name).map { String(cString: $0) }
    }

    /// The directory of the pipeline file, for paths in it that are relative ("." for a built-in text).
    public var fileDirectory: String {
        guard let slash = file.lastIndex(of: "/") else { return "." }
        return slash == file.startIndex ? "/" : String(file[..<slash])
    }

    public mutating func error(_ node: ConfigValue?, _ message: String) {
        diagnostics.append(ConfigDiagnostic(file: file, line: node?.line ?? 1, column: node?.column ?? 1, message: message))
    }

    public mutating func error(line: Int, column: Int, _ message: String) {
        diagnostics.append(ConfigDiagnostic(file: file, line: line, column: column, message: message))
    }

    public mutating func warning(_ node: ConfigValue?, _ message: String) {
        warnings.append(ConfigDiagnostic(file: file, line: node?.line ?? 1, column: node?.column ?? 1, message: message))
    }

    /// The entries of a mapping in file order, reporting keys outside `known`
    /// (with the nearest known key suggested) and duplicated keys.
    public mutating func mapping(_ node: ConfigValue, known: [String], what: String) -> [(key: String, keyNode: ConfigValue, value: ConfigValue)]? {
        guard let mapping = node.mapping else {
            error(node, "\(what) must be a mapping")
            return nil
        }
        var seen: Set<String> = []
        var entries: [(key: String, keyNode: ConfigValue, value: ConfigValue)] = []
        for (keyNode, value) in mapping {
            guard let key = keyNode.scalar?.text else {
                error(keyNode, "keys in \(what) must be plain strings")
                continue
            }
            if !seen.insert(key).inserted {
                error(keyNode, "duplicate key '\(key)' in \(what)")
                continue
            }
            if !known.contains(key) {
                let hint = ConfigReader.suggestion(for: key, among: known)
                error(keyNode, "unknown key '\(key)' in \(what)" + (hint.isEmpty ? "; known keys: " + known.joined(separator: ", ") : hint))
                continue
            }
            entries.append((key, keyNode, value))
        }
        return entries
    }

    /// "; did you mean 'x'?" for the nearest candidate within a small edit distance, else "".
    public static func suggestion(for word: String, among candidates: [String]) -> String {
        let scored = candidates.map { ($0, editDistance(word.lowercased(), $0.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= max(2, word.count / 3) else {
            return ""
        }
        return "; did you mean '\(best.0)'?"
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf8), b = Array(b.utf8)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    // MARK: - Scalars

    public mutating func string(_ node: ConfigValue, what: String) -> String? {
        guard let scalar = node.scalar else {
            error(node, "\(what) must be a string")
            return nil
        }
        return scalar.text
    }

    public mutating func integer(_ node: ConfigValue, what: String, range: ClosedRange<Int>) -> Int? {
        guard let text = node.scalar?.text.replacingAll("_", with: ""), let value = Int(text) else {
            if let text = node.scalar?.text.replacingAll("_", with: ""), ConfigReader.isWholeNumber(text) {
                // Digits that do not fit in 64 bits: out of range, not "not a number".
                error(node, "\(what) must be between \(range.lowerBound) and \(range.upperBound), not \(text)")
            } else {
                error(node, "\(what) must be an integer")
            }
            return nil
        }
        guard range.contains(value) else {
            error(node, "\(what) must be between \(range.lowerBound) and \(range.upperBound), not \(value)")
            return nil
        }
        return value
    }

    /// An optional `-` and one or more ASCII digits.
    static func isWholeNumber(_ text: String) -> Bool {
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        return !digits.isEmpty && digits.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    public mutating func boolean(_ node: ConfigValue, what: String) -> Bool? {
        switch node.scalar?.text {
        case "true", "True", "yes": return true
        case "false", "False", "no": return false
        default:
            error(node, "\(what) must be true or false")
            return nil
        }
    }

    public mutating func strings(_ node: ConfigValue, what: String) -> [String]? {
        guard let sequence = node.sequence else {
            error(node, "\(what) must be a list of strings")
            return nil
        }
        var result: [String] = []
        for item in sequence {
            guard let text = item.scalar?.text else {
                error(item, "each entry of \(what) must be a string")
                continue
            }
            result.append(text)
        }
        return result
    }

    /// `500ms`, `30s`, `1h30m`, `1.5s`, `2d`; at most `maxDuration`.
    public mutating func duration(_ node: ConfigValue, what: String) -> Duration? {
        let text = node.scalar?.text ?? ""
        switch ConfigReader.readDuration(text) {
        case .value(let value):
            return value
        case .tooLarge:
            error(node, "\(what) is too long: at most \(ConfigReader.maxDurationText) (100 years), not \(text)")
            return nil
        case .invalid:
            error(node, text.hasPrefix("-") ? "\(what) must be positive: a duration such as 500ms, 30s, 1h30m or 1.5s"
                : "\(what) must be a duration such as 500ms, 30s, 1h30m or 1.5s")
            return nil
        }
    }

    /// `64KiB`, `1MiB`, `2GiB`, `10MB`, or a plain number of bytes.
    public mutating func size(_ node: ConfigValue, what: String) -> Int? {
        let text = node.scalar?.text ?? ""
        switch ConfigReader.readSize(text) {
        case .value(let value) where value > 0:
            return value
        case .tooLarge:
            error(node, "\(what) is too large: at most \(Int.max) bytes (8EiB), not \(text)")
            return nil
        default:
            error(node, "\(what) must be a size such as 64KiB, 1MiB or 2GiB")
            return nil
        }
    }

    /// A number read from text with a unit: its value, or why there is none.
    public enum Reading<Value: Sendable>: Sendable {
        case value(Value)
        /// Well formed, but beyond what the setting can hold.
        case tooLarge
        case invalid
    }

    /// A size in bytes, or nil when it is malformed or beyond `Int.max`.
    public static func parseSize(_ text: String) -> Int? {
        if case .value(let value) = readSize(text) { return value }
        return nil
    }

    public static func readSize(_ text: String) -> Reading<Int> {
        let units: [(String, Int)] = [("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30),
                                      ("KB", 1000), ("MB", 1_000_000), ("GB", 1_000_000_000), ("B", 1), ("", 1)]
        for (suffix, factor) in units where text.hasSuffix(suffix) {
            let number = String(text.dropLast(suffix.count))
            guard !number.hasPrefix("-"), isWholeNumber(number) else { return .invalid }
            guard let value = Int(number) else { return .tooLarge }
            let (product, overflow) = value.multipliedReportingOverflow(by: factor)
            return overflow ? .tooLarge : .value(product)
        }
        return .invalid
    }
}
