/// `destinations:`: each entry checked against its type's keys and built into a configured adapter.
extension PipelineConfiguration {
    mutating func readDestinations(_ node: ConfigValue, _ reader: inout ConfigReader) {
        guard let mapping = node.mapping else {
            reader.error(node, "destinations must be a mapping of names to destinations")
            return
        }
        if mapping.count == 0 { reader.error(node, "destinations is empty; a pipeline needs at least one") }
        if mapping.count > PipelineConfiguration.maxDestinations {
            // Each is a compression thread with its buffers: past a few thousand, memory runs out
            // where Swift can only abort, so the limit is said here, with the file's location.
            reader.error(node, "\(mapping.count) destinations; a pipeline has at most \(PipelineConfiguration.maxDestinations) "
                + "(each is a compression thread and its buffers): split it into several pipelines")
            return
        }
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
            if !PathSafeName.isValid(name) {
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

    func readDestination(name: String, _ node: ConfigValue, _ reader: inout ConfigReader) -> DestinationSettings? {
        let common = ["type", "events", "path", "gzip_level", "rotate", "rename", "consent_category", "outputs", "send", "gzip_members"]
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
        var pathLocation = (line: node.line, column: node.column)
        var level = 6
        var members: GzipMembers?
        var rotation = type.defaultRotation
        var options: [String: ConfigValue] = [:]
        var rename: [[UInt8]: String] = [:]
        var consentCategory = type.defaultConsentCategory
        var outputsNode: ConfigValue?
        var sendNode: ConfigValue?
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
                pathLocation = (entry.value.line, entry.value.column)
            case "gzip_level":
                if let value = reader.integer(entry.value, what: "destinations.\(name).gzip_level", range: 0...12) { level = value }
            case "gzip_members":
                members = PipelineConfiguration.readMembers(entry.value, what: "destinations.\(name).gzip_members", &reader)
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
            case "outputs":
                outputsNode = entry.value
            case "send":
                sendNode = entry.value
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
        var sharded = false
        if case let .files(template) = target { sharded = template.usesShard }
        let sideOutputs = readSideOutputs(outputsNode, name: name, type: type, gzipLevel: level, gzipMembers: members, sharded: sharded,
                                          at: (node.line, node.column), &reader)
        let send = sendNode.flatMap { readSend($0, name: name, type: type, destinationOptions: options, &reader) }
        guard let destination = type.make(name, options, &reader), reader.diagnostics.count == errorsBefore else { return nil }
        return DestinationSettings(name: name, type: type, events: events, target: target, pathLocation: pathLocation,
                                   gzipLevel: level, rotation: rotation, rename: rename, consentCategory: consentCategory,
                                   destination: destination, sideOutputs: sideOutputs, send: send,
                                   gzipMembers: members ?? GzipMembers.byDefault(sent: type.delivery != nil, rotation: rotation))
    }

    /// `gzip_members: blocks | file`.
    static func readMembers(_ node: ConfigValue, what: String, _ reader: inout ConfigReader) -> GzipMembers? {
        guard let text = reader.string(node, what: what) else { return nil }
        guard let members = GzipMembers(rawValue: text) else {
            reader.error(node, "\(what) is `blocks` (a gzip member per block of records) or `file` (one member per file), not '\(text)'")
            return nil
        }
        return members
    }
}
