/// Writes reject records to the rejects output: each line the pipeline
/// refused, with the input and line it came from, the part that refused it and why.
///
/// It also keeps the two things every record needs that only the read loop
/// learns: the inputs' names, by `Origin.source` (those restored from a state
/// come first, as their lines may still be held by a stage), and the latest
/// event time seen, which dates the rejects files (deterministic, unlike the
/// wall clock). The runner sets both and saves both in the state.
///
/// With a `privacy` stage in the pipeline, a line rejected before it (by the
/// input or an earlier stage) and its detail go through the stage's
/// `RejectScrubber` before they are written (unless `rejects: {raw: keep}`):
/// the stage never saw the line.
///
/// Counting the line as rejected is the caller's part: a destination's
/// refusal writes a record here while the line may still be emitted elsewhere.
final class RejectWriter {
    private let output: DestinationOutput
    /// The pipeline's reject scrubbers with the index of the stage each belongs to, in stage order;
    /// none: lines are written as they came.
    private let scrubbers: [(stage: Int, scrubber: any RejectScrubber)]
    /// The inputs' names, by `Origin.source`.
    @exclusivity(unchecked) var sourceNames: [String] = []
    /// The latest event time seen so far.
    @exclusivity(unchecked) var latestTime = EventTime.epoch
    /// Reject records handed to the rejects output so far.
    @exclusivity(unchecked) private(set) var records = 0

    init(output: DestinationOutput, scrubbers: [(stage: Int, scrubber: any RejectScrubber)] = []) {
        self.output = output
        self.scrubbers = scrubbers
    }

    /// Writes one reject record, scrubbed by each scrubber whose stage the line had not passed yet.
    /// - Parameters:
    ///   - stage: `input`, a stage's name, or `destination`.
    ///   - stageIndex: the rejecting stage's index, for a stage's reject (the line passed the stages before it).
    ///   - destination: the refusing destination's name, for a destination's refusal (the line passed every stage).
    ///   - truncatedFrom: the line's whole length when `line` is only its start (a line too long).
    @inline(never)
    func write<Bytes: Collection>(line: Bytes, origin: Origin, stage: String, stageIndex: Int? = nil, destination: String? = nil,
                                  rejection: Rejection, truncatedFrom: Int? = nil) throws where Bytes.Element == UInt8 {
        let record = RejectRecord(source: sourceNames[Int(origin.source)], lineNumber: origin.line, stage: stage,
                                  destination: destination, rejection: rejection, truncatedFrom: truncatedFrom)
        // The stages the line went through: none for the input's rejects, every one for a refusal.
        let passed = destination != nil ? Int.max : stageIndex ?? -1
        if let last = scrubbers.last, last.stage > passed {
            try appendScrubbed(record, line: Array(line), passed: passed)
        } else {
            try append(record, line: line)
        }
    }

    /// Kept out of line: the callers (the read loop, the fan-out) stay as small as without scrubbers.
    /// A line that passed a scrubber's stage was scrubbed there already (a pseudonym is not hashed twice).
    @inline(never)
    private func appendScrubbed(_ record: RejectRecord, line: [UInt8], passed: Int) throws {
        var record = record
        var line = line
        for (stage, scrubber) in scrubbers where stage > passed {
            _ = scrubber.scrub(line: &line, detail: &record.rejection.detail, truncated: record.truncatedFrom != nil)
        }
        try append(record, line: line)
    }

    private func append<Bytes: Collection>(_ record: RejectRecord, line: Bytes) throws where Bytes.Element == UInt8 {
        records += 1
        _ = try output.append(time: latestTime) { buffer in
            record.encode(line: line, into: &buffer)
            return 1
        }
    }
}
