extension PipelineConfiguration {
    /// Reads `destinations.NAME.send`; nil (with errors reported) when it is wrong.
    func readSend(_ node: ConfigValue, name: String, type: DestinationType, destinationOptions: [String: ConfigValue],
                  _ reader: inout ConfigReader) -> SendSettings? {
        let what = "destinations.\(name).send"
        guard let support = type.send else {
            let supported = DestinationRegistry.types.filter { $0.send != nil }.map(\.name)
            reader.error(node, "\(what): sluice send does not deliver to \(type.name); it sends to "
                + supported.joined(separator: ", ") + " (leave `send:` out and upload these files yourself, see docs/sending.md)")
            return nil
        }
        guard let mapping = node.mapping else {
            reader.error(node, "\(what) must be a mapping with credentials_env or credentials_file")
            return nil
        }
        var secretFound = false
        for (keyNode, _) in mapping {
            if let key = keyNode.scalar?.text, SendSettings.secretKeys.contains(key) {
                // Never repeat the value: it may be the secret itself.
                reader.error(keyNode, "\(what).\(key): a secret is never written in the pipeline file (the value is not shown); "
                    + "put it in an environment variable named by credentials_env, or in a file named by credentials_file")
                secretFound = true
            }
        }
        let known = SendSettings.commonKeys + support.keys + (secretFound ? SendSettings.secretKeys : [])
        guard let entries = reader.mapping(node, known: known, what: what) else { return nil }
        let errorsBefore = reader.diagnostics.count
        var credentials: SendSettings.Credentials?
        var settings = SendSettings(credentials: .environment(""), region: support.regions[0])
        for entry in entries {
            switch entry.key {
            case "credentials_env":
                guard let variable = reader.string(entry.value, what: "\(what).credentials_env") else { continue }
                if SecretSource.looksLikeKey(variable) {
                    reader.error(entry.value, "\(what).credentials_env looks like a secret, not the name of an environment variable "
                        + "(such as MIXPANEL_SECRET); the value is not shown. Keep secrets out of the pipeline file")
                    secretFound = true
                } else if credentials != nil {
                    reader.error(entry.value, "\(what) takes credentials_env or credentials_file, not both")
                } else {
                    credentials = .environment(variable)
                }
            case "credentials_file":
                guard let path = reader.string(entry.value, what: "\(what).credentials_file") else { continue }
                if credentials != nil {
                    reader.error(entry.value, "\(what) takes credentials_env or credentials_file, not both")
                } else {
                    credentials = .file(path.hasPrefix("/") ? path : reader.fileDirectory + "/" + path)
                }
            case "region":
                guard let region = reader.string(entry.value, what: "\(what).region") else { continue }
                if support.regions.contains(region) {
                    settings.region = region
                } else {
                    reader.error(entry.value, "\(what).region must be one of \(support.regions.joined(separator: ", ")), not '\(region)'")
                }
            case "concurrency":
                if let value = reader.integer(entry.value, what: "\(what).concurrency", range: 1...64) { settings.concurrency = value }
            case "max_requests_per_second":
                if let text = entry.value.scalar?.text, let value = Double(text), value > 0, value.isFinite {
                    settings.maxRequestsPerSecond = value
                } else {
                    reader.error(entry.value, "\(what).max_requests_per_second must be a number above 0")
                }
            case "after_send":
                guard let text = reader.string(entry.value, what: "\(what).after_send") else { continue }
                if let value = SendSettings.AfterSend(rawValue: text) {
                    settings.afterSend = value
                } else {
                    reader.error(entry.value, "\(what).after_send must be keep, move or delete, not '\(text)'")
                }
            default:
                if SendSettings.secretKeys.contains(entry.key) { continue }
                if let text = reader.string(entry.value, what: "\(what).\(entry.key)") { settings.options[entry.key] = text }
            }
        }
        for key in support.destinationKeys {
            if let text = destinationOptions[key]?.scalar?.text { settings.options[key] = text }
        }
        if !support.oneOf.isEmpty && support.oneOf.filter({ settings.options[$0] != nil }).count != 1 {
            reader.error(node, "\(what) needs one of \(support.oneOf.joined(separator: ", ")) for \(type.name)")
        }
        guard let credentials else {
            if !secretFound { reader.error(node, "\(what) needs credentials_env (a variable's name) or credentials_file (a path)") }
            return nil
        }
        settings.credentials = credentials
        return reader.diagnostics.count == errorsBefore && !secretFound ? settings : nil
    }
}
