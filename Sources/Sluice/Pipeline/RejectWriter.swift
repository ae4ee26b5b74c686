/// Writes reject records to the rejects output: each line the pipeline
/// refused, with the input and line it came from, the part that refused it and why.
///
/// It also keeps the two things every record needs that only the read loop
/// learns: the inputs' names, by `Origin.source` (those restored from a state
/// come first, as their lines may still be held by a stage), and the latest
/// event time seen, which dates the rejects files (deterministic, unlike the
/// wall clock). The runner sets both and saves both in the state.
///
/// Counting the line as rejected is the caller's part: a destination's
/// refusal writes a record here while the line may still be emitted elsewhere.
final class RejectWriter {
    private let output: DestinationOutput
    /// The inputs' names, by `Origin.source`.
    var sourceNames: [String] = []
    /// The latest event time seen so far.
    var latestTime = EventTime.epoch

    init(output: DestinationOutput) {
        self.output = output
    }

    /// Writes one reject record.
    /// - Parameters:
    ///   - stage: `input`, a stage's name, or `destination`.
    ///   - destination: the refusing destination's name, for a destination's refusal.
    ///   - truncatedFrom: the line's whole length when `line` is only its start (a line too long).
    func write<Bytes: Collection>(line: Bytes, origin: Origin, stage: String, destination: String? = nil,
                                  rejection: Rejection, truncatedFrom: Int? = nil) throws where Bytes.Element == UInt8 {
        let record = RejectRecord(source: sourceNames[Int(origin.source)], lineNumber: origin.line, stage: stage,
                                  destination: destination, rejection: rejection, truncatedFrom: truncatedFrom)
        _ = try output.append(time: latestTime) { buffer in
            record.encode(line: line, into: &buffer)
            return 1
        }
    }
}
