/// How the `timed` stage lets out what never paired: abandoned starts
/// (dropped, or emitted marked `abandoned` with the reason) and orphan stops
/// (passed marked `orphan_stop`, or rejected), once the watermark passes
/// their deadline or at end of input.
extension TimedEventPairing {
    /// When an entry is let out once the watermark passes it: a start after
    /// `expire_after`, a held stop at its own time (µs of event time).
    func deadline(of kind: OpenTimerTable.Kind, at time: Int64) -> Int64 {
        guard kind == .start else { return time }
        return time > Int64.max - expireAfter ? Int64.max : time + expireAfter
    }

    /// Lets out every entry whose deadline the watermark has passed, earliest first.
    mutating func releaseDue(into output: inout StageOutput) {
        while let due = table.nextDue, due.deadline < watermark {
            let entry = table.remove(due.slot)
            if entry.kind == .start {
                abandon(entry, .expired, into: &output)
            } else {
                orphan(held: entry, into: &output)
            }
        }
    }

    mutating func abandon(_ entry: OpenTimerTable.Entry, _ reason: AbandonReason, into output: inout StageOutput) {
        count(reason)
        switch settings.onAbandoned {
        case .drop:
            output.drop(entry.origin, .abandonedTimer)
        case .emit:
            output.emit(TimedEventRewrite.marked(line: entry.payload, markerValue: entry.marker, "abandoned", abandonReason: reason.rawValue,
                                                 origin: entry.origin, time: entry.time, withheld: entry.withheld, marker: settings.marker))
        }
    }

    mutating func abandon(_ event: Event, _ reason: AbandonReason, into output: inout StageOutput) {
        count(reason)
        switch settings.onAbandoned {
        case .drop:
            output.drop(event.origin, .abandonedTimer)
        case .emit:
            output.emit(TimedEventRewrite.marked(line: event.document.bytes[...], markerValue: markerValue(in: event.document), "abandoned",
                                                 abandonReason: reason.rawValue, origin: event.origin, time: event.time,
                                                 withheld: event.withheld, marker: settings.marker))
        }
    }

    mutating func count(_ reason: AbandonReason) {
        switch reason {
        case .expired: stats.abandonedExpired += 1
        case .evicted: stats.abandonedEvicted += 1
        case .restarted: stats.abandonedRestarted += 1
        case .endOfInput: stats.abandonedEndOfInput += 1
        }
    }

    mutating func orphan(held entry: OpenTimerTable.Entry, into output: inout StageOutput) {
        stats.orphanStops += 1
        switch settings.onOrphanStop {
        case .pass:
            output.emit(TimedEventRewrite.marked(line: entry.payload, markerValue: entry.marker, "orphan_stop",
                                                 origin: entry.origin, time: entry.time, withheld: entry.withheld, marker: settings.marker))
        case .reject:
            output.reject(TimedEventRewrite.event(from: entry.payload, origin: entry.origin, time: entry.time, withheld: entry.withheld),
                          Self.orphanRejection)
        }
    }

    mutating func orphan(_ event: Event, into output: inout StageOutput) {
        stats.orphanStops += 1
        switch settings.onOrphanStop {
        case .pass:
            output.emit(TimedEventRewrite.marked(line: event.document.bytes[...], markerValue: markerValue(in: event.document), "orphan_stop",
                                                 origin: event.origin, time: event.time, withheld: event.withheld, marker: settings.marker))
        case .reject:
            output.reject(event, Self.orphanRejection)
        }
    }

    static let orphanRejection = Rejection(.orphanStop, "a timed stop with no start of the same key within the lateness")
}

extension RejectReason {
    /// A timed stop whose start never arrived (`timed: {on_orphan_stop: reject}`).
    static let orphanStop = RejectReason("orphan_stop")
}

extension DropReason {
    /// A timed start never stopped, with `timed: {on_abandoned: drop}`.
    static let abandonedTimer = DropReason("abandoned_timer")
}
