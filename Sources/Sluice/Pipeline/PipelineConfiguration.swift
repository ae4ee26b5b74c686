#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pipeline file, checked and resolved: what the runner runs.
public struct PipelineConfiguration {
    public static let supportedVersion = 1
    public static let defaultPath = "{dest}/{date}/{dest}-{hour}-{seq}.ndjson.gz"
    public static let defaultRejectsPath = "rejects/{date}/rejects-{seq}.ndjson.gz"
    /// The most destinations a pipeline may have.
    public static let maxDestinations = 1000
    /// The largest pipeline file read (a plan of thousands of events takes a few MiB).
    public static let maxFileBytes = 16 * 1024 * 1024

    public var file: String
    public var input = InputSettings()
    public var stages: [any Stage] = []
    public var destinations: [DestinationSettings] = []
    public var rejects = RejectsSettings(template: try! PathTemplate(PipelineConfiguration.defaultRejectsPath))
    /// `tests:` as written: `sluice run` ignores it; `sluice test` and `validate` read it (`testCases()`).
    public var testsNode: ConfigValue?
    /// What is allowed but likely not meant, located (`validate` prints them with the lint, `run` logs them).
    public var warnings: [ConfigDiagnostic] = []
    /// The values `${VAR}` references were replaced in, in file order (`validate` shows them, secrets hidden).
    public var substitutions: [EnvironmentSubstitution] = []

    /// The built-in pipeline `sluice run` uses without `--pipeline`.
    public static func builtIn() -> PipelineConfiguration {
        // The embedded text is checked by a test to equal pipelines/default.yaml and to load.
        try! load(yaml: DefaultPipeline.text, file: "<built-in default.yaml>")
    }

    /// Reads and checks a pipeline file; every problem is reported at once.
    public static func load(path: String,
                            environment: @escaping @Sendable (String) -> String? = ConfigReader.processEnvironment) throws -> PipelineConfiguration {
        try load(path: path, environment: environment, awaitReadable: nil)
    }

    /// Reads and checks a pipeline file, waiting for a FIFO's data in
    /// `awaitReadable` (`sluice run`: false once a stop came, and the load
    /// throws `InputStopped`).
    static func load(path: String, environment: @escaping @Sendable (String) -> String? = ConfigReader.processEnvironment,
                     awaitReadable: ((Int32) -> Bool)?) throws -> PipelineConfiguration {
        let text: String
        do {
            text = String(decoding: try readFileBytes(path, limit: maxFileBytes, awaitReadable: awaitReadable), as: UTF8.self)
        } catch let stopped as InputStopped {
            throw stopped
        } catch let error as InputError {
            guard case let .cannotOpen(_, code) = error else {
                throw ConfigurationError(diagnostics: [ConfigDiagnostic(file: path, line: 1, column: 1, message: "\(error)")])
            }
            throw ConfigurationError(diagnostics: [ConfigDiagnostic(file: path, line: 1, column: 1,
                message: "cannot open the pipeline file: \(String(cString: strerror(code)))")])
        } catch {
            throw ConfigurationError(diagnostics: [ConfigDiagnostic(file: path, line: 1, column: 1, message: "\(error)")])
        }
        return try load(yaml: text, file: path, environment: environment)
    }

    public static func load(yaml: String, file: String,
                            environment: @escaping @Sendable (String) -> String? = ConfigReader.processEnvironment)
        throws(ConfigurationError) -> PipelineConfiguration {
        var reader = ConfigReader(file: file, environment: environment)
        let parsed: ConfigValue?
        do {
            parsed = try ConfigValue.parse(yaml: yaml)
        } catch {
            reader.error(line: error.line, column: error.column, "invalid YAML: \(error.problem)")
            throw ConfigurationError(diagnostics: reader.diagnostics)
        }
        guard let written = parsed else {
            reader.error(line: 1, column: 1, "the pipeline file is empty; it needs at least `version: 1` and one destination")
            throw ConfigurationError(diagnostics: reader.diagnostics)
        }
        var configuration = PipelineConfiguration(file: file)
        // ${VAR} first: a value left unresolved would only give the settings' errors after its own.
        let root = written.substitutingEnvironment(&reader, key: "", into: &configuration.substitutions)
        if !reader.diagnostics.isEmpty { throw ConfigurationError(diagnostics: reader.diagnostics) }
        configuration.read(root, &reader)
        if !reader.diagnostics.isEmpty { throw ConfigurationError(diagnostics: reader.diagnostics) }
        configuration.warnings = reader.warnings
        return configuration
    }

