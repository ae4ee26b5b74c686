/// One output of the pipeline that writes files: a destination's events
/// (unless they go to stdout), one of its side outputs, or the rejects. The
/// checks on paths go through the list of them: two outputs that can name the
/// same file, `{shard}` in a sharded run, relative paths for `--staging`.
struct FileOutput {
    /// The setting, as messages name it: `destinations.mixpanel.path`,
    /// `destinations.mixpanel.outputs.profiles.path`, `rejects.path`.
    var field: String
    /// In a sentence: `destination 'mixpanel'`, `the profiles of destination 'mixpanel'`, `the rejects output`.
    var label: String
    /// What `{dest}` becomes in its paths.
    var dest: String
    var template: PathTemplate
    /// Where its path is set in the file (or where the output is, for a default path).
    var location: (line: Int, column: Int)
}

extension PipelineConfiguration {
    /// What the file outputs' buffers may take in a run on this machine (`sluice validate` says it).
    public var outputBudget: OutputBudget { OutputBudget(fileOutputs: fileOutputs.count) }

    /// Every output that writes files, in the order of the file: each
    /// destination's events, then its side outputs; the rejects last.
    var fileOutputs: [FileOutput] {
        var outputs: [FileOutput] = []
        for settings in destinations {
            if case let .files(template) = settings.target {
                outputs.append(FileOutput(field: "destinations.\(settings.name).path", label: "destination '\(settings.name)'",
                                          dest: settings.name, template: template, location: settings.pathLocation))
            }
            for side in settings.sideOutputs {
                outputs.append(FileOutput(field: "destinations.\(settings.name).outputs.\(side.kind.name).path",
                                          label: "the \(side.kind.name) of destination '\(settings.name)'",
                                          dest: settings.name, template: side.template, location: side.pathLocation))
            }
        }
        outputs.append(FileOutput(field: "rejects.path", label: "the rejects output", dest: "rejects",
                                  template: rejects.template, location: rejects.pathLocation))
        return outputs
    }
}
