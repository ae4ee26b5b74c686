@testable import Sluice

extension InputFeed {
    /// Every record the feed gives, to its end: an event's name, or `!reason` for a line rejected at input.
    func drainedNames() throws -> [String] {
        var names: [String] = []
        while let record = try next() {
            switch record {
            case .event(let event): names.append(event.nameString)
            case .rejected(let line): names.append("!" + line.rejection.reason.rawValue)
            }
        }
        return names
    }
}
