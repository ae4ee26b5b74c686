/// An output path with placeholders: `{dest}`, `{shard}` (the run's `--shard`,
/// `all` when it has none), `{date}` (YYYY-MM-DD of event time, UTC), `{hour}`
/// (HH, UTC) and `{seq}` (a file counter, four digits or more).
///
/// Only the destination's name (checked at load time), the shard's name
/// (checked when the run starts) and digits computed from event time are
/// substituted, so no value from an event ever reaches a path.
/// Templates with `..` components are refused so outputs stay under `--out`.
public struct PathTemplate: Sendable, Equatable, CustomStringConvertible {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case dest, shard, date, hour, seq
    }

    let segments: [Segment]
    public let description: String

    public static let placeholders = ["dest", "shard", "date", "hour", "seq"]

    public init(_ text: String) throws(TemplateError) {
        description = text
        if text.isEmpty { throw .empty }
        // A NUL would cut the path short at open(2) while the name it was checked under goes on; no control character belongs in a file name.
        if let control = text.unicodeScalars.first(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw .controlCharacter(control.value)
        }
        var segments: [Segment] = []
        var literal = ""
        var rest = Substring(text)
        while let first = rest.first {
            if first == "{" {
                guard let close = rest.firstIndex(of: "}") else { throw .unclosedBrace }
                let name = String(rest[rest.index(after: rest.startIndex)..<close])
                if !literal.isEmpty { segments.append(.literal(literal)); literal = "" }
                switch name {
                case "dest": segments.append(.dest)
                case "shard": segments.append(.shard)
                case "date": segments.append(.date)
                case "hour": segments.append(.hour)
                case "seq": segments.append(.seq)
                default: throw .unknownPlaceholder(name)
                }
                rest = rest[rest.index(after: close)...]
            } else if first == "}" {
                throw .strayBrace
            } else {
                literal.append(first)
                rest = rest.dropFirst()
            }
        }
        if !literal.isEmpty { segments.append(.literal(literal)) }
        if text.split(separator: "/").contains("..") { throw .parentDirectory }
        if text.hasSuffix("/") { throw .endsWithSlash }
        self.segments = segments
    }

    private init(segments: [Segment], description: String) {
        self.segments = segments
        self.description = description
    }

    public var usesSeq: Bool { segments.contains(.seq) }
    public var usesShard: Bool { segments.contains(.shard) }
    public var isAbsolute: Bool { description.hasPrefix("/") }

    /// The template with `{shard}` filled in: the run's shard, the same for every file it writes.
    func filling(shard: ShardID) -> PathTemplate {
        guard usesShard else { return self }
        let filled = segments.map { $0 == .shard ? .literal(shard.name) : $0 }
        return PathTemplate(segments: filled, description: description)
    }

    /// The path for a destination and an event time, with `{seq}` left in place;
    /// files with the same key are one series of rotated files.
    func key(dest: String, time: EventTime) -> String {
        let utc = time.utc
        var out = ""
        for segment in segments {
            switch segment {
            case .literal(let text): out += text
            case .dest: out += dest
            case .shard: out += ShardID.unsharded.name
            case .date: out += "\(pad(utc.year, 4))-\(pad(utc.month, 2))-\(pad(utc.day, 2))"
            case .hour: out += pad(utc.hour, 2)
            case .seq: out += "{seq}"
            }
        }
        return out
    }

    /// Whether two event times may share a file (same hour bucket → same key).
    static func hourBucket(_ time: EventTime) -> Int64 {
        let hour: Int64 = 3_600_000_000
        return time.microseconds >= 0 ? time.microseconds / hour : (time.microseconds - hour + 1) / hour
    }

    /// Fills `{seq}` in a key.
    static func path(key: String, seq: Int) -> String {
        key.replacingAll("{seq}", with: pad(seq, 4))
    }
}

/// What is wrong with a path template.
public enum TemplateError: Error, Sendable, Equatable, CustomStringConvertible {
    case empty, unclosedBrace, strayBrace, parentDirectory, endsWithSlash
    case unknownPlaceholder(String)
    /// A control character (U+0000 to U+001F, U+007F), by its code.
    case controlCharacter(UInt32)

    public var description: String {
        switch self {
        case .empty: return "the path is empty"
        case .unclosedBrace: return "a `{` has no matching `}`"
        case .strayBrace: return "a `}` has no matching `{`"
        case .parentDirectory: return "the path may not contain `..` (outputs stay under --out)"
        case .endsWithSlash: return "the path names a directory, not a file"
        case .controlCharacter(let code):
            return "the path holds the control character U+\(String(code, radix: 16, uppercase: true).leftPadded(to: 4)), which no file name should"
        case .unknownPlaceholder(let name):
            return "unknown placeholder {\(name)}; known: " + PathTemplate.placeholders.map { "{\($0)}" }.joined(separator: ", ")
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }

    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        result += rest
        return result
    }
}
