@testable import Sluice
import Testing

/// Insert ids and hex text: the bits of a hash written as providers take them.
@Suite struct InsertIDTests {
    @Test func insertIDsAreUUIDShapedLowercaseHexOfTheirBits() {
        for (high, low): (UInt64, UInt64) in [(0, 0), (.max, .max), (0x0123_4567_89AB_CDEF, 0xFEDC_BA98_7654_3210), (1, 1 << 63)] {
            var out: [UInt8] = []
            InsertID.appendQuoted((high, low), to: &out)
            let hex = String(high, radix: 16).leftPadded(16) + String(low, radix: 16).leftPadded(16)
            let chars = Array(hex)
            let expected = "\"" + String(chars[0..<8]) + "-" + String(chars[8..<12]) + "-" + String(chars[12..<16]) + "-"
                + String(chars[16..<20]) + "-" + String(chars[20..<32]) + "\""
            #expect(String(decoding: out, as: UTF8.self) == expected)
            var plain: [UInt8] = []
            InsertID.appendUUIDShaped(high, low, dashes: false, to: &plain)
            #expect(String(decoding: plain, as: UTF8.self) == hex)
        }
    }

    /// The fan-out's context makes an event's insert id once for the destinations
    /// that send it under the same name: it remembers the name's bytes, so a name
    /// rewritten in the same buffer (an encoder's, reused) gets an id of its own.
    @Test func theContextsInsertIDFollowsTheNamesBytesNotItsBuffer() throws {
        let event = try DestinationHarness.event(#"{"type":"track","event":"e","messageId":"m-1","anonymousId":"a","timestamp":"2026-11-20T08:00:00Z"}"#)
        let messageId = try #require(event.document.member("messageId"))
        func id(_ name: String) -> String {
            var fresh = InsertID()
            var out: [UInt8] = []
            InsertID.appendQuoted(fresh.hash(messageId: messageId, name: Array(name.utf8), document: event.document), to: &out)
            return String(decoding: out, as: UTF8.self)
        }
        var context = EncodingContext()
        var buffer = Array("Viewed Home Screen".utf8)
        var out: [UInt8] = []
        context.appendInsertID(messageId: messageId, name: buffer, document: event.document, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == id("Viewed Home Screen"))
        // The same bytes in another array: the remembered id.
        out.removeAll()
        context.appendInsertID(messageId: messageId, name: Array("Viewed Home Screen".utf8), document: event.document, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == id("Viewed Home Screen"))
        // Other bytes in the same buffer, of the same length and of another: ids of their own.
        for name in ["Viewed Cart Screen", "Viewed Home", "Viewed Home Screen"] {
            buffer.replaceSubrange(buffer.indices, with: Array(name.utf8))
            out.removeAll()
            context.appendInsertID(messageId: messageId, name: buffer, document: event.document, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == id(name), "\(name)")
        }
        #expect(id("Viewed Home Screen") != id("Viewed Home"))
    }

    @Test func hexTextIsTwoLowercaseDigitsPerByteInOrder() {
        for length in 0..<10 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 0xA5) }
            var out: [UInt8] = []
            bytes.withUnsafeBytes { HexText.append(bytes: $0, to: &out) }
            let expected = bytes.map { String($0, radix: 16).leftPadded(2) }.joined()
            #expect(String(decoding: out, as: UTF8.self) == expected, "\(length) bytes")
        }
        var word: [UInt8] = []
        HexText.append(0x0123_4567_89AB_CDEF, to: &word)
        #expect(String(decoding: word, as: UTF8.self) == "0123456789abcdef")
    }
}

private extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
