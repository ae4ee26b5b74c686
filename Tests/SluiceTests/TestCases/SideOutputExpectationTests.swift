import Testing
@testable import Sluice

/// `tests:` cases check a destination's side outputs by their own names (`mixpanel.profiles`).
@Suite struct SideOutputExpectationTests {
    private let pipeline = """
    version: 1
    destinations:
      mixpanel: {type: mixpanel, token: 0123456789abcdef0123456789abcdef}
    tests:

    """

    private let identify = #"{type: identify, anonymousId: d1, userId: user-1, messageId: m1, timestamp: "2026-11-20T09:00:00Z", traits: {plan: pro}}"#

    private func results(_ tests: String) throws -> [PipelineTestResult] {
        let configuration = try PipelineConfiguration.load(yaml: pipeline + tests, file: "p.yaml")
        return try configuration.testCases().map { PipelineTestRunner.run($0, in: configuration) }
    }

    @Test func aSideOutputIsExpectedByItsOwnName() throws {
        let found = try results("""
          - name: profile
            input: [\(identify)]
            expect:
              mixpanel: []
              mixpanel.profiles: [{$distinct_id: user-1, $set: {plan: pro}}]
              mixpanel.groups: []
        """)
        #expect(found.map(\.passed) == [true], "\(found.map(\.report))")
    }

    @Test func aSideOutputRecordThatDiffersFailsTheCaseNamingTheOutput() throws {
        let found = try results("""
          - name: profile
            input: [\(identify)]
            expect:
              mixpanel.profiles: [{$set: {plan: free}}]
        """)
        #expect(found.first?.report.contains("mixpanel.profiles, record 0, $set.plan: expected \"free\", got \"pro\"") == true,
                "\(found.map(\.report))")
    }

    @Test func anOutputTheDestinationDoesNotHaveIsAnError() throws {
        let configuration = try PipelineConfiguration.load(yaml: pipeline + """
          - name: profile
            input: [\(identify)]
            expect: {mixpanel.user_mappings: []}
        """, file: "p.yaml")
        #expect(throws: ConfigurationError.self) { try configuration.testCases() }
    }
}
