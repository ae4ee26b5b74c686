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
# `sluice test pipelines/default.yaml` runs these; `sluice run` ignores them.
tests:
  - name: a valid event reaches the archive as it came, numbers and all
    input:
      - {type: track, event: movie_tapped, anonymousId: d1, messageId: m1, timestamp: "2026-11-20T09:00:00Z",
         properties: {movie_id: 9223372036854775808, rating: 4.50, slug: "007"}}
    expect:
      archive:
        - {type: track, event: movie_tapped, messageId: m1,
           properties: {movie_id: 9223372036854775808, rating: 4.50, slug: "007"}}
      rejects: []
  - name: broken lines go to the rejects with their reason and line number
    input:
      - 'not json'
      - '{"type":"track","event":"x","timestamp":"2026-11-20T09:00:00Z"}'
      - {type: track, event: movie_tapped, anonymousId: d1}
      - {type: track, anonymousId: d1, timestamp: "2026-11-20T09:00:00Z"}
    expect:
      archive: []
      rejects:
        - {stage: input, reason: invalid_json, line_number: 1, line: not json}
        - missing_identity
        - missing_timestamp
        - missing_event_name
    counts: {lines_in: 4, emitted: 0, rejected: 4}

"""#
}
