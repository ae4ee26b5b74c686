import Foundation
import SluiceTestSupport
import Testing

/// `scripts/faults --short`: a few cases of every fault the hardening rounds
/// found (damaged gzip and state files, alias expansion, FIFOs, signals, hard
/// links, a forced exit) against the built binary, so the next round starts
/// from them. `scripts/faults --long` is the sweep, run by hand.
@Suite struct FaultScriptTests {
    @Test func theShortSweepFindsNothing() throws {
        let result = try SluiceBinary.shell(#"python3 scripts/faults --short --binary "$SLUICE""#, in: repositoryRoot)
        #expect(result.status == 0, "\(result.stdoutText)\(result.stderr)")
        for fault in ["alias_bytes", "corrupt_gzip", "truncated_gzip", "state", "early_signals", "fifo", "hard_link_state", "forced_exit"] {
            #expect(result.stdoutText.contains("\(fault): "), "\(fault) did not run: \(result.stdoutText)")
        }
        #expect(!result.stdoutText.contains("FAILED"), "\(result.stdoutText)")
    }
}
