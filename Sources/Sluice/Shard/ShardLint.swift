/// What `sluice validate --shard` and the start of `sluice run` say about
/// `{shard}` in the output paths:
/// - a sharded run (`--shard`, `SLUICE_SHARD`) with a path that lacks
///   `{shard}`: a warning, because the N processes that share `--out` then
///   write the same names and take turns for each `{seq}` (which shard's file
///   gets which number depends on timing; with `--staging` the later shard's
///   files are refused, exit 73);
/// - a run without a shard and a path with `{shard}`: a note saying what it
///   becomes (`all`).
extension PipelineConfiguration {
    public func shardLint(shard: ShardID?) -> [LintDiagnostic] {
        var found: [LintDiagnostic] = []
        for output in fileOutputs {
            let path = "\(output.field) \"\(output.template)\""
            if let shard, !output.template.usesShard {
                found.append(LintDiagnostic(
                    file: file, line: output.location.line, column: output.location.column, severity: .warning,
                    message: "\(path) has no {shard}: with --shard \(shard), the shards that share --out write the same names, "
                        + "and which one's file gets which {seq} depends on timing (with --staging the later one is refused); "
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
