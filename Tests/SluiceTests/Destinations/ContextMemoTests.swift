import Foundation
@testable import Sluice
import Testing

/// The fan-out's `EncodingContext` remembers the last `context` object read
/// (`ContextMemo`): an event whose context has the same text gets the same
/// fields, found at its own place on its own tape.
@Suite struct ContextMemoTests {
    private static let context = #"{"os":{"name":"iOS","version":"17.1"},"device":{"model":"iPhone15,2","manufacturer":"Apple","id":"d-1"},"app":{"version":"3.2.1","build":"3210"},"ip":"203.0.113.7","traits":{"plan":"pro"},"session":{"id":"s-1","start_ms":5,"number":2,"seq":3}}"#

    private func event(_ before: String, context: String = ContextMemoTests.context) throws -> Event {
        try DestinationHarness.event(#"{"type":"track","event":"e",\#(before)"anonymousId":"a","timestamp":"2026-11-20T08:00:00Z","context":\#(context)}"#)
    }

    /// Every context field the providers read, as text.
    private func read(_ fields: EventFields) -> [String?] {
        let document = fields.document
        var values = EventFields.ContextField.allCases.map { fields.node($0).flatMap { document.string($0) } }
        values.append(fields.contextTraits.map { String(decoding: document.rawBytes($0), as: UTF8.self) })
        values.append(fields.session?.id.flatMap { document.string($0) })
        values.append(fields.session.map { "\($0.startMs ?? -1) \($0.number ?? -1) \($0.seq ?? -1)" })
        return values
    }

    @Test func aContextLikeTheLastOneIsFoundAtItsOwnPlaceOnTheTape() throws {
        var context = EncodingContext()
        let first = try event("")
        let expected = read(context.fields(of: first))
        #expect(expected[0] == "iOS" && expected[8] == "203.0.113.7" && expected[9] == #"{"plan":"pro"}"#)
        #expect(expected[10] == "s-1" && expected[11] == "5 2 3")
        // The same context text further along the tape, after other members.
        context.reset()
        let later = try event(#""properties":{"a":[1,2,{"b":3}],"c":"d"},"#)
        let fields = context.fields(of: later)
        #expect(read(fields) == expected)
        #expect(fields.node(.osName) != nil && fields.node(.osName)! > 20)
        #expect(read(fields) == read(EventFields(later)))
    }

    @Test func aDifferentContextIsReadAfresh() throws {
        var context = EncodingContext()
        _ = context.fields(of: try event(""))
        context.reset()
        let other = try event("", context: #"{"os":{"name":"Android"},"ip":"198.51.100.1"}"#)
        let fields = context.fields(of: other)
        #expect(read(fields) == read(EventFields(other)))
        #expect(read(fields)[0] == "Android" && read(fields)[2] == nil && read(fields)[10] == nil)
    }

    /// The session stage writes `context.session` last, different in every
    /// event: the rest of the context is still reused, the session read anew.
    @Test func aContextThatDiffersOnlyInItsTrailingSessionIsReusedAndTheSessionReadAnew() throws {
        var context = EncodingContext()
        let first = try event("")
        _ = context.fields(of: first)
        context.reset()
        let nextSession = ContextMemoTests.context.replacingOccurrences(of: #""session":{"id":"s-1","start_ms":5,"number":2,"seq":3}"#,
                                                                         with: #""session":{"id":"s-2","start_ms":9,"number":3,"seq":14}"#)
        let second = try event(#""properties":{"x":1},"#, context: nextSession)
        let fields = context.fields(of: second)
        #expect(read(fields) == read(EventFields(second)))
        #expect(read(fields)[0] == "iOS" && read(fields)[10] == "s-2" && read(fields)[11] == "9 3 14")
        // A context that differs before its session is read afresh.
        context.reset()
        let moved = try event("", context: nextSession.replacingOccurrences(of: "203.0.113.7", with: "203.0.113.8"))
        #expect(read(context.fields(of: moved)) == read(EventFields(moved)))
        #expect(read(context.fields(of: moved))[8] == "203.0.113.8")
    }

    /// A context without a session after one with it (and back) is compared whole, not as the prefix.
    @Test func aContextWithoutItsSessionIsNotTakenForOneWithIt() throws {
        var context = EncodingContext()
        _ = context.fields(of: try event(""))
        context.reset()
        let bare = ContextMemoTests.context.replacingOccurrences(of: #","session":{"id":"s-1","start_ms":5,"number":2,"seq":3}"#, with: "")
        let without = try event("", context: bare)
        let fields = context.fields(of: without)
        #expect(read(fields) == read(EventFields(without)))
        #expect(read(fields)[10] == nil && read(fields)[11] == nil)
        context.reset()
        let with = try event("")
        #expect(read(context.fields(of: with)) == read(EventFields(with)))
        #expect(read(context.fields(of: with))[10] == "s-1")
    }
}
