import Testing
@testable import Sluice
import SluiceJSON
import SluiceTestSupport

@Suite struct QuickTimestampTests {
    private func quick(_ line: String) -> Int64? {
        Array(line.utf8).withUnsafeBufferPointer { QuickTimestamp.read($0) }
    }

    private func decoded(_ line: String) -> Int64? {
        Array(line.utf8).withUnsafeBufferPointer {
            try? Event.decode($0, origin: Origin(source: 0, line: 1)).get().time.microseconds
        }
    }

    @Test(arguments: [
        #"{"type":"track","event":"e","anonymousId":"d","timestamp":"2026-11-20T08:00:00.123Z"}"#,
        #"{"properties":{"timestamp":"2020-01-01T00:00:00Z"},"type":"track","event":"timestamp","anonymousId":"d","timestamp":"2026-11-20T08:00:01+02:00"}"#,
        #"  { "type" : "track", "event":"e", "anonymousId":"d", "timestamp" : "2026-11-20T08:00:02Z" }"#,
        #"{"type":"track","event":"a\"timestamp\":\"x","anonymousId":"d","list":[{"timestamp":"1999-01-01T00:00:00Z"}],"timestamp":"2026-11-20T08:00:03Z"}"#,
    ])
    func theTopLevelTimestampIsReadAsTheDecoderReadsIt(line: String) {
        #expect(quick(line) != nil)
        #expect(quick(line) == decoded(line))
    }

    @Test(arguments: [
        #"{"type":"track","event":"e","anonymousId":"d","time\u0073tamp":"2026-11-20T08:00:00Z"}"#,
        #"{"type":"track","event":"e","anonymousId":"d","timestamp":"2026-11-20T08:00:00\u005a"}"#,
        #"{"type":"track","event":"e","anonymousId":"d","timestamp":1795161600000}"#,
        #"{"type":"track","event":"e","anonymousId":"d","properties":{"timestamp":"2026-11-20T08:00:00Z"}}"#,
        #"["timestamp","2026-11-20T08:00:00Z"]"#,
        #"{"type":"track","timestamp":"yesterday"}"#,
    ])
    func whatIsNotPlainIsLeftToTheParser(line: String) {
        #expect(quick(line) == nil)
    }

    /// Escapes and quotes at every offset of an eight-byte step, in keys, values and nested strings.
    @Test(arguments: 0..<17)
    func escapesAnywhereInAStringAreSkippedAsTheDecoderSkipsThem(offset: Int) {
        let pad = String(repeating: "x", count: offset)
        let lines = [
            #"{"type":"track","event":"\#(pad)\"q\\","anonymousId":"d","timestamp":"2026-11-20T08:00:04Z"}"#,
            #"{"\#(pad)":"\#(pad)\\\\\"","type":"track","event":"e","anonymousId":"d","timestamp":"2026-11-20T08:00:05Z"}"#,
            #"{"type":"track","event":"e","properties":{"k\#(pad)\"":"\#(pad)\\\\"},"anonymousId":"d","timestamp":"2026-11-20T08:00:06Z"}"#,
            #"{"type":"track","event":"\#(pad)\\","anonymousId":"d\#(pad)","timestamp":"2026-11-20T08:00:07.5Z"}"#,
        ]
        for line in lines {
            #expect(quick(line) != nil, "\(line)")
            #expect(quick(line) == decoded(line), "\(line)")
        }
        // A top-level key with an escape may be the timestamp: the parser reads it.
        #expect(quick(#"{"type":"track","event":"e","anonymousId":"d","\#(pad)\u0074":1,"timestamp":"2026-11-20T08:00:00Z"}"#) == nil)
        // A string that never ends is not read.
        #expect(quick(#"{"type":"track","event":"\#(pad)\"...."#) == nil)
    }

    /// The generator's lines (broken ones among them), and the same lines with a byte changed, moved
    /// or cut anywhere: a line the decoder takes gets its time or nil, never another time.
    @Test func generatedAndMangledLinesNeverGetATimeTheDecoderWouldNotGive() {
        var options = GeneratorOptions()
        options.events = 3000
        options.malformed = 0.05
        var bytes: [UInt8] = []
        var generator = EventGenerator(options: options)
        generator.run { bytes.append(contentsOf: $0) }
        let lines = bytes.split(separator: UInt8(ascii: "\n")).map(Array.init)
        var random = TestRandom(state: 5)
        let mutations = Array(#"{}[]":,\ 0aZtimestamp"#.utf8)
        var read = 0, agreed = 0
        for (index, original) in lines.enumerated() {
            var line = original
            if index % 2 == 1 && !line.isEmpty {
                let at = random.below(line.count)
                switch random.below(3) {
                case 0: line[at] = mutations[random.below(mutations.count)]
                case 1: line.insert(mutations[random.below(mutations.count)], at: at)
                default: line.removeSubrange(at...)
                }
            }
            let text = String(decoding: line, as: UTF8.self)
            let quick = line.withUnsafeBufferPointer { QuickTimestamp.read($0) }
            if index % 2 == 0 && decoded(text) != nil { read += quick == nil ? 0 : 1 }
            guard let decoded = decoded(text) else { continue }
            #expect(quick == nil || quick == decoded, "\(text)")
            agreed += 1
        }
        // The generator's own lines are plain: nearly all are read without the parser.
        #expect(read > 1300 && agreed > 1600, "\(read) read, \(agreed) decoded")
    }
}
