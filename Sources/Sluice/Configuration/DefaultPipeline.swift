/// The built-in pipeline, compiled in so the binary works when copied anywhere.
/// A test checks that this text is byte-for-byte `pipelines/default.yaml`.
enum DefaultPipeline {
    static let text = #"""
# The built-in pipeline: what `sluice run` does without --pipeline.
# Every valid event goes to one archive destination as canonical NDJSON;
# broken lines go to the rejects with their source, line number and reason.
version: 1
input: {max_line_bytes: 1MiB}
stages: []
destinations:
  archive:
    type: ndjson
    events: ["*"]
    path: "{dest}/{date}/{dest}-{hour}-{seq}.ndjson.gz"
    gzip_level: 6
    rotate: {max_bytes: 64MiB, max_events: 1000000, max_age: 5m}
rejects:
  path: "rejects/{date}/rejects-{seq}.ndjson.gz"

"""#
}
