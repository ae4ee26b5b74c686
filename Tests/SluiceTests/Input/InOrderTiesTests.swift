import Testing
@testable import Sluice
import SluiceJSON

@Suite struct InOrderTiesTests {
    private func line(_ name: String, _ second: Int, id: String) -> String {
        #"{"type":"track","event":"\#(name)","anonymousId":"d","messageId":"\#(id)","timestamp":"2026-11-20T08:00:0\#(second)Z"}"#
    }

    /// What the feed gives: event names, and `!reason` for a line rejected at input.
    private func drain(_ lines: [String]) throws -> [String] {
        let reading = InputReading(maxLineBytes: 1 << 20, scratch: JSONParseScratch())
        let bytes = Array(lines.map { $0 + "\n" }.joined().utf8)
        return try InOrderTies(InputLines(bytes: bytes, named: "in", source: 0, reading: reading)).drainedNames()
    }

    @Test func linesAloneAtTheirInstantGoAsRead() throws {
        #expect(try drain([line("a", 1, id: "9"), line("b", 2, id: "1"), line("c", 3, id: "5")]) == ["a", "b", "c"])
    }

    @Test func linesThatShareAnInstantGoInEventOrderWithTheRejectedFirst() throws {
        let lines = [line("a", 1, id: "1"), line("d", 2, id: "3"), "not json", line("c", 2, id: "2"), line("b", 2, id: "1"),
                     line("e", 3, id: "0"), line("f", 4, id: "2"), line("g", 4, id: "1")]
        #expect(try drain(lines) == ["a", "!invalid_json", "b", "c", "d", "e", "g", "f"])
    }

    @Test func anInstantAtTheEndOfTheInputIsGivenWhole() throws {
        #expect(try drain([line("z", 1, id: "2"), line("y", 1, id: "1")]) == ["y", "z"])
        #expect(try drain([]) == [])
    }
}
