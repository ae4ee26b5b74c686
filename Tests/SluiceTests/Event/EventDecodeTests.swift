import Testing
@testable import Sluice
import SluiceTestSupport

@Suite struct EventDecodeTests {
    private func decode(_ text: String) -> Result<Event, Rejection> {
        Array(text.utf8).withUnsafeBufferPointer { Event.decode($0, origin: Origin(source: 0, line: 1)) }
    }

    private func reason(_ text: String) -> RejectReason? {
        if case let .failure(rejection) = decode(text) { return rejection.reason }
        return nil
    }

    @Test(arguments: [
        (#"{"anonymousId":"d","timestamp":"2026-11-20T08:00:00Z"}"#, RejectReason.missingType),
        (#"{"type":5,"anonymousId":"d","timestamp":"2026-11-20T08:00:00Z"}"#, .missingType),
        (#"{"type":"click","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z"}"#, .unknownType),
        (#"{"type":"track","event":"e","timestamp":"2026-11-20T08:00:00Z"}"#, .missingIdentity),
        (#"{"type":"track","event":"e","anonymousId":"","timestamp":"2026-11-20T08:00:00Z"}"#, .missingIdentity),
        (#"{"type":"track","event":"e","anonymousId":"d"}"#, .missingTimestamp),
        (#"{"type":"track","event":"e","anonymousId":"d","timestamp":"yesterday"}"#, .invalidTimestamp),
        (#"{"type":"track","event":"e","anonymousId":"d","timestamp":1795680007}"#, .invalidTimestamp),
        (#"{"type":"track","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z"}"#, .missingEventName),
        (#"{"type":"track","event":999999999999999999999999999999}"#, .missingIdentity),
        (#"[1,2,3]"#, .notAnObject),
        (#"{"type":"track","#, .invalidJSON),
    ])
    func eachMissingFieldHasItsOwnReason(_ text: String, _ expected: RejectReason) {
        #expect(reason(text) == expected)
    }

    @Test func everyTypeIsReadByItsExactNameAndNothingElse() throws {
        for type in MessageType.allCases {
            func line(_ name: String) -> String {
                #"{"type":"\#(name)","event":"e","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z"}"#
            }
            guard case let .success(event) = decode(line(type.rawValue)) else { Issue.record("\(type) refused"); continue }
            #expect(event.type == type)
            // The same name with its first letter escaped.
            let escaped = "\\u00" + String(type.rawValue.utf8.first!, radix: 16) + type.rawValue.dropFirst()
            #expect(try decode(line(escaped)).get().type == type)
            if type == .track || type == .screen || type == .page {
                continue
            }
            #expect(try decode(line(type.rawValue)).get().nameString == type.rawValue)
        }
        for near in ["trac", "tracks", "Track", "grou", "alias ", "sessio", "identifyx", "scree", "pages", ""] {
            #expect(reason(#"{"type":"\#(near)","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z"}"#) == .unknownType)
        }
    }

    @Test func invalidUTF8OutsideStringsIsReportedAsInvalidUTF8() {
        let bytes: [UInt8] = [0xFF, 0xFE] + Array(" garbage ".utf8) + [0x00] + Array(" line".utf8)
        let result = bytes.withUnsafeBufferPointer { Event.decode($0, origin: Origin(source: 0, line: 1)) }
        guard case let .failure(rejection) = result else { Issue.record("accepted"); return }
        #expect(rejection.reason == .invalidUTF8)
    }

    @Test(arguments: [
        (#"{"type":"track","event":"movie_tapped","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z"}"#, "movie_tapped"),
        (#"{"type":"screen","name":"home","userId":"u","timestamp":"2026-11-20T08:00:00Z"}"#, "home"),
        (#"{"type":"page","userId":"u","timestamp":"2026-11-20T08:00:00Z"}"#, ""),
        (#"{"type":"identify","userId":"u","timestamp":"2026-11-20T08:00:00Z"}"#, "identify"),
        (#"{"type":"session","action":"start","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z"}"#, "session"),
        (#"{"type":"track","event":"caf\u00e9","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z"}"#, "café"),
    ])
    func theRoutingNameFollowsTheMessageType(_ text: String, _ name: String) throws {
        let event = try decode(text).get()
        #expect(event.nameString == name)
        #expect(event.time == EventTime.parseISO8601("2026-11-20T08:00:00Z"))
    }
}
