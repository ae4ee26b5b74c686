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

extension PipelineConfiguration {
    /// The settings' warnings and every stage's lint against the destinations, in file order. Errors
    /// (a destination would refuse a planned event) make `validate` exit 78;
    /// warnings (it would rename, flatten or leave out something) do not, unless `--strict`.
    public func lint() -> [LintDiagnostic] {
        let settings = warnings.map {
            LintDiagnostic(file: file, line: $0.line, column: $0.column, severity: .warning, message: $0.message)
        }
        let found = settings + stages.flatMap { ($0 as? any DestinationLintingStage)?.lint(destinations: destinations) ?? [] }.map { diagnostic -> LintDiagnostic in
            var diagnostic = diagnostic
            diagnostic.file = file
            return diagnostic
        }
        return found.enumerated().sorted {
            ($0.element.line, $0.element.column, $0.offset) < ($1.element.line, $1.element.column, $1.offset)
        }.map(\.element)
    }
}
