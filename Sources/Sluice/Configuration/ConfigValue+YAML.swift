import Yams

/// The one place YAML is read: text to a `ConfigValue` tree (Yams composes,
/// this converts), and the tag YAML gives a plain scalar.
extension ConfigValue {
    /// Where and why a text is not YAML.
    public struct SyntaxError: Error, Sendable {
        public var line: Int
        public var column: Int
        public var problem: String
    }

    /// How many values a pipeline file may hold once its aliases are
    /// expanded: far more than any real file (a plan of 2,000 events with 20
    /// properties each is about 100,000), far less than an alias bomb's
    /// billions, which would take all memory.
    public static let maxValues = 1_000_000

    /// How many bytes a pipeline file may stand for once its aliases are
    /// expanded: its scalars' text (keys included) plus one byte per value.
    /// Counting values alone let an alias of a long scalar, repeated, stand
    /// for gigabytes within `maxValues` (each later step, the lint and `tests:`
    /// cases, copies what it reads). Twice the largest file
    /// (`PipelineConfiguration.maxFileBytes`): a file without aliases never
    /// comes near it.
    public static let maxExpandedBytes = 32 * 1024 * 1024

    /// What a document has used of `maxValues` and `maxExpandedBytes` so far.
    private struct ExpansionBudget {
        var values = 0
        var bytes = 0
    }

    /// The single document of `yaml`, or nil when there is none (an empty text).
    public static func parse(yaml: String) throws(SyntaxError) -> ConfigValue? {
        let composed: Node?
        do {
            composed = try Yams.compose(yaml: yaml)
        } catch {
            let mark = yamlErrorMark(error)
            throw SyntaxError(line: mark?.line ?? 1, column: mark?.column ?? 1, problem: yamlErrorProblem(error))
        }
        guard let composed else { return nil }
        var budget = ExpansionBudget()
        return try ConfigValue(composed: composed, budget: &budget)
    }

    /// Converts a tree from `Yams.compose`, which has already replaced every
    /// alias with the node it names (and so gives every node a mark; an alias
    /// shares its node, so the tree is small until it is expanded here, value by
    /// value, within `budget`).
    private init(composed node: Node, budget: inout ExpansionBudget) throws(SyntaxError) {
        let mark = node.mark
        budget.values += 1
        budget.bytes += 1
        if case .scalar(let scalar) = node { budget.bytes += scalar.string.utf8.count }
        if budget.values > ConfigValue.maxValues {
            throw SyntaxError(line: mark?.line ?? 1, column: mark?.column ?? 1,
                              problem: "the file holds more than \(ConfigValue.maxValues) values once its aliases (*name) are expanded; "
                                  + "an alias of an alias of an alias multiplies them: write the values out, or alias less")
        }
        if budget.bytes > ConfigValue.maxExpandedBytes {
            throw SyntaxError(line: mark?.line ?? 1, column: mark?.column ?? 1,
                              problem: "the file stands for more than \(ConfigValue.maxExpandedBytes / (1024 * 1024)) MiB "
                                  + "(\(ConfigValue.maxExpandedBytes) bytes of text) once its aliases (*name) are expanded; "
                                  + "an alias of a long value, repeated, multiplies it: write the values out, or alias less")
        }
        let content: Content
        switch node {
        case .scalar(let scalar):
            content = .scalar(Scalar(scalar.string, style: Style(scalar.style), tag: Tag(node.tag)))
        case .mapping(let mapping):
            var pairs: [(ConfigValue, ConfigValue)] = []
            for pair in mapping {
                pairs.append((try ConfigValue(composed: pair.key, budget: &budget), try ConfigValue(composed: pair.value, budget: &budget)))
            }
            content = .mapping(ConfigMapping(pairs))
        case .sequence(let sequence):
            var values: [ConfigValue] = []
            for element in sequence { values.append(try ConfigValue(composed: element, budget: &budget)) }
            content = .sequence(values)
        case .alias:
            preconditionFailure("Yams.compose resolves aliases")
        }
        self.init(content, line: mark?.line ?? 1, column: mark?.column ?? 1)
    }

    /// The tag YAML gives `text` written as a plain scalar (`5` an integer, `~` null, `type` a string).
    static func plainTag(of text: String) -> Tag {
        Tag(Node(text).tag)
    }
}

extension ConfigValue.Style {
    fileprivate init(_ style: Node.Scalar.Style) {
        switch style {
        case .singleQuoted: self = .singleQuoted
        case .doubleQuoted: self = .doubleQuoted
        case .literal: self = .literal
        case .folded: self = .folded
        case .any, .plain: self = .plain
        }
    }
}

extension ConfigValue.Tag {
    fileprivate init(_ tag: Yams.Tag) {
        switch tag.description {
        case Yams.Tag.Name.str.rawValue: self = .string
        case Yams.Tag.Name.null.rawValue: self = .null
        case Yams.Tag.Name.bool.rawValue: self = .boolean
        case Yams.Tag.Name.int.rawValue: self = .integer
        case Yams.Tag.Name.float.rawValue: self = .float
        case let name: self = .other(name)
        }
    }
}

private func yamlErrorMark(_ error: Error) -> Mark? {
    guard let yamlError = error as? YamlError else { return nil }
    switch yamlError {
    case let .scanner(_, _, mark, _), let .parser(_, _, mark, _), let .composer(_, _, mark, _): return mark
    case let .duplicatedKeysInMapping(_, context): return context.mark
    default: return nil
    }
}

private func yamlErrorProblem(_ error: Error) -> String {
    guard let yamlError = error as? YamlError else { return "\(error)" }
    switch yamlError {
    case let .scanner(_, problem, _, _), let .parser(_, problem, _, _), let .composer(_, problem, _, _): return problem
    case let .duplicatedKeysInMapping(duplicates, _):
        // Yams' own text runs over several lines (it quotes the document); one diagnostic is one line.
        let keys = duplicates.sorted().map { "'\($0)'" }.joined(separator: ", ")
        return "the mapping that starts here has the key \(keys) more than once; each key may appear once"
    default:
        return "\(yamlError)".split(separator: "\n").first.map(String.init) ?? "\(yamlError)"
    }
}
