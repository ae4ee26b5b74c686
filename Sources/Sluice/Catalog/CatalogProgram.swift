import Foundation
import Logging
import SluiceJSON

/// `sluice plan swift|typescript|kotlin` as one library call: the pipeline's plan
/// read, the catalog written (or checked against a file), mapped to an exit status.
public enum CatalogProgram {
    /// The app's language: what the catalog is written in.
    public enum Language: String, Sendable, CaseIterable {
        case swift, typescript, kotlin
    }

    public struct Request: Sendable {
        public var language = Language.swift
        public var pipelinePath: String
        /// `--output`: the file to write; nil writes to stdout.
        public var outputPath: String?
        /// `--check FILE`: exit 1 when FILE was generated from another plan, write nothing.
        public var checkPath: String?
        public var typeName = "AnalyticsEvent"
        public var access = SwiftCatalog.Access.public
        /// Kotlin: the file's `package` (none by default).
        public var packageName: String?

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
        guard let plan = configuration.stages.lazy.compactMap({ ($0 as? any PlanCheckingStage)?.planSettings }).first else {
            logger.error("\(path) has no plan stage: the catalog is generated from `stages: - plan: {events: ...}`")
            return .failure(ExitCode(ExitStatus.config))
        }
        return .success(plan)
    }

    public struct ExitCode: Error { public let status: Int32; init(_ status: Int32) { self.status = status } }

    public static func generate(_ request: Request, logger: Logger, stdout: (String) -> Void) -> Int32 {
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
                logger.error("\(checkPath) has no `\(SwiftCatalog.fingerprintPrefix.trimmingCharacters(in: .whitespaces))` line: not a catalog sluice plan generated")
                return 1
            }
            guard found == plan.fingerprint else {
                logger.error("\(checkPath) is stale: its plan has changed since it was generated; run `sluice plan \(request.language.rawValue) --pipeline \(request.pipelinePath) --output \(checkPath)` again")
                return 1
            }
            return ExitStatus.ok
        }
        let source = (request.pipelinePath as NSString).lastPathComponent
        let text: String
        switch request.language {
        case .swift:
            var catalog = SwiftCatalog(plan: plan, source: source)
            catalog.typeName = request.typeName
            catalog.access = request.access
            text = catalog.generate()
        case .typescript:
            var catalog = TypeScriptCatalog(plan: plan, source: source)
            catalog.typeName = request.typeName
            text = catalog.generate()
        case .kotlin:
            var catalog = KotlinCatalog(plan: plan, source: source)
            catalog.typeName = request.typeName
            catalog.packageName = request.packageName
            text = catalog.generate()
        }
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

    /// `sluice plan infer`: reads every input line (files, directories, gzip, `-` for stdin),
    /// writes the draft plan; 0, 65 a corrupt gzip input (its lines up to the damage are
    /// read), 66 an input cannot be opened, 73 the output cannot be written, 74 a read error.
    public static func infer(inputs given: [String], output: String?, options: PlanInference.Options,
                             logger: Logger, stdout: (String) -> Void) -> Int32 {
        var inference = PlanInference(options: options)
        let scratch = JSONParseScratch()
        var status = ExitStatus.ok
        do {
            try InputList.forEachLine(of: given, maxLineBytes: InputSettings().maxLineBytes, failed: { error in
                logger.error("\(error)")
                status = max(status, ExitStatus.forInputError(error))
            }) { _, line in
                if case let .line(bytes, _) = line, !LineReader.isBlank(bytes) { inference.add(line: bytes, scratch: scratch) }
            }
        } catch {
            logger.error("\(error)")
            return ExitStatus.ioError
        }
        if status == ExitStatus.noInput { return status }
        let source = given.isEmpty ? "stdin" : given.map { ($0 as NSString).lastPathComponent }.joined(separator: ", ")
        let text = inference.yaml(source: source)
        if let output {
            do { try AtomicFile.write(text, to: output) } catch {
                logger.error("\(error)")
                return ExitStatus.cannotCreate
            }
        } else {
            stdout(text)
        }
        return status
    }
}

