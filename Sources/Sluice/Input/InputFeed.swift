/// Where the runner gets its lines: the inputs one after another
/// (`ConcatenatedInputs`), or merged in event time (`EventTimeMerge`). The
/// runner only asks for the next record and tells it when to stop.
///
/// A feed never calls the runner: when one of its reads pauses for the run's
/// housekeeping (`ReadPacing`), `next` returns `.paused`, the runner does it
/// and asks again, and the feed goes on where it stood.
protocol InputFeed: AnyObject {
    /// Every input of the run, in the order given (those not reached yet included).
    var inputs: [InputLines] { get }
    /// The next line, decoded, or `.paused`; nil once every input is done (or
    /// the feed was stopped and has let out all it held). An input error ends that input
    /// and is thrown; the next call goes on with the other inputs.
    func next() throws -> InputRecord?
    /// Reading must stop. `drainRead`: the run was asked to stop (SIGTERM,
    /// SIGINT) and every read(2) now returns at once, so what was read already
    /// is still returned (a line cut in two as `cut_by_shutdown`); otherwise
    /// (stdout's reader went away) nothing more of any input is returned.
    /// Lines the feed holds are returned either way.
    func stop(drainRead: Bool)
}

/// The inputs read one after another, in the order given (`--concat`, and
/// any run of one input): each line goes on as soon as it is read.
final class ConcatenatedInputs: InputFeed {
    let inputs: [InputLines]
    /// The same, asked for each line without a retain (`inputs` keeps them).
    private let unretained: [Unretained<InputLines>]
    @exclusivity(unchecked) private var current = 0
    /// Looked at before an input is begun: once reading must stop
    /// (`readingStopped`), a stop that comes while one input ends keeps the next from being opened.
    private let pacing: ReadPacing?

    init(_ inputs: [InputLines], pacing: ReadPacing? = nil) {
        self.inputs = inputs
        unretained = inputs.map(Unretained.init)
        self.pacing = pacing
    }

    func next() throws -> InputRecord? {
        while current < inputs.count {
            let input = unretained[current]
            if !input.with({ $0.reached }), pacing?.readingStopped == true { return nil }
            do {
                if let record = try input.with({ try $0.next() }) { return record }
            } catch {
                // The failed input is done; the next call begins the next one.
                current += 1
                throw error
            }
            current += 1
        }
        return nil
    }

    func stop(drainRead: Bool) {
        // After a stop request the current input's reads stop at once and it
        // gives what it had read. Without one, it is left where it is.
        if !drainRead, current < inputs.count { inputs[current].abandon() }
    }
}
