import Testing
@testable import Sluice

extension InputFeed {
    /// Every record the feed gives, to its end: an event's name, or `!reason` for a line rejected at input.
    /// `run` serves the pauses of feeds whose reads have pacing, as the runner does.
    func drainedNames(serving run: StopAfter? = nil) throws -> [String] {
        var names: [String] = []
        while let record = try next() {
            switch record {
            case .event(let event): names.append(event.nameString)
            case .rejected(let line): names.append("!" + line.rejection.reason.rawValue)
            case .paused:
                if run == nil { Issue.record("a pause from a feed without pacing") }
                run?.housekeep()
            }
        }
        return names
    }
}
