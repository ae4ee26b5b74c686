/// Where a destination's records go.
public enum OutputTarget: Sendable, Equatable {
    /// Gzip files under `--out`, named by the template.
    case files(PathTemplate)
    /// Plain NDJSON on stdout (`path: "-"` or `--stdout NAME`).
    case stdout
}

/// `input:` settings.
public struct InputSettings: Sendable {
    /// `max_line_bytes` (default 1MiB, at most 1GiB): longer lines are rejected
    /// `line_too_long`. A line up to this size is held whole, and the parser's
    /// tape keeps 32-bit offsets, hence the ceiling.
    public var maxLineBytes = 1 << 20
    static let maxLineBytesLimit = 1 << 30
}

/// One entry of `destinations:`, resolved.
public struct DestinationSettings {
    public var name: String
    /// `type`: the provider format.
    public var type: DestinationType
    /// `events` (default `["*"]`): names and globs, later entries win.
    public var events: [String]
    /// `path` (default `{dest}/{date}/{dest}-{hour}-{seq}.ndjson.gz`), or `-` for stdout.
    public var target: OutputTarget
    /// `gzip_level` (default 6).
    public var gzipLevel: Int
    /// `rotate: {max_bytes, max_events, max_age}`.
    public var rotation: RotationPolicy
    /// `rename` (default none): event name → the name this destination gets, before its name rules.
    public var rename: [[UInt8]: String] = [:]
    /// `consent_category` (default: the type's, see `DestinationType.defaultConsentCategory`;
    /// `null` for none): the consent category the destination is mapped to. The `privacy`
    /// stage withholds an event from it when the event's `categoryPreferences` deny it.
    public var consentCategory: String?
    /// The configured adapter.
    public var destination: any Destination
}

/// `rejects:` settings.
public struct RejectsSettings: Sendable {
    /// `path` (default `rejects/{date}/rejects-{seq}.ndjson.gz`).
    public var template: PathTemplate
    public var gzipLevel = 6
    public var rotation = RotationPolicy()
}

/// A pipeline file, checked and resolved: what the runner runs.
public struct PipelineConfiguration {
    public static let supportedVersion = 1
    public static let defaultPath = "{dest}/{date}/{dest}-{hour}-{seq}.ndjson.gz"
    public static let defaultRejectsPath = "rejects/{date}/rejects-{seq}.ndjson.gz"

    public var file: String
    public var input = InputSettings()
    public var stages: [any Stage] = []
    public var destinations: [DestinationSettings] = []
    public var rejects = RejectsSettings(template: try! PathTemplate(PipelineConfiguration.defaultRejectsPath))
    /// `tests:` as written: `sluice run` ignores it; `sluice test` and `validate` read it (`testCases()`).
    public var testsNode: ConfigValue?

    /// The built-in pipeline `sluice run` uses without `--pipeline`.
    public static func builtIn() -> PipelineConfiguration {
        // The embedded text is checked by a test to equal pipelines/default.yaml and to load.
        try! load(yaml: DefaultPipeline.text, file: "<built-in default.yaml>")
    }

    /// Reads and checks a pipeline file; every problem is reported at once.
    public static func load(path: String,
                            environment: @escaping @Sendable (String) -> String? = ConfigReader.processEnvironment) throws -> PipelineConfiguration {
        let text: String
        do {
            text = try readFile(path)
        } catch {
            throw ConfigurationError(diagnostics: [ConfigDiagnostic(file: path, line: 1, column: 1, message: "\(error)")])
        }
        return try load(yaml: text, file: path, environment: environment)
    }

    public static func load(yaml: String, file: String,
                            environment: @escaping @Sendable (String) -> String? = ConfigReader.processEnvironment)
        throws(ConfigurationError) -> PipelineConfiguration {
        var reader = ConfigReader(file: file, environment: environment)
        let root: ConfigValue?
        do {
            root = try ConfigValue.parse(yaml: yaml)
        } catch {
            reader.error(line: error.line, column: error.column, "invalid YAML: \(error.problem)")
            throw ConfigurationError(diagnostics: reader.diagnostics)
        }
        guard let root else {
            reader.error(line: 1, column: 1, "the pipeline file is empty; it needs at least `version: 1` and one destination")
            throw ConfigurationError(diagnostics: reader.diagnostics)
        }
        var configuration = PipelineConfiguration(file: file)
        configuration.read(root, &reader)
        if !reader.diagnostics.isEmpty { throw ConfigurationError(diagnostics: reader.diagnostics) }
        return configuration
    }

    private mutating func read(_ root: ConfigValue, _ reader: inout ConfigReader) {
        let known = ["version", "input", "stages", "destinations", "rejects", "tests"]
        guard let entries = reader.mapping(root, known: known, what: "the pipeline file") else { return }
        var sawVersion = false
        var sawDestinations = false
        var destinationsNode: ConfigValue?
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
                destinationsNode = entry.value
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
        checkSharedFiles(destinationsNode: destinationsNode, rejectsNode: rejectsNode, root: root, &reader)
    }

