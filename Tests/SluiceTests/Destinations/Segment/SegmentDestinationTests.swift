import Testing
@testable import Sluice

@Suite struct SegmentDestinationTests {
    @Test func theCanonicalMessageIsWrittenCompactAndUnchanged() throws {
        var segment = try DestinationHarness("{type: segment}")
        #expect(try segment.encode(trackJSON()).get() == trackJSON())
        let spaced = #"{ "type" : "track", "event":"e", "messageId":"m-1", "timestamp":"2026-11-20T08:00:00Z", "anonymousId":"d", "properties":{"n": 1e21} }"#
        #expect(try segment.encode(spaced).get() ==
            #"{"type":"track","event":"e","messageId":"m-1","timestamp":"2026-11-20T08:00:00Z","anonymousId":"d","properties":{"n":1e21}}"#)
    }

    @Test(arguments: [
        (String(repeating: "m", count: 100), true),
        (String(repeating: "m", count: 101), false),
        (String(repeating: "é", count: 100), true),   // 200 bytes, 100 characters
        (String(repeating: "é", count: 101), false),
    ])
    func messageIDsOver100CharactersAreRefused(_ id: String, _ accepted: Bool) throws {
        var segment = try DestinationHarness("{type: segment}")
        switch try segment.encode(trackJSON().replacingAll(#""m-1""#, with: quoted(id))) {
        case .success: #expect(accepted)
        case .failure(let rejection): #expect(!accepted && rejection.reason == .messageIDTooLong)
        }
    }

    /// A message of exactly `size` bytes: the padding property fills it up.
    private func message(bytes size: Int) -> String {
        let empty = #"{"type":"track","event":"e","timestamp":"2026-11-20T08:00:00Z","anonymousId":"d","properties":{"pad":""}}"#
        return empty.replacingAll(#""pad":"""#, with: #""pad":"\#(String(repeating: "p", count: size - empty.utf8.count))""#)
    }

    @Test(arguments: [(32 * 1024, true), (32 * 1024 + 1, false)])
    func messagesOver32KBAreRefused(_ size: Int, _ accepted: Bool) throws {
        var segment = try DestinationHarness("{type: segment}")
        let text = message(bytes: size)
        #expect(text.utf8.count == size)
        switch try segment.encode(text) {
        case .success(let line): #expect(accepted && line.utf8.count == size)
        case .failure(let rejection): #expect(!accepted && rejection.reason == .messageTooLarge)
        }
    }

    @Test func sessionMessagesAreNotRoutedThere() throws {
        let segment = try DestinationHarness("{type: segment}")
        let session = try DestinationHarness.event(#"{"type":"session","action":"start","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z"}"#)
        #expect(segment.destination.skipReason(for: session) == "unsupported_type")
        let alias = try DestinationHarness.event(#"{"type":"alias","previousId":"d","userId":"u","timestamp":"2026-11-20T08:00:00Z"}"#)
        #expect(segment.destination.skipReason(for: alias) == nil)
    }
}
