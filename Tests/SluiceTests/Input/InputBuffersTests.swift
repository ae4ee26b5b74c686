import Testing
@testable import Sluice

/// The buffers of inputs merged at once share one budget; an input read on its own keeps the full sizes.
@Suite struct InputBuffersTests {
    @Test func anInputReadOnItsOwnKeepsTheFullReadAndHoldSizes() {
        #expect(InputBuffers.forOpenInputs(1) == .single)
        #expect(InputBuffers.single.readBytes == 256 * 1024)
        #expect(InputBuffers.single.fileHoldBytes == 1024 * 1024)
        #expect(InputBuffers.single.pipeHoldBytes == 64 * 1024 * 1024)
    }

    @Test func mergedInputsShareTheHoldBudgetAboveTheFloor() {
        #expect(InputBuffers.forOpenInputs(2) == InputBuffers(readBytes: 64 * 1024, fileHoldBytes: 1 << 20, pipeHoldBytes: 32 << 20))
        #expect(InputBuffers.forOpenInputs(96).fileHoldBytes == 512 * 1024)
        #expect(InputBuffers.forOpenInputs(400).fileHoldBytes == 128 * 1024)
        #expect(InputBuffers.forOpenInputs(5000).fileHoldBytes == InputBuffers.minimumHoldBytes)
        for count in [2, 3, 8, 50, 96, 100, 200, 400, 1000, 1024] {
            let buffers = InputBuffers.forOpenInputs(count)
            #expect(buffers.readBytes == InputBuffers.mergedReadBytes)
            #expect(count * buffers.fileHoldBytes <= InputBuffers.holdBudget, "\(count) inputs")
            #expect(count * buffers.pipeHoldBytes <= InputBuffers.holdBudget, "\(count) inputs")
            #expect(buffers.fileHoldBytes.nonzeroBitCount == 1 && buffers.fileHoldBytes >= InputBuffers.minimumHoldBytes)
        }
    }
}
