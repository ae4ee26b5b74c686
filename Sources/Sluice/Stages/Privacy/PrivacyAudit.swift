/// Where the `privacy` stage found what it changed: hits per rule per field
/// path, for `--stats` (`hits_by_path`). Paths only, never values, and only
/// the labels `AuditLabels` makes from the settings, so their number is bounded
/// by the configuration; `maxPathsPerRule` (then `(other paths)`) is a second guard.
struct PrivacyAudit {
    static let maxPathsPerRule = 1000
    static let overflowPath = "(other paths)"

    /// Rule names, in the stage's rule order.
    private let ruleNames: [String]
    private var counts: [[String: Int]]
    /// Paths known at startup (a rule's literal fields), counted without hashing: rule, path, hits.
    private var fixed: [(rule: Int, path: String, hits: Int)] = []

    init(rules: [String]) {
        ruleNames = rules
        counts = Array(repeating: [:], count: rules.count)
    }

    /// A slot for a path known at startup, for `count(slot:)`.
    mutating func register(rule: Int, path: String) -> Int {
        fixed.append((rule, path, 0))
        return fixed.count - 1
    }

    @inline(__always)
    mutating func count(slot: Int, hits: Int = 1) { fixed[slot].hits += hits }

    mutating func count(rule: Int, path: String, hits: Int = 1) {
        if counts[rule][path] != nil || counts[rule].count < PrivacyAudit.maxPathsPerRule {
            counts[rule][path, default: 0] += hits
        } else {
            counts[rule][PrivacyAudit.overflowPath, default: 0] += hits
        }
    }

    /// The rules that were hit, in rule order, each with its paths.
    var entries: [(rule: String, paths: [(path: String, hits: Int)])] {
        var merged = counts
        for slot in fixed where slot.hits > 0 { merged[slot.rule][slot.path, default: 0] += slot.hits }
        return zip(ruleNames, merged).compactMap { name, paths in
            paths.isEmpty ? nil : (name, paths.map { ($0.key, $0.value) })
        }
    }
}