    /// Two outputs whose templates can name the same file would take each
    /// other's names (one run's files interleaved with another's): refused.
    private func checkSharedFiles(destinationsNode: ConfigValue?, rejectsNode: ConfigValue?, root: ConfigValue, _ reader: inout ConfigReader) {
        var outputs: [(what: String, name: String, template: PathTemplate, node: ConfigValue)] = []
        for settings in destinations {
            guard case let .files(template) = settings.target else { continue }
            let node = destinationsNode?.mapping?[settings.name]
            outputs.append(("destination '\(settings.name)'", settings.name, template,
                            node?.mapping?["path"] ?? node ?? destinationsNode ?? root))
        }
        outputs.append(("the rejects output", "rejects", rejects.template,
                        rejectsNode?.mapping?["path"] ?? rejectsNode ?? root))
        for later in outputs.indices {
            for earlier in outputs.indices where earlier < later {
                let (a, b) = (outputs[earlier], outputs[later])
                guard b.template.mayShareFiles(dest: b.name, with: a.template, otherDest: a.name) else { continue }
                reader.error(b.node, "\(b.what) can write the same files as \(a.what) (path \"\(b.template)\" and \"\(a.template)\" "
                    + "can give the same name); give each output its own path, e.g. with {dest}")
            }
        }
    }

