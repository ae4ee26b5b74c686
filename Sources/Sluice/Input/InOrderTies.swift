/// One input that exact order's first read found in event order (no event
/// behind one before it): its lines as they are read, but the lines of one
/// instant taken together and given in `EventOrder`, as the window merge gives
/// them (lines rejected at input, which go with the event before them, first).
/// Nothing else is held.
final class InOrderTies: InputFeed {
    let inputs: [InputLines]
    /// The instant being given out, the next line last.
    private var group: [(key: MergeKey, record: InputRecord)] = []
    /// The first line of the next instant, read while finding the end of this one.
    private var ahead: (key: MergeKey, record: InputRecord)?
    private var ended = false
    /// An input error met while an instant was being read: thrown once that instant is out.
    private var failure: Error?

    init(_ input: InputLines) { inputs = [input] }

    func next() throws -> InputRecord? {
        if let line = group.popLast() { return line.record }
        if let failure {
            self.failure = nil
            throw failure
        }
        var instant: [(key: MergeKey, record: InputRecord)] = []
        if let first = ahead.take() { instant.append(first) }
        while !ended {
            let read: InputRecord?
            do {
                read = try inputs[0].next()
            } catch {
                ended = true
                if instant.isEmpty { throw error }
                failure = error
                break
            }
            guard let record = consume read else {
                ended = true
                break
            }
            let input = inputs[0]
            let key = MergeKey(time: input.lastEventTime, input: 0, line: input.lines)
            if let time = instant.first?.key.time, key.time != time {
                ahead = (key, record)
                break
            }
            instant.append((key, record))
        }
        guard !instant.isEmpty else { return nil }
        if instant.count == 1 { return instant[0].record }
        EventTimeMerge.sortInstant(&instant)
        group = instant
        return group.popLast()!.record
    }

    func stop(drainRead: Bool) {
        if !drainRead { inputs[0].abandon() }
    }
}
