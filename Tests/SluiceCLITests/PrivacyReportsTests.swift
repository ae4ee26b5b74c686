import Foundation
#if canImport(Glibc)
import Glibc
#endif
import SluiceTestSupport
import Testing

/// End to end: text taken from events (the plan's unplanned names) in
/// `--stats`, `--metrics` and on stderr, with `plan` before `privacy`.
@Suite struct PrivacyReportsTests {
    private static let pipeline = """
        version: 1
        stages:
          - plan: {unplanned_events: pass, events: {tap: {}}}
          - privacy: {}
        destinations: {archive: {type: ndjson}}
        """

    /// Unplanned names with personal data in them, one too long, then 150 clean distinct ones.
    private static func input() -> String {
        let names = ["signup jane@example.com", "signup bob@example.org", "call +1 (415) 555-0100", "from 198.51.100.23",
                     "card 4111 1111 1111 1111", "pay DE89 3704 0044 0532 0130 00", String(repeating: "long_name_", count: 20)]
            + (0..<150).map { "screen_\($0)" }
        return names.map { #"{"type":"track","event":"\#($0)","anonymousId":"d1","timestamp":"2026-11-20T08:00:00Z"}"# }
            .joined(separator: "\n") + "\n"
    }

    @Test func unplannedNamesReachTheStatsAndMetricsScrubbedCutAndCapped() throws {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", Self.pipeline)
        directory.write("in.ndjson", Self.input())
        // Read as it comes (all share one time: exact order would take them by their bytes), so the cap keeps the first 100 seen.
        let run = try SluiceBinary.run(["run", "--pipeline", "p.yaml", "--stats", "stats.json", "--metrics", "m.prom", "--order", "window",
                                        "in.ndjson"], in: directory.path)
        #expect(run.status == 0, "\(run.stderr)")
        let statsText = String(decoding: try Data(contentsOf: URL(fileURLWithPath: directory.file("stats.json"))), as: UTF8.self)
        let metricsText = String(decoding: try Data(contentsOf: URL(fileURLWithPath: directory.file("m.prom"))), as: UTF8.self)
        for (what, text) in [("stats", statsText), ("metrics", metricsText), ("stderr", run.stderr)] {
            let found = try PersonalData.found(in: text)
            #expect(found.isEmpty, "\(what): \(found)")
            #expect(!text.contains("DE89"), "\(what)")
        }
        #expect(try !PersonalData.found(in: Self.input()).isEmpty)

        let stats = try #require(try JSONSerialization.jsonObject(with: Data(statsText.utf8)) as? [String: Any])
        let plan = try #require((stats["stages"] as? [[String: Any]])?.first { $0["stage"] as? String == "plan" })
        let names = try #require(plan["unplanned_events"] as? [String: Int])
        // Two addresses scrub to one name, counted together; 100 names at most, then `(other)`.
        #expect(names["signup [email]"] == 2 && names["call [phone]"] == 1 && names["from [ip]"] == 1)
        #expect(names["card [card]"] == 1 && names["pay [iban]"] == 1)
        #expect(names.count == 101 && names["(other)"] == 56)
        #expect(names.keys.allSatisfy { $0.utf8.count <= 64 })
        #expect(names[String(repeating: "long_name_", count: 6) + "l…"] == 1)
        // The metrics' label values are the stats' names.
        #expect(metricsText.contains(#"sluice_stage_group_counter_total{stage="plan",group="unplanned_events",counter="signup [email]"} 2"#))
        #expect(metricsText.contains(#"counter="(other)"} 56"#))
    }

    @Test func theStatsSoFarOnStderrAfterSIGUSR1AreScrubbedToo() throws {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", Self.pipeline)
        let sluice = try SluiceProcess(["run", "--pipeline", "p.yaml", "--flush-interval", "100ms", "--metrics", "m.prom"], in: directory.path)
        let lines = Self.input().split(separator: "\n").map { Array($0.utf8) }
        sluice.send(lines: lines)
        #expect(waitUntil(timeout: 30) { linesIn(metrics: directory.file("m.prom")) == lines.count })
        sluice.signal(SIGUSR1)
        #expect(waitUntil(timeout: 30) { sluice.stderr.contains("stats so far: ") })
        sluice.closeInput()
        #expect(sluice.waitForExit(timeout: 30) == 0)
        let soFar = try #require(sluice.stderr.split(separator: "\n").first { $0.contains("stats so far: ") })
        #expect(soFar.contains(#""signup [email]":2"#))
        #expect(try PersonalData.found(in: sluice.stderr).isEmpty, "\(sluice.stderr)")
    }
}
