import Foundation
import SluiceTestSupport
import Testing

/// End-to-end: `sluice test` as CI runs it, on the repository's pipelines and on broken ones.
@Suite struct TestCommandTests {
    @Test func everyExamplePipelinesCasesPassAsCIRunsThem() throws {
        let result = try SluiceBinary.shell(#"$SLUICE test pipelines/*.yaml"#, in: repositoryRoot)
        #expect(result.status == 0, "\(result.stdoutText)\(result.stderr)")
        #expect(result.stdoutText.contains(" 0 failed"))
        #expect(!result.stdoutText.contains("FAIL"))
        // Every file in pipelines/ has cases.
        let files = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot + "/pipelines").filter { $0.hasSuffix(".yaml") }
        #expect(files.count >= 6)
        for file in files {
            #expect(result.stdoutText.contains("PASS pipelines/\(file): "), "pipelines/\(file) has no test case")
        }
    }

    @Test func aBrokenMappingFailsWithExit1AndADiffNamingTheField() throws {
        let directory = TemporaryDirectory()
        let original = try String(contentsOfFile: repositoryRoot + "/pipelines/providers.yaml", encoding: .utf8)
        let broken = original.replacingOccurrences(of: #"rename: {"Avatar Changed": avatar_changed}"#,
                                                   with: #"rename: {"Avatar Changed": avatar-changed}"#)
        #expect(broken != original)
        directory.write("providers.yaml", broken)
        let result = try SluiceBinary.run(["test", "providers.yaml"], in: directory.path)
        #expect(result.status == 1)
        #expect(result.stdoutText.contains("FAIL providers.yaml:"))
        #expect(result.stdoutText.contains(#"  mixpanel, record 0, event: expected "avatar_changed", got "avatar-changed""#), "\(result.stdoutText)")
        #expect(result.stdoutText.contains("PASS providers.yaml: amplitude gets identify"))
        #expect(result.stdoutText.contains(", 1 failed"))
    }

    @Test func aPlanThatNoLongerMatchesTheAppFailsItsCases() throws {
        let directory = TemporaryDirectory()
        let original = try String(contentsOfFile: repositoryRoot + "/pipelines/plan.yaml", encoding: .utf8)
        directory.write("plan.yaml", original.replacingOccurrences(of: "movie_id: integer,", with: "movie_id: string,"))
        let result = try SluiceBinary.run(["test", "plan.yaml", "--filter", "REACHES"], in: directory.path)
        #expect(result.status == 1)
        #expect(result.stdoutText.contains("  archive, record 0: missing; expected {\"event\":\"movie_tapped\",\"properties\":{\"movie_id\":5}}"))
        #expect(result.stdoutText.contains("  rejects, record 0: extra; got {"))
        #expect(result.stdoutText.contains("sluice test: 1 case, 0 passed, 1 failed"))
    }

    @Test func filterRunsTheCasesWhoseNameMatchesAndNoMatchIsAFailure() throws {
        let some = try SluiceBinary.run(["test", "pipelines/plan.yaml", "--filter", "REJECTED"], in: repositoryRoot)
        #expect(some.status == 0, "\(some.stdoutText)")
        let ran = some.stdoutText.split(separator: "\n").filter { $0.hasPrefix("PASS") }
        #expect(ran.count == 3)
        #expect(ran.allSatisfy { $0.lowercased().contains("rejected") })
        let none = try SluiceBinary.run(["test", "pipelines/plan.yaml", "--filter", "no such case"], in: repositoryRoot)
        #expect(none.status == 1)
        #expect(none.stderr.contains("no test case ran"))
    }

    @Test func aPipelineFileErrorExits78AndRunsNothing() throws {
        let directory = TemporaryDirectory()
        directory.write("ok.yaml", "version: 1\ndestinations:\n  a: {type: ndjson}\ntests:\n  - {name: x, input: [], expect: {a: []}}\n")
        directory.write("bad.yaml", "version: 1\ndestinations:\n  a: {type: ndjson}\ntests:\n  - {name: x, input: [], expect: {b: []}}\n")
        let result = try SluiceBinary.run(["test", "ok.yaml", "bad.yaml"], in: directory.path)
        #expect(result.status == 78)
        #expect(result.stderr.contains("bad.yaml:5:35: unknown key 'b' in tests[1].expect"))
        #expect(result.stdoutText.isEmpty)
    }

    @Test func runIgnoresTestsAndValidateChecksThem() throws {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", "version: 1\ndestinations:\n  a: {type: ndjson}\ntests: 5\n")
        directory.write("in.ndjson", #"{"type":"track","event":"x","anonymousId":"d","timestamp":"2026-11-20T09:00:00Z"}"# + "\n")
        let run = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "--quiet", "in.ndjson"], in: directory.path)
        #expect(run.status == 0, "\(run.stderr)")
        let validate = try SluiceBinary.run(["validate", "p.yaml"], in: directory.path)
        #expect(validate.status == 78)
        #expect(validate.stderr.contains("p.yaml:4:8: tests must be a list of cases"))
    }
}
