/// One finding of `sluice validate`'s lint: something the pipeline would do to
/// planned events that the plan's author likely did not mean, located in the
/// file as a compiler would (`file:line:column: warning: ...`).
public struct LintDiagnostic: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int
    public var severity: LintFinding.Severity
    public var message: String

    public init(file: String = "", line: Int, column: Int, severity: LintFinding.Severity, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.severity = severity
        self.message = message
    }

    public var description: String { "\(file):\(line):\(column): \(severity.rawValue): \(message)" }
}

/// One thing a destination predicts about a planned message.
public struct LintFinding: Sendable, Equatable {
    public enum Severity: String, Sendable, Comparable {
        /// Said for information (what `{shard}` becomes in a run without
        /// `--shard`): `sluice validate` prints it and exits 0, even with `--strict`.
        case note
        /// The message or a property would arrive changed, or not at all by the
        /// destination's own rule (counted, not rejected): `sluice validate` prints it and exits 0.
        case warning
        /// The destination would refuse the message (it would go to the rejects): exit 78.
        case error

        private var rank: Int { self == .note ? 0 : self == .warning ? 1 : 2 }

        public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
    }

    public var severity: Severity
    /// The property it is about (its location is reported), or nil for the message itself.
    public var property: String?
    public var message: String

    public init(_ severity: Severity, property: String? = nil, _ message: String) {
        self.severity = severity
        self.property = property
        self.message = message
    }
}
