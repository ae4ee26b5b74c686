@testable import Sluice

/// Plays the run's part for readers with pacing: serves each pause as the
/// runner does (counting them), lets `reads` read(2)s through, then asks for
/// a shutdown, as SIGTERM does.
final class StopAfter {
    let pacing = ReadPacing()
    var reads: Int
    /// Pauses served so far, before refills and before reads.
    private(set) var refillPauses = 0
    private(set) var readPauses = 0

    init(reads: Int = .max) { self.reads = reads }

    /// What the runner does when a read paused.
    func housekeep() {
        switch pacing.due {
        case .refill:
            refillPauses += 1
        case .read:
            readPauses += 1
            if reads == 0 { pacing.stopRequested = true } else { reads -= 1 }
        }
    }
}

extension LineReader {
    /// The next line, with every pause served by `run` as the runner serves it.
    func nextServing(_ run: StopAfter?) throws -> InputLine? {
        while let line = try next() {
            guard case .paused = line else { return line }
            run?.housekeep()
        }
        return nil
    }
}
