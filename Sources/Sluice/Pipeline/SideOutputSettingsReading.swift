extension PipelineConfiguration {
    /// Reads `outputs:` of destination `name` of `type`: a mapping of the type's side output kinds.
    /// `sharded`: the destination's own path has `{shard}` (so have the default side paths).
    func readSideOutputs(_ node: ConfigValue?, name: String, type: DestinationType, gzipLevel: Int, sharded: Bool,
                         at location: (line: Int, column: Int), _ reader: inout ConfigReader) -> [SideOutputSettings] {
        var settings = type.sideOutputs.map { kind in
            SideOutputSettings(kind: kind, template: try! PathTemplate(kind.defaultPath(sharded: sharded)), pathLocation: location,
                               gzipLevel: gzipLevel, rotation: kind.defaultRotation)
        }
        guard let node else { return settings }
        let what = "destinations.\(name).outputs"
        guard !type.sideOutputs.isEmpty else {
            reader.error(node, "\(what): a destination of type \(type.name) writes no file set besides its events")
            return settings
        }
        guard let entries = reader.mapping(node, known: type.sideOutputs.map(\.name), what: what) else { return settings }
        for entry in entries {
            guard let index = type.sideOutputs.firstIndex(where: { $0.name == entry.key }),
                  let keys = reader.mapping(entry.value, known: ["path", "rotate", "gzip_level"], what: "\(what).\(entry.key)")
            else { continue }
            for key in keys {
                let field = "\(what).\(entry.key).\(key.key)"
                switch key.key {
                case "path":
                    // A side output writes files: stdout is its destination's events' alone.
                    if case .files(let template)? = readPath(key.value, what: field, allowStdout: false, &reader) {
                        settings[index].template = template
                    }
                    settings[index].pathLocation = (key.value.line, key.value.column)
                case "rotate":
                    if let value = PipelineConfiguration.readRotation(key.value, base: settings[index].rotation, what: field, &reader) {
                        settings[index].rotation = value
                    }
                default:
                    if let value = reader.integer(key.value, what: field, range: 0...9) { settings[index].gzipLevel = value }
                }
            }
        }
        return settings
    }
}
