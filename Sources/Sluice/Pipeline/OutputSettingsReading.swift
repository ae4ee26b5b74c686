/// What destinations and the rejects output share: `path` (a template, or
/// stdout), `rotate`, and the `rejects:` section built from them.
extension PipelineConfiguration {
    mutating func readRejects(_ node: ConfigValue, _ reader: inout ConfigReader) {
        guard let entries = reader.mapping(node, known: ["path", "gzip_level", "rotate", "raw"], what: "rejects") else { return }
        rejects.pathLocation = (node.line, node.column)
        for entry in entries {
            switch entry.key {
            case "path":
                if case .files(let template)? = readPath(entry.value, what: "rejects.path", allowStdout: false, &reader) {
                    rejects.template = template
                }
                rejects.pathLocation = (entry.value.line, entry.value.column)
            case "gzip_level":
                if let value = reader.integer(entry.value, what: "rejects.gzip_level", range: 0...12) { rejects.gzipLevel = value }
            case "rotate":
                if let value = PipelineConfiguration.readRotation(entry.value, base: rejects.rotation, what: "rejects.rotate", &reader) {
                    rejects.rotation = value
                }
            case "raw":
                switch reader.string(entry.value, what: "rejects.raw") {
                case "scrub": rejects.keepRaw = false
                case "keep": rejects.keepRaw = true
                case let other?: reader.error(entry.value, "rejects.raw must be scrub or keep, not '\(other)'")
                case nil: break
                }
            default:
                break
            }
        }
    }

    func readPath(_ node: ConfigValue, what: String, allowStdout: Bool, _ reader: inout ConfigReader) -> OutputTarget? {
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
