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
        if let line = group.popLast() { return line.record }
        guard let first = ahead.take() ?? read() else {
            if let failure {
                self.failure = nil
                throw failure
            }
            return nil
        }
        guard let second = read() else { return first.record }
        guard second.key.time == first.key.time else {
            ahead = second
            return first.record
        }
        group.append(first)
        group.append(second)
        while let line = read() {
            guard line.key.time == first.key.time else {
                ahead = line
                break
            }
            group.append(line)
        }
        EventTimeMerge.sortInstant(&group)
        return group.popLast()!.record
    }

    /// The input's next line with its merge key; nil at its end or its error (kept in `failure`).
    private func read() -> Line? {
        guard !ended else { return nil }
        do {
            if let record = try input.next() {
                return (MergeKey(time: input.lastEventTime, input: 0, line: input.lines), record)
            }
        } catch {
            failure = error
        }
        ended = true
        return nil
    }

    func stop(drainRead: Bool) {
        if !drainRead { input.abandon() }
    }
}
