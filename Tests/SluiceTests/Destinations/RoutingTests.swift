import Testing
@testable import Sluice
import SluiceTestSupport

@Suite struct RoutingTests {
    private func take(_ rules: inout RoutingRules, name: [UInt8]) -> Bool { rules.accepts(name: name) }
    private func take(_ rules: inout RoutingRules, _ event: Event) -> Bool { rules.accepts(event) }

    @Test(arguments: [
        ("*", "anything", true),
        ("*", "", true),
        ("checkout_*", "checkout_started", true),
        ("checkout_*", "checkout_", true),
        ("checkout_*", "my_checkout_started", false),
        ("*_flow", "login_flow", true),
        ("a*b*c", "axxbyyc", true),
        ("a*b*c", "axxbyy", false),
        ("v?deo", "video", true),
        ("exact", "exact", true),
        ("exact", "exactly", false),
        ("Avatar Changed", "Avatar Changed", true),
    ])
    func globsMatchNames(_ pattern: String, _ name: String, _ expected: Bool) {
        #expect(Glob.matches(Array(pattern.utf8), Array(name.utf8)) == expected)
    }

    @Test func laterEntriesWin() {
        var rules = RoutingRules(patterns: ["*", "!debug_*", "debug_keep"], destinationName: "d", destinationType: "ndjson")
        #expect(take(&rules, name: Array("movie_tapped".utf8)))
        #expect(!take(&rules, name: Array("debug_trace".utf8)))
        #expect(take(&rules, name: Array("debug_keep".utf8)))
        var none = RoutingRules(patterns: [], destinationName: "d", destinationType: "ndjson")
        #expect(!take(&none, name: Array("x".utf8)))
    }

    @Test func aStarLastTakesEveryNameAndANegatedOneNone() {
        var all = RoutingRules(patterns: ["!debug_*", "*"], destinationName: "d", destinationType: "ndjson")
        for name in ["debug_trace", "movie_tapped", ""] { #expect(take(&all, name: Array(name.utf8)), "\(name)") }
        var none = RoutingRules(patterns: ["*", "!*"], destinationName: "d", destinationType: "ndjson")
        for name in ["debug_trace", "movie_tapped", ""] { #expect(!take(&none, name: Array(name.utf8)), "\(name)") }
    }

    private func event(_ integrations: String, name: String = "debug_trace") throws -> Event {
        let text = #"{"type":"track","event":"\#(name)","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z","integrations":\#(integrations)}"#
        return try Array(text.utf8).withUnsafeBufferPointer { Event.decode($0, origin: Origin(source: 0, line: 1)) }.get()
    }

    @Test func theMessagesIntegrationsObjectWins() throws {
        var archive = RoutingRules(patterns: ["*", "!debug_*"], destinationName: "archive", destinationType: "ndjson")
        #expect(!take(&archive, try event("{}")))
        #expect(take(&archive, try event(#"{"archive":true}"#)))
        #expect(take(&archive, try event(#"{"Archive":{"option":1}}"#)))
        #expect(take(&archive, try event(#"{"All":false,"NDJSON":true}"#)))
        #expect(!take(&archive, try event(#"{"All":false}"#, name: "movie_tapped")))
        #expect(!take(&archive, try event(#"{"archive":false}"#, name: "movie_tapped")))
        #expect(take(&archive, try event(#"{"All":true}"#, name: "movie_tapped")))
        #expect(!take(&archive, try event(#"{"All":true}"#)))
        #expect(take(&archive, try event(#"{"mixpanel":false}"#, name: "movie_tapped")))
    }
}
