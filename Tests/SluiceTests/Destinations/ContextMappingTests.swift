import Testing
@testable import Sluice
@testable import SluiceJSON

/// The `context` fields providers map (`MappedContext`), read with the others and memoized with them.
@Suite struct ContextMappingTests {
    @Test func everyMappedContextFieldHasRoomInItsNodes() {
        #expect(MappedContext.Field.allCases.count <= MappedContext.capacity)
        #expect(MappedContext.capacity <= MappedContext.Mask.bitWidth)
    }

    /// The mapped `context` fields found in one event are found again, at their new place,
    /// in the next event with the same `context` text (`ContextMemo`).
    @Test func mappedContextFieldsMoveWithTheMemoizedContext() throws {
        let context = #""context":{"locale":"en-US","page":{"url":"https://a/","title":"A"},"campaign":{"source":"news"}}"#
        let memo = ContextMemo()
        let first = try DestinationHarness.event(#"{"type":"track","event":"e","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z",\#(context)}"#)
        let second = try DestinationHarness.event(#"{"type":"track","event":"e","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z","properties":{"a":[1,2,3],"b":{"c":4}},\#(context)}"#)
        for event in [first, second] {
            let fields = EventFields(event, memo: memo)
            let text = { (field: MappedContext.Field) in fields.mapped.node(field).flatMap { fields.document.string($0) } }
            #expect(text(.locale) == "en-US")
            #expect(text(.pageURL) == "https://a/")
            #expect(text(.pageTitle) == "A")
            #expect(text(.utmSource) == "news")
            #expect(fields.mapped.node(.utmMedium) == nil)
        }
    }
}
