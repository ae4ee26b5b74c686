extension PipelineConfiguration {
    /// Reads `outputs:` of destination `name` of `type`: a mapping of the type's side output kinds.
    /// `sharded`: the destination's own path has `{shard}` (so have the default side paths).
    func readSideOutputs(_ node: ConfigValue?, name: String, type: DestinationType, gzipLevel: Int, gzipMembers: GzipMembers?, sharded: Bool,
                         at location: (line: Int, column: Int), _ reader: inout ConfigReader) -> [SideOutputSettings] {
        var settings = type.sideOutputs.map { kind in
            SideOutputSettings(kind: kind, template: try! PathTemplate(kind.defaultPath(sharded: sharded)), pathLocation: location,
                               gzipLevel: gzipLevel, rotation: kind.defaultRotation)
        }
        var explicitMembers = [GzipMembers?](repeating: nil, count: settings.count)
        readSideOutputKeys(node, name: name, type: type, into: &settings, members: &explicitMembers, &reader)
        // Known once their `rotate` is read: as they say, else as the destination says, else by their size.
        for index in settings.indices {
            settings[index].gzipMembers = explicitMembers[index] ?? gzipMembers
                ?? GzipMembers.byDefault(sent: type.delivery != nil, rotation: settings[index].rotation)
        }
        return settings
    }

    private func readSideOutputKeys(_ node: ConfigValue?, name: String, type: DestinationType, into settings: inout [SideOutputSettings],
                                    members explicitMembers: inout [GzipMembers?], _ reader: inout ConfigReader) {
        guard let node else { return }
        let what = "destinations.\(name).outputs"
        guard !type.sideOutputs.isEmpty else {
            reader.error(node, "\(what): a destination of type \(type.name) writes no file set besides its events")
            return
        }
        guard let entries = reader.mapping(node, known: type.sideOutputs.map(\.name), what: what) else { return }
        for entry in entries {
            guard let index = type.sideOutputs.firstIndex(where: { $0.name == entry.key }),
                  let keys = reader.mapping(entry.value, known: ["path", "rotate", "gzip_level", "gzip_members"], what: "\(what).\(entry.key)")
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
                case "gzip_members":
                    explicitMembers[index] = PipelineConfiguration.readMembers(key.value, what: field, &reader)
                default:
                    if let value = reader.integer(key.value, what: field, range: 0...12) { settings[index].gzipLevel = value }
                }
            }
        }
    }
}
