@testable import Sluice

/// An input gate that lets `reads` reads through, then stops the input, as a shutdown does.
final class StopAfter: InputGate {
    var reads: Int
    init(reads: Int) { self.reads = reads }
    func awaitReadable(fd: Int32, mayBlock: Bool) throws {
        if reads == 0 { throw InputStopped() }
        reads -= 1
    }
}
