import Foundation
import Logging

/// `sluice plan swift` as one library call: the pipeline's plan read, the
/// catalog written (or checked against a file), mapped to an exit status.
public enum CatalogProgram {
    public struct Request: Sendable {
        public var pipelinePath: String
        /// `--output`: the file to write; nil writes to stdout.
        public var outputPath: String?
        /// `--check FILE`: exit 1 when FILE was generated from another plan, write nothing.
        public var checkPath: String?
        public var typeName = "AnalyticsEvent"
        public var access = SwiftCatalog.Access.public

        public init(pipelinePath: String) { self.pipelinePath = pipelinePath }
    }

    /// The plan stage's settings of the pipeline at `path`, or the exit status and message of why not.
    public static func loadPlan(_ path: String, logger: Logger) -> Result<PlanSettings, ExitCode> {
        let configuration: PipelineConfiguration
        do {
            configuration = try PipelineConfiguration.load(path: path)
        } catch let error as ConfigurationError {
            for line in error.description.split(separator: "\n") { logger.error("\(line)") }
            return .failure(ExitCode(ExitStatus.config))
        } catch {
            logger.error("\(error)")
            return .failure(ExitCode(ExitStatus.config))
        }
        guard let plan = configuration.stages.lazy.compactMap({ $0 as? TrackingPlan }).first else {
            logger.error("\(path) has no plan stage: the catalog is generated from `stages: - plan: {events: ...}`")
            return .failure(ExitCode(ExitStatus.config))
        }
        return .success(plan.settings)
    }

    public struct ExitCode: Error { public let status: Int32; init(_ status: Int32) { self.status = status } }

    public static func swift(_ request: Request, logger: Logger, stdout: (String) -> Void) -> Int32 {
        let plan: PlanSettings
        switch loadPlan(request.pipelinePath, logger: logger) {
        case .failure(let code): return code.status
        case .success(let settings): plan = settings
        }
        if let checkPath = request.checkPath {
            guard let text = try? String(contentsOfFile: checkPath, encoding: .utf8) else {
                logger.error("cannot read \(checkPath), the generated catalog to check")
                return ExitStatus.noInput
            }
            guard let found = SwiftCatalog.fingerprint(in: text) else {
                logger.error("\(checkPath) has no `\(SwiftCatalog.fingerprintPrefix.trimmingCharacters(in: .whitespaces))` line: not a catalog sluice plan swift generated")
                return 1
            }
            guard found == plan.fingerprint else {
                logger.error("\(checkPath) is stale: its plan has changed since it was generated; run `sluice plan swift --pipeline \(request.pipelinePath) --output \(checkPath)` again")
                return 1
            }
            return ExitStatus.ok
        }
        var catalog = SwiftCatalog(plan: plan, source: (request.pipelinePath as NSString).lastPathComponent)
        catalog.typeName = request.typeName
        catalog.access = request.access
        let text = catalog.generate()
        guard let outputPath = request.outputPath else {
            stdout(text)
            return ExitStatus.ok
        }
        do {
            try AtomicFile.write(text, to: outputPath)
        } catch {
            logger.error("\(error)")
            return ExitStatus.cannotCreate
        }
        return ExitStatus.ok
    }
}