    private mutating func readInput(_ node: ConfigValue, _ reader: inout ConfigReader) {
        guard let entries = reader.mapping(node, known: ["max_line_bytes"], what: "input") else { return }
        for entry in entries where entry.key == "max_line_bytes" {
            guard let size = reader.size(entry.value, what: "input.max_line_bytes") else { continue }
            if size > InputSettings.maxLineBytesLimit {
                reader.error(entry.value, "input.max_line_bytes must be at most 1GiB: a line that long is held in memory whole")
            } else {
                input.maxLineBytes = size
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
    }

    private mutating func readDestinations(_ node: ConfigValue, _ reader: inout ConfigReader) {
        guard let mapping = node.mapping else {
            reader.error(node, "destinations must be a mapping of names to destinations")
            return
        }
        if mapping.count == 0 { reader.error(node, "destinations is empty; a pipeline needs at least one") }
        var seen: Set<String> = []
        var stdoutUser: String?
        for (keyNode, value) in mapping {
            guard let name = keyNode.scalar?.text else {
                reader.error(keyNode, "destination names must be plain strings")
                continue
            }
            if !seen.insert(name).inserted {
                reader.error(keyNode, "duplicate destination '\(name)'")
                continue
            }
            if !DestinationName.isValid(name) {
                reader.error(keyNode, "destination name '\(name)' must be 1-64 characters of A-Z, a-z, 0-9, _ and -")
                continue
            }
            if name == "rejects" {
                reader.error(keyNode, "'rejects' is reserved for the rejects output; name the destination otherwise")
                continue
            }
            if let settings = readDestination(name: name, value, &reader) {
                if settings.target == .stdout {
                    if let other = stdoutUser {
                        reader.error(value, "only one destination can write to stdout; '\(other)' already does")
                    }
                    stdoutUser = name
                }
                destinations.append(settings)
            }
        }
    }

    private func readDestination(name: String, _ node: ConfigValue, _ reader: inout ConfigReader) -> DestinationSettings? {
        let common = ["type", "events", "path", "gzip_level", "rotate", "rename", "consent_category"]
        // Find the type first: it decides which other keys are known.
        guard let mapping = node.mapping else {
            reader.error(node, "destination '\(name)' must be a mapping with at least `type:`")
            return nil
        }
        guard let typeNode = mapping["type"], let typeName = typeNode.scalar?.text else {
            reader.error(node, "destination '\(name)' needs `type:` (one of: \(DestinationRegistry.types.map(\.name).joined(separator: ", ")))")
            return nil
        }
        guard let type = DestinationRegistry.type(named: typeName) else {
            reader.error(typeNode, "unknown destination type '\(typeName)'" +
                ConfigReader.suggestion(for: typeName, among: DestinationRegistry.types.map(\.name)) +
                " (available: \(DestinationRegistry.types.map(\.name).joined(separator: ", ")))")
            // Still report misspelt keys, against every key some type takes, so one
            // run of `validate` shows every error of the file.
            _ = reader.mapping(node, known: common + DestinationRegistry.types.flatMap(\.extraKeys), what: "destination '\(name)'")
            return nil
        }
        guard let entries = reader.mapping(node, known: common + type.extraKeys, what: "destination '\(name)'") else { return nil }
        var events = ["*"]
        var target = OutputTarget.files(try! PathTemplate(PipelineConfiguration.defaultPath))
        var level = 6
        var rotation = type.defaultRotation
        var options: [String: ConfigValue] = [:]
        var rename: [[UInt8]: String] = [:]
        var consentCategory = type.defaultConsentCategory
        let errorsBefore = reader.diagnostics.count
        for entry in entries {
            switch entry.key {
            case "type": break
            case "events":
                if let list = reader.strings(entry.value, what: "destinations.\(name).events") {
                    for (pattern, item) in zip(list, entry.value.sequence ?? []) where pattern.isEmpty || pattern == "!" {
                        reader.error(item, "an empty pattern in destinations.\(name).events matches nothing")
                    }
                    events = list
                }
            case "path":
                if let path = readPath(entry.value, what: "destinations.\(name).path", allowStdout: true, &reader) { target = path }
            case "gzip_level":
                if let value = reader.integer(entry.value, what: "destinations.\(name).gzip_level", range: 0...9) { level = value }
            case "rotate":
                if let value = PipelineConfiguration.readRotation(entry.value, base: rotation, what: "destinations.\(name).rotate", &reader) {
                    rotation = value
                }
            case "rename":
                guard let mapping = entry.value.mapping else {
                    reader.error(entry.value, "destinations.\(name).rename must map event names to new names")
                    continue
                }
                for (from, to) in mapping {
                    guard let old = from.scalar?.text, let new = to.scalar?.text, !new.isEmpty else {
                        reader.error(from, "destinations.\(name).rename maps names (strings) to non-empty names")
                        continue
                    }
                    rename[Array(old.utf8)] = new
                }
            case "consent_category":
                if let scalar = entry.value.scalar, ["~", "null", ""].contains(scalar.text), scalar.style == .plain {
                    consentCategory = nil
                } else if let text = reader.string(entry.value, what: "destinations.\(name).consent_category") {
                    consentCategory = text
                }
            default:
                options[entry.key] = entry.value
            }
        }
        guard let destination = type.make(name, options, &reader), reader.diagnostics.count == errorsBefore else { return nil }
        return DestinationSettings(name: name, type: type, events: events, target: target, gzipLevel: level,
                                   rotation: rotation, rename: rename, consentCategory: consentCategory, destination: destination)
    }

    private mutating func readRejects(_ node: ConfigValue, _ reader: inout ConfigReader) {
        guard let entries = reader.mapping(node, known: ["path", "gzip_level", "rotate"], what: "rejects") else { return }
        for entry in entries {
            switch entry.key {
            case "path":
                if case .files(let template)? = readPath(entry.value, what: "rejects.path", allowStdout: false, &reader) {
                    rejects.template = template
                }
            case "gzip_level":
                if let value = reader.integer(entry.value, what: "rejects.gzip_level", range: 0...9) { rejects.gzipLevel = value }
            case "rotate":
                if let value = PipelineConfiguration.readRotation(entry.value, base: rejects.rotation, what: "rejects.rotate", &reader) {
                    rejects.rotation = value
                }
            default:
                break
            }
        }
    }

    private func readPath(_ node: ConfigValue, what: String, allowStdout: Bool, _ reader: inout ConfigReader) -> OutputTarget? {
        guard let text = reader.string(node, what: what) else { return nil }
        if text == "-" {
            if allowStdout { return .stdout }
            reader.error(node, "\(what) cannot be stdout: only records go to stdout")
            return nil
        }
        do {
            let template = try PathTemplate(text)
            if !template.usesSeq {
                reader.error(node, "\(what) must contain {seq}, so rotated files get distinct names")
                return nil
            }
            return .files(template)
        } catch {
            reader.error(node, "\(what): \(error)")
            return nil
        }
    }

    static func readRotation(_ node: ConfigValue, base: RotationPolicy, what: String, _ reader: inout ConfigReader) -> RotationPolicy? {
        guard let entries = reader.mapping(node, known: ["max_bytes", "max_events", "max_age"], what: what) else { return nil }
        var rotation = base
        for entry in entries {
            switch entry.key {
            case "max_bytes":
                if let value = reader.size(entry.value, what: "\(what).max_bytes") { rotation.maxBytes = value }
            case "max_events":
                if let value = reader.integer(entry.value, what: "\(what).max_events", range: 1...Int.max) { rotation.maxEvents = value }
            case "max_age":
                if let value = reader.duration(entry.value, what: "\(what).max_age") {
                    rotation.maxAge = value == .zero ? nil : value
                }
            default:
                break
            }
        }
        return rotation
    }
}

/// Destination names become directory names: keep them to a safe alphabet.
enum DestinationName {
    static func isValid(_ name: String) -> Bool {
        guard (1...64).contains(name.utf8.count) else { return false }
        return name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }
}

/// Reads a whole (small) file as UTF-8.
func readFile(_ path: String) throws -> String {
    String(decoding: try readFileBytes(path), as: UTF8.self)
}

/// Reads a whole (small) file's bytes.
func readFileBytes(_ path: String) throws -> [UInt8] {
    let reader = try FileByteSource.open(path)
    defer { reader.close() }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
        let n = try chunk.withUnsafeMutableBytes { try reader.read(into: $0) }
        if n == 0 { break }
        bytes.append(contentsOf: chunk[..<n])
    }
    return bytes
}
