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

    /// The single document of `yaml`, or nil when there is none (an empty text).
    public static func parse(yaml: String) throws(SyntaxError) -> ConfigValue? {
        do {
            return try Yams.compose(yaml: yaml).map(ConfigValue.init(composed:))
        } catch {
            let mark = yamlErrorMark(error)
            throw SyntaxError(line: mark?.line ?? 1, column: mark?.column ?? 1, problem: yamlErrorProblem(error))
        }
    }

    /// Converts a tree from `Yams.compose`, which has already replaced every
    /// alias with the node it names (and so gives every node a mark).
    private init(composed node: Node) {
        let mark = node.mark
        let content: Content
        switch node {
        case .scalar(let scalar):
            content = .scalar(Scalar(scalar.string, style: Style(scalar.style), tag: Tag(node.tag)))
        case .mapping(let mapping):
            content = .mapping(ConfigMapping(mapping.map { (ConfigValue(composed: $0.key), ConfigValue(composed: $0.value)) }))
        case .sequence(let sequence):
            content = .sequence(sequence.map(ConfigValue.init(composed:)))
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
    default: return nil
    }
}

private func yamlErrorProblem(_ error: Error) -> String {
    guard let yamlError = error as? YamlError else { return "\(error)" }
    switch yamlError {
    case let .scanner(_, problem, _, _), let .parser(_, problem, _, _), let .composer(_, problem, _, _): return problem
    default: return "\(yamlError)"
    }
}
