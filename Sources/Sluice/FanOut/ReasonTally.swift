/// Counts by reason without hashing: a destination has a handful of reasons
/// and is asked once per event, where a `[String: Int]` would hash the reason each time.
struct ReasonTally {
    private(set) var entries: [(reason: String, count: Int)] = []

    mutating func add(_ reason: String, _ count: Int = 1) {
        for index in entries.indices where entries[index].reason == reason {
            entries[index].count += count
            return
        }
        entries.append((reason, count))
    }
}
