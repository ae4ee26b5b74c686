// Unsafe code: `Unmanaged._withUnsafeGuaranteedRef`, so the fan-out calls a
// destination's output for every event without a retain and a release (two
// atomic operations) around the call; its holder keeps the output alive.

import SluiceJSON

/// A destination's output lent to the fan-out for a run: the appends it makes
/// for every event, called on the output without a retain.
///
/// Swift copies a class reference it reads out of an array of structs being
/// mutated before calling a method on it (it cannot tell that the object
/// outlives the call); the fan-out's lanes are such an array. Whoever holds a
/// `LentOutput` holds the output itself too (`FanOut`'s lane keeps both), and
/// nothing an append does lets go of that reference.
struct LentOutput {
    private let reference: Unmanaged<DestinationOutput>

    /// Lends `output`; the caller keeps a strong reference to it for as long as this is used.
    init(_ output: DestinationOutput) {
        reference = .passUnretained(output)
    }

    /// `DestinationOutput.append(time:now:encode:)`.
    @inline(__always)
    func append(time: EventTime, now clock: UInt64?, encode: (inout ByteBuffer) -> Int) throws -> Int {
        try reference._withUnsafeGuaranteedRef { try $0.append(time: time, now: clock, encode: encode) }
    }

    /// `DestinationOutput.append(time:now:records:count:)`.
    func append(time: EventTime, now clock: UInt64?, records: ByteBuffer, count: Int) throws -> Int {
        try reference._withUnsafeGuaranteedRef { try $0.append(time: time, now: clock, records: records, count: count) }
    }
}