    private mutating func read(_ root: ConfigValue, _ reader: inout ConfigReader) {
        let known = ["version", "input", "stages", "destinations", "rejects", "tests"]
        guard let entries = reader.mapping(root, known: known, what: "the pipeline file") else { return }
        var sawVersion = false
        var sawDestinations = false
        var rejectsNode: ConfigValue?
        for entry in entries {
            switch entry.key {
            case "version":
                sawVersion = true
                if let version = reader.integer(entry.value, what: "version", range: Int.min...Int.max),
                   version != PipelineConfiguration.supportedVersion {
                    reader.error(entry.value, "unsupported version \(version); this sluice reads version \(PipelineConfiguration.supportedVersion)")
                }
            case "input":
                readInput(entry.value, &reader)
            case "stages":
                readStages(entry.value, &reader)
            case "destinations":
                sawDestinations = true
                readDestinations(entry.value, &reader)
            case "rejects":
                rejectsNode = entry.value
                readRejects(entry.value, &reader)
            case "tests":
                testsNode = entry.value
            default:
                break
            }
        }
        if !sawVersion { reader.error(root, "missing `version: \(PipelineConfiguration.supportedVersion)`") }
        if !sawDestinations { reader.error(root, "missing `destinations:`; a pipeline needs at least one") }
        checkSharedFiles(&reader)
        if rejects.keepRaw && stages.contains(where: { $0 is any PersonalDataStage }) {
            reader.warning(rejectsNode?.mapping?["raw"] ?? rejectsNode, "rejects keep personal data raw (`rejects: {raw: keep}`): "
                + "rejected lines and their details are written as they came, not scrubbed by the privacy stage")
        }
    }

    /// Two outputs whose templates can name the same file would take each
    /// other's names (one run's files interleaved with another's): refused.
    /// Only pairs whose literal text agrees are compared (`PathTemplateOverlapIndex`),
    /// and after 100 such errors the rest are not looked for.
    private func checkSharedFiles(_ reader: inout ConfigReader) {
        let outputs = fileOutputs
        let atoms = outputs.map { $0.template.nameAtoms(dest: $0.dest) }
        var index = PathTemplateOverlapIndex()
        var found = 0
        for later in outputs.indices {
            for earlier in index.candidates(for: atoms[later]) {
                let (a, b) = (outputs[earlier], outputs[later])
                guard a.template.isAbsolute == b.template.isAbsolute, PathTemplate.intersect(atoms[later], atoms[earlier]) else { continue }
                found += 1
                if found > 100 {
                    reader.error(line: b.location.line, column: b.location.column,
                                 "more outputs can write the same files as others; fix these first")
                    return
                }
                reader.error(line: b.location.line, column: b.location.column,
                             "\(b.label) can write the same files as \(a.label) (path \"\(b.template)\" and \"\(a.template)\" "
                    + "can give the same name); give each output its own path, e.g. with {dest}")
            }
            index.insert(later, atoms: atoms[later])
        }
    }

    private mutating func readInput(_ node: ConfigValue, _ reader: inout ConfigReader) {
        guard let entries = reader.mapping(node, known: ["max_line_bytes", "reorder_buffer"], what: "input") else { return }
        for entry in entries {
            guard let size = reader.size(entry.value, what: "input.\(entry.key)") else { continue }
            switch entry.key {
            case "max_line_bytes":
                if size > InputSettings.maxLineBytesLimit {
                    reader.error(entry.value, "input.max_line_bytes must be at most 1GiB: a line that long is held in memory whole")
                } else {
                    input.maxLineBytes = size
                }
            default:
                input.reorderBufferBytes = size
                input.reorderBufferGiven = true
            }
        }
    }

    private mutating func readStages(_ node: ConfigValue, _ reader: inout ConfigReader) {
        guard let sequence = node.sequence else {
            reader.error(node, "stages must be a list, e.g. `- timed: {}`")
            return
        }
        for item in sequence {
            guard let mapping = item.mapping, mapping.count == 1, let (keyNode, value) = mapping.first,
                  let key = keyNode.scalar?.text
            else {
                reader.error(item, "each stage must be a mapping with one key, the stage's name")
                continue
            }
            guard let type = StageRegistry.type(key: key) else {
                let known = StageRegistry.keys
                reader.error(keyNode, "unknown stage '\(key)'" + (known.isEmpty
                    ? "; this version of sluice has no stages yet"
                    : ConfigReader.suggestion(for: key, among: known) + "; known: " + known.joined(separator: ", ")))
                continue
            }
            if let stage = type.make(value, &reader) { stages.append(stage) }
        }
        // Text a stage takes from events for the stats (the plan's unplanned names) goes through every privacy stage's detectors.
        let scrubbers = stages.compactMap { ($0 as? any PersonalDataStage)?.reportedTextScrubber }
        for index in stages.indices where stages[index] is any ReportedTextStage {
            stages.mutate(index, as: (any ReportedTextStage).self) { $0.scrubReportedText(with: scrubbers) }
        }
    }
}
