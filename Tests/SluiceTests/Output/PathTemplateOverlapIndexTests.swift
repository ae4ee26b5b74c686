import Testing
@testable import Sluice

@Suite struct PathTemplateOverlapIndexTests {
    /// The earlier templates the index offers for the last one, given (template, dest) pairs.
    private func candidates(_ outputs: [(String, String)]) throws -> [Int] {
        var index = PathTemplateOverlapIndex()
        let atoms = try outputs.map { try PathTemplate($0.0).nameAtoms(dest: $0.1) }
        for id in atoms.indices.dropLast() { index.insert(id, atoms: atoms[id]) }
        return index.candidates(for: atoms.last!)
    }

    @Test func templatesWhoseTextDiffersAreNeverCompared() throws {
        let template = "{dest}/{date}/{dest}-{hour}-{seq}.ndjson.gz"
        #expect(try candidates((0..<50).map { (template, "d\($0)") } + [(template, "d50")]).isEmpty)
        let shared = "events/{date}/{dest}-{hour}-{seq}.ndjson.gz"
        #expect(try candidates((0..<50).map { (shared, "d\($0)") } + [(shared, "d50")]).isEmpty)
    }

    @Test func templatesThatMayOverlapAreOffered() throws {
        // The same text; a date written out where the other has {date}; a shard that may be any name.
        #expect(try candidates([("shared/{date}/{seq}.gz", "a"), ("x/{seq}.gz", "b"), ("shared/{date}/{seq}.gz", "c")]) == [0])
        #expect(try candidates([("shared/{date}/{hour}-{seq}.gz", "a"), ("shared/2026-11-20/08-{seq}.gz", "b")]) == [0])
        #expect(try candidates([("{shard}/{seq}.gz", "a"), ("x/{seq}.gz", "b")]) == [0])
        #expect(try candidates([("x/{seq}.gz", "a"), ("{shard}/{seq}.gz", "b")]) == [0])
    }

    @Test func everyPairThatOverlapsIsACandidate() throws {
        // Against the exact check, over templates that differ in small ways.
        let templates = ["a/{seq}.gz", "a/1{seq}.gz", "a/{date}/{seq}.gz", "a/2026-11-20/{seq}.gz", "{shard}/{seq}.gz",
                         "a{hour}/{seq}.gz", "a0{hour}/{seq}.gz", "a/{seq}", "b/{seq}.gz", "{dest}/{seq}.gz"]
        for later in templates.indices {
            for earlier in templates.indices where earlier != later {
                let pair = [(templates[earlier], "a"), (templates[later], "a")]
                let overlap = try PathTemplate(templates[later]).mayShareFiles(dest: "a", with: PathTemplate(templates[earlier]), otherDest: "a")
                if overlap { #expect(try candidates(pair) == [0], "\(templates[later]) against \(templates[earlier])") }
            }
        }
    }
}
