import Testing
@testable import Sluice
import SluiceJSON

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
}
