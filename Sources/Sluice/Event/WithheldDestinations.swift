/// A per-event mark: the destinations that must not receive this event, and why.
///
/// The fan-out honours it without knowing which stage set it: a marked
/// destination that would have taken the event counts it under
/// `not_taken_by_reason` (the reason's name), and an event that no destination
/// takes because of the mark is dropped with `reason` rather than `unrouted`.
public struct WithheldDestinations: Sendable, Equatable {
    public var reason: DropReason
    private var bits: [UInt64] = []

    public init(reason: DropReason) { self.reason = reason }

    public mutating func insert(_ index: Int) {
        let word = index >> 6
        if bits.count <= word { bits.append(contentsOf: repeatElement(0, count: word + 1 - bits.count)) }
        bits[word] |= 1 << UInt64(index & 63)
    }

    public func contains(_ index: Int) -> Bool {
        let word = index >> 6
        return word < bits.count && bits[word] & (1 << UInt64(index & 63)) != 0
    }

    public var isEmpty: Bool { bits.allSatisfy { $0 == 0 } }

    /// The destination bits, 64 a word, lowest index in the lowest bit (for the `--state` file).
    var words: [UInt64] { bits }

    init(reason: DropReason, words: [UInt64]) {
        self.reason = reason
        bits = words
    }

    /// Withholds every destination `other` withholds too.
    public mutating func formUnion(_ other: WithheldDestinations) {
        if bits.count < other.bits.count { bits.append(contentsOf: repeatElement(0, count: other.bits.count - bits.count)) }
        for (index, word) in other.bits.enumerated() { bits[index] |= word }
    }

    /// The stricter of two events' marks, for an event made of both (a timed
    /// start and its stop): every destination either may not receive. The
    /// reason is `a`'s when both have one.
    public static func union(_ a: WithheldDestinations?, _ b: WithheldDestinations?) -> WithheldDestinations? {
        guard var result = a else { return b }
        if let b { result.formUnion(b) }
        return result
    }

    /// Equal when they withhold the same destinations for the same reason, however many words each holds.
    public static func == (lhs: WithheldDestinations, rhs: WithheldDestinations) -> Bool {
        guard lhs.reason == rhs.reason else { return false }
        for index in 0..<max(lhs.bits.count, rhs.bits.count) {
            let a = index < lhs.bits.count ? lhs.bits[index] : 0
            let b = index < rhs.bits.count ? rhs.bits[index] : 0
            if a != b { return false }
        }
        return true
    }
}
