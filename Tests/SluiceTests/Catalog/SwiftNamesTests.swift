@testable import Sluice
import Testing

/// Plan names made Swift identifiers, deterministically.
@Suite struct SwiftNamesTests {
    @Test(arguments: [
        ("movie_tapped", "movieTapped"), ("Order Completed", "orderCompleted"), ("$insert_id", "insertId"),
        ("URL_path", "urlPath"), ("userID", "userID"), ("9lives", "_9lives"), ("movie-tapped", "movieTapped"),
        ("café_opened", "caféOpened"), ("___", "value"),
    ])
    func namesBecomeLowerCamelCase(_ name: String, _ identifier: String) {
        #expect(SwiftNames.lowerCamel(name, fallback: "value") == identifier)
    }

    @Test func typeNamesAreUpperCamelCase() {
        #expect(SwiftNames.upperCamel("like_toggled", fallback: "X") == "LikeToggled")
        #expect(SwiftNames.upperCamel("source", fallback: "X") == "Source")
        #expect(SwiftNames.upperCamel("", fallback: "Value") == "Value")
    }

    @Test func keywordsGetBackticksAndUnusableNamesAnUnderscore() {
        #expect(SwiftNames.code("default") == "`default`")
        #expect(SwiftNames.code("in") == "`in`")
        #expect(SwiftNames.code("movieId") == "movieId")
        var names = SwiftNames()
        #expect(names.unique("self") == "self_")
        #expect(names.unique("Type") == "Type_")
    }

    @Test func collidingNamesAreNumberedInOrderAndReservedOnesAvoided() {
        var names = SwiftNames(reserved: ["name"])
        #expect(names.unique("movieTapped") == "movieTapped")
        #expect(names.unique("movieTapped") == "movieTapped2")
        #expect(names.unique("movieTapped") == "movieTapped3")
        #expect(names.unique("name") == "name2")
    }
}

/// The plan's fingerprint: what the plan says, not how the file writes it.
@Suite struct PlanFingerprintTests {
    private func fingerprint(_ events: String) throws -> String {
        let configuration = try PipelineConfiguration.load(yaml: """
            version: 1
            stages:
              - plan:
                  events:
            \(events)
            destinations: {archive: {type: ndjson}}
            """, file: "p.yaml")
        return try #require(configuration.stages.compactMap { $0 as? TrackingPlan }.first).settings.fingerprint
    }

    @Test func commentsAndFlowStyleChangeNothingButATypeOrARequiredDoes() throws {
        let base = try fingerprint("        tap: {properties: {id: integer}, required: [id]}")
        #expect(base.count == 64)
        #expect(try fingerprint("        # a comment\n        tap:\n          properties: {id: integer}\n          required: [id]") == base)
        #expect(try fingerprint("        tap: {properties: {id: number}, required: [id]}") != base)
        #expect(try fingerprint("        tap: {properties: {id: integer}}") != base)
        #expect(try fingerprint("        tap: {properties: {id: {type: integer, description: The id.}}, required: [id]}") != base)
    }
}
