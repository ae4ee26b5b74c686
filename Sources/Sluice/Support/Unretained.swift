// Unsafe code: `Unmanaged._withUnsafeGuaranteedRef`, so per-event calls into
// objects the pipeline holds for the whole run go without a retain and a
// release (two atomic operations) each. The holder keeps a strong reference for
// as long as an `Unretained` may be used.

/// A reference to an object that something else keeps alive, called without
/// a retain and a release around the call.
///
/// Swift copies a class reference it reads out of an array, an optional or a
/// struct being mutated before calling a method on it (it cannot tell that the
/// object outlives the call), and each copy is an atomic increment and
/// decrement: on the reading thread, for every event, several times. The
/// per-event paths that call into objects the pipeline holds for the whole run
/// (outputs, batches, inputs) reach them through this instead.
///
/// The holder keeps a strong reference for as long as this one may be used,
/// and nothing the call does may let go of that one.
struct Unretained<Object: AnyObject> {
    private let reference: Unmanaged<Object>

    init(_ object: borrowing Object) {
        reference = .passUnretained(copy object)
    }

    /// Calls `body` with the object, borrowed for the call.
    @inline(__always)
    func with<Result>(_ body: (Object) throws -> Result) rethrows -> Result {
        try reference._withUnsafeGuaranteedRef(body)
    }

    /// The object as an ordinary reference (retained while it is held), for the paths that are not per event.
    var object: Object { reference.takeUnretainedValue() }
}
