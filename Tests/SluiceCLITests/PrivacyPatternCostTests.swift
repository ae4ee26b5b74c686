import SluiceTestSupport
import Testing

/// End to end: a custom pattern whose matcher may cost more per byte than the
/// documented bound is refused before anything is read.
@Suite struct PrivacyPatternCostTests {
    @Test func aPatternAboveTheCostBoundIsRefusedWithItsLocationAndCost() throws {
        let directory = TemporaryDirectory()
        let costly = String(repeating: "[a-z]{1,1000}", count: 10)
        directory.write("p.yaml", """
            version: 1
            stages:
              - privacy: {patterns: {words: "\(costly)"}}
            destinations: {archive: {type: ndjson}}
            """)
        for arguments in [["validate", "p.yaml"], ["run", "--pipeline", "p.yaml"]] {
            let result = try SluiceBinary.run(arguments, in: directory.path)
            #expect(result.status == 78)
            #expect(result.stderr.contains("p.yaml:3:33: privacy.patterns.words: \"\(costly)\" may cost 19991 steps per byte"), "\(result.stderr)")
            #expect(result.stderr.contains("the bound is 500"))
        }
        #expect(!directory.files().contains { $0.hasPrefix("out/") })
    }

    @Test func aPatternWithinTheCostBoundValidates() throws {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", """
            version: 1
            stages:
              - privacy: {patterns: {words: "[a-z]{1,100}@intranet"}}
            destinations: {archive: {type: ndjson}}
            """)
        let result = try SluiceBinary.run(["validate", "p.yaml"], in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
    }
}
