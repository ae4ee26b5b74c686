/// What `sluice validate --shard` and the start of `sluice run` say about
/// `{shard}` in the output paths:
/// - a sharded run (`--shard`, `SLUICE_SHARD`) with a file path that lacks
///   `{shard}`: an error (`run` exits 78 before reading anything,
///   `validate` exits 78), because the N processes that share `--out` would
///   write the same names: they would take turns for each `{seq}`, so which
///   shard's file got which number would depend on timing, and with
///   `--staging` (or a driver that moves files without replacing) the later
///   shard would be refused at the end, after all its work;
/// - a run without a shard and a path with `{shard}`: a note saying what it
///   becomes (`all`).
extension PipelineConfiguration {
    public func shardLint(shard: ShardID?) -> [LintDiagnostic] {
        var found: [LintDiagnostic] = []
        for output in fileOutputs {
            let path = "\(output.field) \"\(output.template)\""
            if let shard, !output.template.usesShard {
                found.append(LintDiagnostic(
                    file: file, line: output.location.line, column: output.location.column, severity: .error,
                    message: "\(path) has no {shard}: with --shard \(shard), the shards that share --out would write the same names; "
                        + "put {shard} in it, e.g. \"\(output.template.description.replacingAll("{seq}", with: "{shard}-{seq}"))\""))
            } else if shard == nil && output.template.usesShard {
                found.append(LintDiagnostic(
                    file: file, line: output.location.line, column: output.location.column, severity: .note,
                    message: "\(path): {shard} becomes \"\(ShardID.unsharded)\" in a run without --shard "
                        + "(or \(ShardID.environmentVariable))"))
            }
        }
        return found
    }
}
