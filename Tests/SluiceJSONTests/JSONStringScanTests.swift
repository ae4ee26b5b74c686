import CJSONScan
import SluiceTestSupport
import Testing

/// Stage 1 of the parser (`CJSONScan`): each implementation this CPU can run
/// (portable C, SSE2, AVX2) against the definition of its entries computed a
/// byte at a time, and against each other block by block, state included, on
/// random texts rich in quotes, backslashes, control characters and high bytes.
@Suite struct JSONStringScanTests {
    static let levels: [Int32] = Array(0...sluice_json_scan_level())

    /// The entries by definition: a quote ends or starts a string unless a
    /// backslash run of odd length comes just before it; each string that ends
    /// gives its closing quote if no byte inside is a backslash, < 0x20 or
    /// >= 0x80, else the first such byte; an open string at the end gives that
    /// byte if it has one.
    static func definition(_ text: [UInt8]) -> [UInt32] {
        var entries: [UInt32] = []
        var inString = false, backslashes = 0
        var firstSpecial: Int?
        for (offset, byte) in text.enumerated() {
            let escaped = backslashes % 2 == 1
            if byte == UInt8(ascii: "\"") && !escaped {
                if inString { entries.append(UInt32(firstSpecial ?? offset)) }
                inString.toggle()
                firstSpecial = nil
            } else if inString && firstSpecial == nil && (byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80) {
                firstSpecial = offset
            }
            backslashes = byte == UInt8(ascii: "\\") ? backslashes + 1 : 0
        }
        if inString, let firstSpecial { entries.append(UInt32(firstSpecial)) }
        return entries
    }

    /// Stage 1 at `level` over `text`, `chunk` bytes (a multiple of 64) per call.
    static func scan(_ text: [UInt8], level: Int32, chunk: Int) -> [UInt32] {
        var state = sluice_json_scan_state()
        var entries: [UInt32] = []
        var out = [UInt32](repeating: 0, count: chunk / 2 + 64)
        var from = 0
        text.withUnsafeBufferPointer { buffer in
            while from < buffer.count {
                let to = min(from + chunk, buffer.count)
                let written = out.withUnsafeMutableBufferPointer {
                    sluice_json_scan_strings_at_level(level, &state, buffer.baseAddress, buffer.count, from, to, $0.baseAddress)
                }
                entries += out[..<written]
                from = to
            }
        }
        return entries
    }

    static let alphabet: [UInt8] = [0x22, 0x22, 0x5C, 0x5C, 0x5C, 0x61, 0x20, 0x7B, 0x3A, 0x00, 0x01, 0x1F, 0x7F, 0x80, 0xC3, 0xFF]

    static func randomText(_ random: inout TestRandom) -> [UInt8] {
        let length = random.below(400)
        switch random.below(3) {
        case 0: return (0..<length).map { _ in alphabet[random.below(alphabet.count)] }
        case 1: return (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        default: return (0..<length).map { _ in random.below(12) == 0 ? alphabet[random.below(alphabet.count)] : 0x62 }
        }
    }

    @Test func theBestLevelOfThisCPUIsUsed() {
        #if arch(x86_64)
        #expect(sluice_json_scan_level() >= 1, "SSE2 is part of x86-64")
        #else
        #expect(sluice_json_scan_level() == 0)
        #endif
    }

    @Test(arguments: levels)
    func eachLevelWritesTheEntriesOfTheDefinition(level: Int32) {
        var random = TestRandom(state: 0x0819_0001 + UInt64(level))
        for round in 0..<4000 {
            let text = Self.randomText(&random)
            let chunk = 64 * (1 + random.below(3))
            let entries = Self.scan(text, level: level, chunk: chunk)
            let expected = Self.definition(text)
            #expect(entries == expected, "round \(round), \(text)")
            if entries != expected { return }
        }
    }

    @Test func portableAndSIMDLevelsAgreeBlockByBlockStateIncluded() {
        guard let best = Self.levels.last, best > 0 else { return }
        var random = TestRandom(state: 0x0819_0002)
        var states = Self.levels.map { _ in sluice_json_scan_state() }
        var out = [UInt32](repeating: 0, count: 96)
        for round in 0..<20_000 {
            // One 64-byte block, or a partial last one, continuing from the previous block's state.
            let length = random.below(8) == 0 ? 1 + random.below(63) : 64
            var block = (0..<length).map { _ in Self.alphabet[random.below(Self.alphabet.count)] }
            if random.below(4) == 0 { block = block.map { $0 == 0x5C ? 0x5C : 0x61 } }
            var results: [[UInt32]] = []
            for (index, level) in Self.levels.enumerated() {
                let written = block.withUnsafeBufferPointer { buffer in
                    out.withUnsafeMutableBufferPointer {
                        sluice_json_scan_strings_at_level(level, &states[index], buffer.baseAddress, length, 0, length, $0.baseAddress)
                    }
                }
                results.append(Array(out[..<written]))
            }
            for index in results.indices.dropFirst() {
                #expect(results[index] == results[0], "round \(round), level \(Self.levels[index])")
                #expect(states[index].escaped == states[0].escaped && states[index].in_string == states[0].in_string
                            && states[index].dirty == states[0].dirty, "round \(round), level \(Self.levels[index])")
            }
        }
    }
}
