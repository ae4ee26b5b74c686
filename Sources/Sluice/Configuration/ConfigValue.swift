/// A value of the pipeline file as written, with where it was written: what
/// the configuration, the stages and the destinations read their settings
/// from (`ConfigReader` reports problems at its `line:column`).
///
/// A tree of scalars, mappings (in file order, each key a value with its own
/// location) and sequences. A null (`~`, `null`, nothing) is a scalar whose tag
/// is `.null`: settings that take `~` for "none" check `isNull`, and those that
/// read text read its text, as written. Read from YAML once, by
/// `ConfigValue.parse(yaml:)`.
public struct ConfigValue: Sendable {
    public enum Content: Sendable {
        case scalar(Scalar)
        case mapping(ConfigMapping)
        case sequence([ConfigValue])
    }

    public var content: Content
    /// Where the value starts in the file, 1-based; the column counts Unicode scalars.
    public var line: Int
    public var column: Int

    public init(_ content: Content, line: Int, column: Int) {
        self.content = content
        self.line = line
        self.column = column
    }

    /// A scalar: its text, how it was written, and what YAML reads it as.
    public struct Scalar: Sendable {
        public var text: String
        public var style: Style
        public var tag: Tag

        public init(_ text: String, style: Style = .plain, tag: Tag = .string) {
            self.text = text
            self.style = style
            self.tag = tag
        }

        /// Null as YAML reads it: plain `~`, `null` or nothing (or tagged `!!null`).
        public var isNull: Bool { tag == .null }
    }

    /// How a scalar was written.
    public enum Style: Sendable, Equatable {
        case plain, singleQuoted, doubleQuoted, literal, folded
    }

    /// What YAML 1.1 reads a scalar as: from its tag when it has one, else
    /// from its text when plain (`5` an integer, `yes` a boolean, `~` null),
    /// else a string.
    public enum Tag: Sendable, Equatable, CustomStringConvertible {
        case string, null, boolean, integer, float
        /// Any other tag: a local one as written (`!absent`), or a YAML type
        /// Sluice does not read (`tag:yaml.org,2002:timestamp`).
        case other(String)

        public var description: String {
            switch self {
            case .string: "tag:yaml.org,2002:str"
            case .null: "tag:yaml.org,2002:null"
            case .boolean: "tag:yaml.org,2002:bool"
            case .integer: "tag:yaml.org,2002:int"
            case .float: "tag:yaml.org,2002:float"
            case .other(let name): name
            }
        }
    }

    public var scalar: Scalar? {
        if case .scalar(let scalar) = content { return scalar }
        return nil
    }

    public var mapping: ConfigMapping? {
        if case .mapping(let mapping) = content { return mapping }
        return nil
    }

    public var sequence: [ConfigValue]? {
        if case .sequence(let items) = content { return items }
        return nil
    }
}

/// A mapping's entries in file order. YAML refuses a key written twice; keys
/// it tells apart but Sluice reads as one text (`5` and `"5"`) are both kept,
/// and `ConfigReader.mapping` reports them.
public struct ConfigMapping: Sendable, RandomAccessCollection {
    public typealias Element = (key: ConfigValue, value: ConfigValue)
    public var entries: [Element]

    public init(_ entries: [Element]) { self.entries = entries }

    public var startIndex: Int { entries.startIndex }
    public var endIndex: Int { entries.endIndex }
    public subscript(position: Int) -> Element { entries[position] }

    /// The value of the last key that is `key` as YAML reads a plain `key`
    /// (text and tag alike: `"5"` is not the key `5`), or nil.
    public subscript(key: String) -> ConfigValue? {
        let tag = ConfigValue.plainTag(of: key)
        return entries.last { $0.key.scalar.map { $0.text == key && $0.tag == tag } ?? false }?.value
    }
}
