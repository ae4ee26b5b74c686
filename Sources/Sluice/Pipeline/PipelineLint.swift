import Foundation
extension PipelineConfiguration {
    /// The settings' warnings and every stage's lint against the destinations, in file order. Errors
    /// (a destination would refuse a planned event) make `validate` exit 78;
    /// warnings (it would rename, flatten or leave out something) do not, unless `--strict`.
    public func lint() -> [LintDiagnostic] {
        let settings = warnings.map {
            LintDiagnostic(file: file, line: $0.line, column: $0.column, severity: .warning, message: $0.message)
        }
        // The app's catalogs generated from the plan (`catalogs:`), relative to the pipeline file.
        let directory = (file as NSString).deletingLastPathComponent
        let catalogs = stages.flatMap { ($0 as? any PlanCheckingStage)?.planSettings.catalogFindings(relativeTo: directory) ?? [] }
            .map { diagnostic -> LintDiagnostic in
                var diagnostic = diagnostic
                diagnostic.file = file
                return diagnostic
            }
        let found = settings + catalogs + stages.flatMap { ($0 as? any DestinationLintingStage)?.lint(destinations: destinations) ?? [] }.map { diagnostic -> LintDiagnostic in
            var diagnostic = diagnostic
            diagnostic.file = file
            return diagnostic
        }
        return found.enumerated().sorted {
            ($0.element.line, $0.element.column, $0.offset) < ($1.element.line, $1.element.column, $1.offset)
        }.map(\.element)
    }
}
