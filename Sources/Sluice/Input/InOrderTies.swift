/// One input that exact order's first read found in event order (no event
/// behind one before it): its lines as they are read, but the lines of one
/// instant taken together and given in `EventOrder`, as the window merge gives
/// them (lines rejected at input, which go with the event before them, first).
/// Nothing else is held: a line that is alone at its instant, as most are,
/// goes out as soon as the line after it shows a later time.
final class InOrderTies: InputFeed {
    typealias Line = (key: MergeKey, record: InputRecord)

    let inputs: [InputLines]
    /// `inputs[0]`, held apart so that each read does not go through the array.
    private let input: InputLines
    /// The lines of an instant that share it, least last (`EventTimeMerge.sortInstant`); its storage is kept.
    @exclusivity(unchecked) private var group: [Line] = []
    /// `group` holds the lines read so far that share `ahead`'s instant (a read paused before the instant ended).
    @exclusivity(unchecked) private var tying = false
    /// The line read after the last one given: the first of the next instant.
    @exclusivity(unchecked) private var ahead: Line?
    @exclusivity(unchecked) private var ended = false
    /// An input error: thrown once the lines read before it are out.
    @exclusivity(unchecked) private var failure: Error?

    init(_ input: InputLines) {
        inputs = [input]
        self.input = input
    }

    func next() throws -> InputRecord? {
        if !tying, let line = group.popLast() { return line.record }
        while true {
            let read = read()
            guard let first = ahead else {
                switch read {
                case .paused: return .paused
                case let .line(line): ahead = line
                case .end:
                    if let failure {
                        self.failure = nil
                        throw failure
                    }
                    return nil
                }
                continue
            }
            switch read {
            case .paused:
                return .paused
            case let .line(line):
                if line.key.time == first.key.time {
                    group.append(line)
                    tying = true
                    continue
                }
                ahead = line
            case .end:
                ahead = nil
            }
            // The instant is over: a line alone at it goes as it is, lines that share it in `EventOrder`.
            guard tying else { return first.record }
            tying = false
            group.append(first)
            EventTimeMerge.sortInstant(&group)
            return group.popLast()!.record
        }
    }

    private enum Read {
        case line(Line)
        case paused
        /// The input's end or its error (kept in `failure`).
        case end
    }

    /// The input's next line with its merge key.
    private func read() -> Read {
        guard !ended else { return .end }
        do {
            if let record = try input.next() {
                if case .paused = record { return .paused }
                return .line((MergeKey(time: input.lastEventTime, input: 0, line: input.lines), record))
            }
        } catch {
            failure = error
        }
        ended = true
        return .end
    }

    func stop(drainRead: Bool) {
        if !drainRead { input.abandon() }
    }
}
