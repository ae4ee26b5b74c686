@testable import Sluice
import SluiceTestSupport
import Testing

/// The scanner's fast rejects (8 bytes at a time) against their plain definitions:
/// a string may hold PII when it has a digit, `:`, `@` or `%`; an email when it has `@` or `%`.
@Suite struct PIIScannerFastRejectTests {
    @Test func theWordAtATimeCheckAgreesWithTheByteAtATimeOne() {
        var random = TestRandom(state: 7)
        let alphabet = Array("abcXYZ_- .,é\"{}/=?#".utf8) + [0x00, 0x7F, 0x80, 0xFF, 0x2F, 0x3B, 0x3F, 0x41, 0x24, 0x26]
        let interesting = Array("0123456789:@%".utf8)
        for _ in 0..<20_000 {
            let count = random.below(40)
            var buffer = (0..<(count + 20)).map { _ in alphabet[random.below(alphabet.count)] }
            let start = random.below(10)
            if random.below(3) == 0 && count > 0 { buffer[start + random.below(count)] = interesting[random.below(interesting.count)] }
            // Interesting bytes just outside the range must not count.
            if start > 0 { buffer[start - 1] = UInt8(ascii: "7") }
            buffer[start + count] = UInt8(ascii: "@")
            let expected = buffer[start..<(start + count)].contains { interesting.contains($0) }
            let available = random.below(2) == 0 ? buffer.count : start + count
            let fast = PIIScanner.mayHoldPII(buffer.span.extracting(0..<available), from: start, to: start + count)
            #expect(fast == expected, "\(buffer[start..<(start + count)].map { $0 })")
            let range = Array(buffer[start..<(start + count)])
            let whole = PIIScanner.mayHoldPII(range.span)
            #expect(whole == expected)
        }
    }

    @Test func theWordAtATimeEmailCheckAgreesWithTheByteAtATimeOne() {
        var random = TestRandom(state: 11)
        let alphabet = Array("abcXYZ_- .,é\"{}/=?#0123456789:".utf8) + [0x00, 0x7F, 0x80, 0xFF, 0x3F, 0x41, 0x24, 0x26, 0xC0, 0xA5]
        let interesting = Array("@%".utf8)
        for _ in 0..<20_000 {
            let count = random.below(40)
            var buffer = (0..<(count + 20)).map { _ in alphabet[random.below(alphabet.count)] }
            let start = random.below(10)
            if random.below(3) == 0 && count > 0 { buffer[start + random.below(count)] = interesting[random.below(interesting.count)] }
            // An `@` or `%` just outside the range must not count.
            if start > 0 { buffer[start - 1] = UInt8(ascii: "%") }
            buffer[start + count] = UInt8(ascii: "@")
            let expected = buffer[start..<(start + count)].contains { interesting.contains($0) }
            let available = random.below(2) == 0 ? buffer.count : start + count
            let fast = PIIScanner.mayHoldEmail(buffer.span.extracting(0..<available), from: start, to: start + count)
            #expect(fast == expected, "\(buffer[start..<(start + count)].map { $0 })")
        }
    }
}
